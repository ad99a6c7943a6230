"""The audit table: one row per recorded create, update or delete of a tracked object."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from collector.audit.context import SOURCES


class AuditEvent(models.Model):
    ACTIONS = [("create", "create"), ("update", "update"), ("delete", "delete")]
    time = models.DateTimeField(default=timezone.now)
    # The user row may be deleted later; the label keeps who it was (and names non-users:
    # "cli:root", "api-token:alice/ci", "system").
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    actor_label = models.CharField("actor", max_length=150)
    source = models.CharField(max_length=8, choices=[(s, s) for s in SOURCES])
    address = models.GenericIPAddressField(null=True, blank=True, help_text="client address of a web request")
    action = models.CharField(max_length=8, choices=ACTIONS)
    object_type = models.CharField(max_length=100, help_text="app_label.model")
    object_id = models.CharField(max_length=64)
    object_repr = models.CharField("object", max_length=200)
    changes = models.JSONField(default=dict, blank=True, help_text='{field: {"old": v, "new": v}}; a secret '
                               'field: {field: {"secret": "set" | "changed" | "cleared"}}')

    class Meta:
        db_table = "audit_event"
        ordering = ["-time", "-id"]
        # Only viewing exists: rows are written by the capture, never by hand.
        default_permissions = ("view",)
        indexes = [models.Index(fields=["time"], name="audit_time"),
                   models.Index(fields=["object_type", "object_id"], name="audit_object")]

    def __str__(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M:%S} {self.actor_label} {self.action} {self.object_type} {self.object_repr}"
