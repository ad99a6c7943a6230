"""Tables of the studies app: significant bursts found in the archive, and what was scanned."""
from __future__ import annotations

from django.db import models

from collector.archive.models import Series


class Burst(models.Model):
    """A significant burst of one series (analysis/bursts.py), found in one UTC day of the 1-minute
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


class ExperimentRun(models.Model):
    """A named time window of an experiment (a throughput test, a transfer) and what it concerns:
    two hosts (their VCC path), a PVC endpoint, or chosen series; and, when the application
    says, what it sent. collector/studies/runs.py checks and creates them (web, API, CLI)."""
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    start = models.DateTimeField()
    end = models.DateTimeField(null=True, blank=True, help_text="empty while the run is going on")
    src_host = models.ForeignKey("inventory.Host", on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+")
    dst_host = models.ForeignKey("inventory.Host", on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+")
    channel = models.ForeignKey("inventory.VirtualChannel", on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="+", help_text="the PVC endpoint it concerns")
    series = models.ManyToManyField(Series, blank=True, related_name="+")
    bytes_sent = models.BigIntegerField(null=True, blank=True, help_text="what the application says it sent")
    messages = models.BigIntegerField(null=True, blank=True)
    message_size = models.IntegerField(null=True, blank=True, help_text="bytes per message (AAL5 CPCS-SDU)")
    overhead = models.IntegerField(default=0, help_text="header bytes per message not counted in bytes_sent")
    report = models.JSONField(null=True, blank=True, help_text="the application's own report (iperf3 -J)")
    created_by = models.CharField(max_length=150, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "studies_run"
        ordering = ["-start"]
        constraints = [
            models.CheckConstraint(condition=models.Q(end__isnull=True) | models.Q(end__gt=models.F("start")),
                                   name="run_end_after_start"),
            models.CheckConstraint(condition=models.Q(bytes_sent__isnull=True) | models.Q(bytes_sent__gte=0),
                                   name="run_bytes_not_negative")]

    def __str__(self) -> str:
        return self.name
