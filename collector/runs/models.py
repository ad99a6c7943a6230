"""The runs app's table: experiment runs, named windows of traffic that people mark (collector/runs/edit.py)."""
from __future__ import annotations

from django.db import models

from collector.archive.models import Series


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
    message_size = models.IntegerField(null=True, blank=True, help_text="bytes of data per message: an AAL5 "
                                       "CPCS-SDU on ATM, a segment (TCP MSS) or datagram on Ethernet")
    overhead = models.IntegerField(default=0, help_text="header bytes per message not counted in bytes_sent "
                                                        "(TCP/IP 40, with timestamps 52; LLC/SNAP 8 on ATM)")
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
