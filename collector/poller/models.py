"""The poller's own records: the latest poll outcome per switch and host reachability
(written by runner.py and hostcheck.py, read by the status pages)."""
from __future__ import annotations

from django.db import models

from collector.inventory.models import Host, Switch


class SwitchHealth(models.Model):
    """Latest poll outcome per switch, updated by every poll (history is in PollLog)."""
    switch = models.OneToOneField(Switch, on_delete=models.CASCADE, primary_key=True, related_name="health")
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_status = models.CharField(max_length=16, blank=True, default="")
    last_duration_ms = models.IntegerField(null=True, blank=True)
    last_varbinds = models.IntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    consecutive_failures = models.IntegerField(default=0)
    polls_ok = models.BigIntegerField(default=0)
    polls_failed = models.BigIntegerField(default=0)

    class Meta:
        db_table = "status_switchhealth"


class HostCheck(models.Model):
    """One reachability check of a host (hypertable on `time`)."""
    pk = models.CompositePrimaryKey("host_id", "time")
    host = models.ForeignKey(Host, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+")
    time = models.DateTimeField()
    reachable = models.BooleanField()
    rtt_ms = models.FloatField(null=True)
    method = models.CharField(max_length=8)
    error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        db_table = "status_host_check"


class HostState(models.Model):
    """Latest check per host, for the host table without scanning history."""
    host = models.OneToOneField(Host, on_delete=models.CASCADE, primary_key=True, related_name="state")
    reachable = models.BooleanField(null=True)
    rtt_ms = models.FloatField(null=True, blank=True)
    method = models.CharField(max_length=8, blank=True, default="")
    checked_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        db_table = "status_hoststate"
