"""The poller's own records: the latest poll outcome per switch and host reachability
(written by runner.py and hostcheck.py, read by the status pages)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from collector.inventory.models import CredentialSet, Host, Switch
from collector.inventory.secrets import SecretField


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


class GroupNamespace(models.Model):
    """The network namespace a poller group's worker runs in, when it is not the machine's own.

    `make run` puts the simulated network in a namespace of its own (its unreachable host is behind
    a link that is down there; elsewhere its address would be routed off the machine): its group
    is served only from inside (collector/poller/reach.py). A group with no row is served from
    wherever its worker runs."""
    group = models.CharField(max_length=50, unique=True)
    netns = models.CharField(max_length=64, help_text="the name under /run/netns")
    recorded_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "poller_group_namespace"

    def __str__(self) -> str:
        return f"{self.group} in {self.netns}"


class NetworkJob(models.Model):
    """Network work asked from the web or the CLI (check a switch or host now, add a switch, sweep
    a range), run by the worker of the target's poller group; its steps are written as they happen
    so the page shows them. Credentials typed for one job are stored encrypted here, read by the
    worker by the job's id (never a task argument) and erased when the job ends."""

    class Kind(models.TextChoices):
        CHECK_SWITCH = "check_switch", "check a switch now"
        CHECK_HOST = "check_host", "check a host now"
        ADD_SWITCH = "add_switch", "add a switch"
        SWEEP = "sweep", "sweep a range"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    target = models.CharField(max_length=255, help_text="what the job is about, in words (a name, an address, a range)")
    poller_group = models.CharField(max_length=50, default="default")
    params = models.JSONField(default=dict, blank=True, help_text="the job's inputs (never a secret)")
    snmp_version = models.CharField(max_length=2, blank=True, default="")
    community = SecretField(blank=True, default="")
    v3_user = models.CharField(max_length=64, blank=True, default="")
    auth_proto = models.CharField(max_length=8, blank=True, default="")
    auth_key = SecretField(blank=True, default="")
    priv_proto = models.CharField(max_length=8, blank=True, default="")
    priv_key = SecretField(blank=True, default="")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    steps = models.JSONField(default=list, blank=True,
                             help_text='[{"at": ISO time, "text": ..., "state": ok|fail|info}]')
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "poller_network_job"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.target}"

    @property
    def done(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def typed_credentials(self) -> bool:
        return bool(self.snmp_version)


class SweepAnswer(models.Model):
    """An address of a swept range that answered SNMP, with what it said; the candidates list
    offers it until a switch has its address."""
    address = models.GenericIPAddressField()
    poller_group = models.CharField(max_length=50, default="default")
    sys_name = models.CharField(max_length=255, blank=True, default="")
    sys_descr = models.TextField(blank=True, default="")
    sys_object_id = models.CharField(max_length=128, blank=True, default="")
    credential_set = models.ForeignKey(CredentialSet, null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="+")
    job = models.ForeignKey(NetworkJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="answers")
    found_at = models.DateTimeField()

    class Meta:
        db_table = "poller_sweep_answer"
        constraints = [models.UniqueConstraint(fields=["poller_group", "address"], name="sweep_answer_once")]
