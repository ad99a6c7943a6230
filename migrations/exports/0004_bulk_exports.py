"""Bulk exports (a switch, a group, series or the whole network as CSV or Parquet) are export jobs
too: their kind and their spec (scope, window, resolution, format); every existing job is a plot's CSV.
progress_at: a long bulk export is lost only when its worker has been quiet for a while."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("exports", "0003_analysis_job_to_analysis")]

    operations = [
        migrations.AddField("exportjob", "kind", models.CharField(
            choices=[("plot", "Plot"), ("bulk", "Bulk")], default="plot", max_length=8)),
        migrations.AddField("exportjob", "spec", models.JSONField(
            blank=True, default=dict, help_text="a bulk export: scope, start, end, res, format")),
        migrations.AddField("exportjob", "progress_at", models.DateTimeField(
            blank=True, null=True, help_text="when the worker last reported progress")),
    ]
