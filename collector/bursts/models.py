"""The bursts app's tables: the significant bursts found in the archive (numerics/bursts.py, scanned day by
day: collector/bursts/scan.py), and which days were scanned with which rule."""
from __future__ import annotations

from django.db import models

from collector.archive.models import Series


class Burst(models.Model):
    """A significant burst of one series (numerics/bursts.py), found in one UTC day of the 1-minute
    tier with the rule written beside it (the settings' default when it was scanned)."""
    series = models.ForeignKey(Series, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    day = models.DateField(help_text="the UTC day scanned: the window whose median the rule uses")
    start = models.DateTimeField()
    end = models.DateTimeField()
    peak = models.FloatField(help_text="units/s")
    mean = models.FloatField(help_text="units/s over the measured part")
    volume = models.BigIntegerField(help_text="units counted in the burst")
    points = models.IntegerField()
    gap_s = models.FloatField(default=0.0)
    continues = models.BooleanField(default=False, help_text="this row continues the previous day's burst, "
                                                             "which ran to midnight")
    rule_k = models.FloatField()
    rule_capacity_pct = models.FloatField()
    rule_min_s = models.FloatField()
    rule_min_samples = models.IntegerField(default=1, help_text="poll samples above the threshold a burst held at "
                                                                "least (1: rows found before this part of the rule)")

    class Meta:
        db_table = "studies_burst"
        indexes = [models.Index(fields=["series", "start"], name="burst_series_start"),
                   models.Index(fields=["day"], name="burst_day")]


class BurstScan(models.Model):
    """A UTC day whose bursts are stored; `final` once the day was complete in the 1-minute tier
    (a day still filling is scanned again on every run)."""
    day = models.DateField(primary_key=True)
    scanned_at = models.DateTimeField()
    final = models.BooleanField(default=False)
    series = models.IntegerField(help_text="series with data that day")
    bursts = models.IntegerField()
    seconds = models.FloatField(help_text="time the scan took")

    class Meta:
        db_table = "studies_burst_scan"
