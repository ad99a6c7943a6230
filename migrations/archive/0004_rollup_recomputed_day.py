"""The UTC days whose 1-minute buckets were recomputed for late samples, and when: what was
derived from a day (the stored bursts, collector/studies) is derived again after that."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("archive", "0003_polllog_notes")]

    operations = [
        migrations.CreateModel(
            name="RollupRecomputedDay",
            fields=[
                ("day", models.DateField(primary_key=True, serialize=False)),
                ("at", models.DateTimeField(help_text="when the day's 1-minute buckets were last recomputed")),
            ],
            options={"db_table": "traffic_rollup_recomputed_day"},
        ),
    ]
