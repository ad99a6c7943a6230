"""Analysis jobs: the table of traffic analyses run by the worker."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("exports", "0001_export_jobs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AnalysisJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("session_hash", models.CharField(blank=True, default="", max_length=64,
                                                  help_text="SHA-256 of the anonymous owner's session key (never the key)")),
                ("selection", models.TextField(help_text="the analysis query string (series, absolute window, options)")),
                ("status", models.CharField(choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"),
                                                     ("failed", "Failed")], default="queued", max_length=10)),
                ("fraction", models.FloatField(default=0.0, help_text="0..1, written by the worker between steps")),
                ("step", models.CharField(blank=True, default="", max_length=200, help_text="what the worker is doing")),
                ("result", models.JSONField(blank=True, null=True)),
                ("error", models.TextField(blank=True, default="")),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("started", models.DateTimeField(blank=True, null=True)),
                ("finished", models.DateTimeField(blank=True, null=True)),
                ("owner", models.ForeignKey(blank=True, help_text="empty when asked anonymously (see session_hash)",
                                            null=True, on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                            to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "db_table": "exports_analysis_job",
                "indexes": [models.Index(fields=["selection", "status"], name="exports_analysis_sel")],
            },
        ),
    ]
