"""Series.reset_series was never written (resets are told by the discontinuity series found
through the profile, collector/archive/ingest.py): the always-NULL column goes."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("archive", "0001_models_from_traffic")]

    operations = [
        migrations.RemoveField(model_name="series", name="reset_series"),
    ]
