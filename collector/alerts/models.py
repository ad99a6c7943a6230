"""Tables of the alerts app: rules, per-object overrides, destinations, the state of each (rule,
object), its transition history, the notification outbox and the cost of each evaluation run.

A rule is checked by rules.check (the one place that says what a rule may be); evaluate.py turns
rules into states and transitions; notify.py turns transitions into outbox rows and sends them.

History is evidence: a rule deleted on the page or in the admin is retired (actions.retire), never
deleted, and transitions and notifications hold on to nothing that can cascade them away: each
copies the names of the time (rule, destination) and loses only its link when a state, a rule
(its switch deleted) or a destination goes.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from collector.groups.models import Group
from collector.inventory.models import Host, Port, Switch, VirtualChannel, VirtualPath
from collector.inventory.secrets import SecretField

KINDS = [("rate", "rate above or below a threshold"), ("status", "port, VP or VC not up"),
         ("not_polled", "switch not polled for N intervals"), ("unreachable", "host unreachable for N checks"),
         ("discontinuity", "counter discontinuity (agent reboot, counter reset)")]
SCOPES = [("object", "one object"), ("switch", "a switch"), ("poller_group", "a poller group"),
          ("group", "a saved group"), ("pattern", "a name pattern"), ("all", "everything")]
ENTITIES = [("port", "ports"), ("vp", "VPs"), ("vc", "VCs"), ("any", "ports, VPs and VCs")]
DIRECTIONS = [("in", "in"), ("out", "out"), ("both", "both, each on its own")]
UNITS = [("pct", "% of capacity"), ("bps", "bits/s (octets x 8, cells x 424 on the wire)"),
         ("rate", "units/s of the counter (cells/s, octets/s, packets/s)")]
COMPARISONS = [("above", "above"), ("below", "below")]
RATE_UNITS = {"pct": "%", "bps": "b/s"}     # a rate rule's values as written for people (facts.rate_text)
MODES = [("avg", "average over the window"), ("every", "every sample of the window")]
STATES = [("ok", "ok"), ("pending", "pending"), ("firing", "firing"), ("resolved", "resolved")]
OBJECT_KINDS = [("series", "series"), ("port", "port"), ("vp", "VP"), ("vc", "VC"), ("switch", "switch"),
                ("host", "host")]


class Destination(models.Model):
    """Where notifications go: one apprise URL (mailto://, json://, slack:// ...), kept encrypted
    (it may hold a password or a token); pages show apprise's redacted form only."""
    name = models.CharField(max_length=100, unique=True)
    url = SecretField(help_text="an apprise URL: mailto://host:port?from=a@b&to=c@d, json://host:port/path ...")
    enabled = models.BooleanField(default=True)
    last_ok_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    failing_since = models.DateTimeField(null=True, blank=True, help_text="first failure since the last success")

    class Meta:
        db_table = "alerts_destination"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Rule(models.Model):
    name = models.CharField(max_length=100, help_text="unique among the rules not retired")
    kind = models.CharField(max_length=16, choices=KINDS)
    enabled = models.BooleanField(default=True)
    # Scope: which objects the rule watches.
    scope = models.CharField(max_length=16, choices=SCOPES)
    switch = models.ForeignKey(Switch, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    port = models.ForeignKey(Port, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    vp = models.ForeignKey(VirtualPath, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    vc = models.ForeignKey(VirtualChannel, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    host = models.ForeignKey(Host, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    poller_group = models.CharField(max_length=50, blank=True, default="")
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    pattern = models.CharField(max_length=500, blank=True, default="",
                               help_text="series kinds: a group rule line (switch=asx* port=A*); switches and "
                                         "hosts: a shell pattern on their names")
    entity = models.CharField(max_length=4, choices=ENTITIES, default="port")
    # Rate rules.
    direction = models.CharField(max_length=4, choices=DIRECTIONS, default="both")
    metric = models.CharField(max_length=32, default="traffic",
                              help_text="traffic (cells, else octets), or a counter by name: errors, discards, "
                                        "lost_cells, overflow_cells, crc_errors ... (a pattern's metric= wins)")
    unit = models.CharField(max_length=4, choices=UNITS, default="pct")
    comparison = models.CharField(max_length=5, choices=COMPARISONS, default="above")
    threshold = models.FloatField(null=True, blank=True)
    recovery = models.FloatField(null=True, blank=True, help_text="the value that resolves a firing alert "
                                 "(hysteresis); empty: the threshold")
    mode = models.CharField(max_length=5, choices=MODES, default="avg")
    window_minutes = models.PositiveIntegerField(default=5, help_text="rate: the window the value is taken over; "
                                                 "other kinds: how long the condition holds before firing")
    count = models.PositiveIntegerField(default=3, help_text="not polled: intervals; unreachable: checks")
    destinations = models.ManyToManyField(Destination, blank=True, related_name="rules")
    muted_until = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    retired_at = models.DateTimeField(null=True, blank=True, help_text="deleted: no longer evaluated nor listed "
                                      "among the rules; its history is kept")

    class Meta:
        db_table = "alerts_rule"
        ordering = ["name"]
        # A retired rule keeps its name in its history; a new rule may take the name again.
        constraints = [models.UniqueConstraint(fields=["name"], condition=Q(retired_at__isnull=True),
                                               name="alerts_rule_name_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def value_unit(self) -> str:
        """The unit of its threshold and recovery value (a rate rule's), for the pages."""
        return rate_unit(self.unit)


def rate_unit(rule_unit: str, counter: str = "") -> str:
    """What a rate rule's values are in: %, b/s, or the counter's own unit per second (cells/s; a
    rule over several counters: "/s")."""
    return RATE_UNITS.get(rule_unit, f"{counter}/s")


class Override(models.Model):
    """A rule's threshold (and recovery) for one object of its scope."""
    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="overrides")
    object_kind = models.CharField(max_length=8, choices=OBJECT_KINDS)
    object_id = models.BigIntegerField()
    threshold = models.FloatField()
    recovery = models.FloatField(null=True, blank=True)

    class Meta:
        db_table = "alerts_override"
        constraints = [models.UniqueConstraint(fields=["rule", "object_kind", "object_id"],
                                               name="alerts_override_unique")]


class State(models.Model):
    """One rule on one object: where it is in ok -> pending -> firing -> resolved."""
    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="states")
    object_kind = models.CharField(max_length=8, choices=OBJECT_KINDS)
    object_id = models.BigIntegerField()
    label = models.CharField(max_length=300)
    series_ids = models.JSONField(default=list, blank=True, help_text="what the plot link draws")
    state = models.CharField(max_length=8, choices=STATES, default="ok")
    since = models.DateTimeField()
    pending_since = models.DateTimeField(null=True, blank=True)
    value = models.FloatField(null=True, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    unit = models.CharField(max_length=20, blank=True, default="", help_text="of value and threshold (b/s, %, s ...)")
    detail = models.CharField(max_length=300, blank=True, default="")
    evaluated_at = models.DateTimeField()
    notified = models.BooleanField(default=False, help_text="its firing was notified: its resolution is too")
    acked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    ack_until = models.DateTimeField(null=True, blank=True)
    ack_note = models.CharField(max_length=300, blank=True, default="")
    muted_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "alerts_state"
        constraints = [models.UniqueConstraint(fields=["rule", "object_kind", "object_id"],
                                               name="alerts_state_unique")]
        indexes = [models.Index(fields=["state"], name="alerts_state_state")]


class Transition(models.Model):
    """History: every change of a state (resolved -> ok is not recorded: it changes nothing), with the
    rule's name at the time; it outlives its state and its rule."""
    state = models.ForeignKey(State, null=True, blank=True, on_delete=models.SET_NULL, related_name="transitions")
    rule = models.ForeignKey(Rule, null=True, blank=True, on_delete=models.SET_NULL, related_name="transitions")
    rule_name = models.CharField(max_length=100)
    at = models.DateTimeField(db_index=True)
    from_state = models.CharField(max_length=8, choices=STATES)
    to_state = models.CharField(max_length=8, choices=STATES)
    value = models.FloatField(null=True, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    unit = models.CharField(max_length=20, blank=True, default="", help_text="of value and threshold at the time")
    message = models.TextField()

    class Meta:
        db_table = "alerts_transition"
        ordering = ["-at", "-id"]


class Notification(models.Model):
    """The outbox: one message to one destination, sent by cellar.send_notification, retried with
    exponential backoff until MAX_ATTEMPTS (notify.py). Kept when its destination is deleted (with the
    destination's name at the time; a row still due then fails, saying why)."""
    STATUSES = [("queued", "queued"), ("retrying", "retrying"), ("sent", "sent"), ("failed", "failed"),
                ("muted", "muted")]
    transition = models.ForeignKey(Transition, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="notifications")
    destination = models.ForeignKey(Destination, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="notifications")
    destination_name = models.CharField(max_length=100)
    kind = models.CharField(max_length=8)          # firing | resolved | test
    title = models.CharField(max_length=300)
    body = models.TextField()
    status = models.CharField(max_length=8, choices=STATUSES, default="queued")
    attempts = models.PositiveIntegerField(default=0)
    next_try_at = models.DateTimeField()
    last_error = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "alerts_notification"
        ordering = ["-created", "-id"]
        constraints = [models.UniqueConstraint(fields=["transition", "destination"],
                                               name="alerts_notification_once")]
        indexes = [models.Index(fields=["status", "next_try_at"], name="alerts_notification_due")]


class EvaluationRun(models.Model):
    """What one evaluation cost: shown on the alerts page (the last ones are kept)."""
    started = models.DateTimeField(db_index=True)
    duration_ms = models.FloatField()
    rules = models.IntegerField()
    watched = models.IntegerField(help_text="objects evaluated")
    transitions = models.IntegerField()
    skipped = models.TextField(blank=True, default="", help_text="what the bounds left out, and why")

    class Meta:
        db_table = "alerts_evaluation_run"
        ordering = ["-started"]
