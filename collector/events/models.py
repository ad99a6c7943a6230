"""Event: one fact about a switch, port, VP, VC or host at a time (docs/events.md).

`dedupe` makes recording idempotent: the same fact (kind, what, when, message) recorded twice
is one row (collector/events/record.py). Events are never deleted by retention: they are a few
hundred bytes each and name the moments the archive's plots are read against.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from collector.inventory.models import Host, Port, Switch, VirtualChannel, VirtualPath

# The kinds of event, each with the words the pages use. Where each comes from: docs/events.md.
KINDS = [
    ("reboot", "agent restarted"),
    ("wrap", "counter wrap"),
    ("discontinuity", "counter discontinuity"),
    ("port_state", "port state change"),
    ("vp_state", "VP state change"),
    ("vc_state", "VC state change"),
    ("discovery_added", "appeared"),
    ("discovery_removed", "vanished"),
    ("host_state", "host reachability change"),
    ("alert_firing", "alert firing"),
    ("alert_resolved", "alert resolved"),
    ("note", "note"),
    ("trap", "trap"),
    ("unknown_trap", "unknown trap"),
    ("trap_rejected", "trap rejected"),
]
KIND_NAMES = frozenset(k for k, _ in KINDS)

SOURCES = [("poll", "poll"), ("discovery", "discovery"), ("trap", "trap"), ("user", "user"), ("api", "API"),
           ("alert", "alert"), ("check", "host check")]
SOURCE_NAMES = frozenset(s for s, _ in SOURCES)

MESSAGE_MAX = 2000      # characters of a message kept (a note longer than this is refused, not cut)


class Event(models.Model):
    at = models.DateTimeField(db_index=True)
    kind = models.CharField(max_length=20, choices=KINDS)
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    port = models.ForeignKey(Port, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    vp = models.ForeignKey(VirtualPath, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    vc = models.ForeignKey(VirtualChannel, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    host = models.ForeignKey(Host, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    message = models.TextField()
    source = models.CharField(max_length=10, choices=SOURCES)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", help_text="who posted it (notes)")
    data = models.JSONField(default=dict, blank=True, help_text="the fact's details (never a secret)")
    dedupe = models.CharField(max_length=64, unique=True, help_text="sha256 of the fact: recorded once")
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["switch", "at"], name="event_switch_at"),
            models.Index(fields=["port", "at"], name="event_port_at"),
            models.Index(fields=["kind", "at"], name="event_kind_at"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind}: {self.message[:80]}"
