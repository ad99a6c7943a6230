"""Significant bursts found in the archive (collector/bursts/scan.py) and the days scanned."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = [("archive", "0003_polllog_notes")]

    operations = [
        migrations.CreateModel(
            name="BurstScan",
            fields=[
                ("day", models.DateField(primary_key=True, serialize=False)),
                ("scanned_at", models.DateTimeField()),
                ("final", models.BooleanField(default=False)),
                ("series", models.IntegerField(help_text="series with data that day")),
                ("bursts", models.IntegerField()),
                ("seconds", models.FloatField(help_text="time the scan took")),
            ],
            options={"db_table": "studies_burst_scan"},
        ),
        migrations.CreateModel(
            name="Burst",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField(help_text="the UTC day scanned: the window whose median the rule uses")),
                ("start", models.DateTimeField()),
                ("end", models.DateTimeField()),
                ("peak", models.FloatField(help_text="units/s")),
                ("mean", models.FloatField(help_text="units/s over the measured part")),
                ("volume", models.BigIntegerField(help_text="units counted in the burst")),
                ("points", models.IntegerField()),
                ("gap_s", models.FloatField(default=0.0)),
                ("rule_k", models.FloatField()),
                ("rule_capacity_pct", models.FloatField()),
                ("rule_min_s", models.FloatField()),
                ("series", models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE,
                                             related_name="+", to="archive.series")),
            ],
            options={"db_table": "studies_burst",
                     "indexes": [models.Index(fields=["series", "start"], name="burst_series_start"),
                                 models.Index(fields=["day"], name="burst_day")]},
        ),
    ]
