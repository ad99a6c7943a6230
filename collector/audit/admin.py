"""The audit trail in the admin: read only, for superusers and holders of audit.view_auditevent
(grant it to the "admin" group); no one can add, change or delete an event here."""
from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from collector.audit.models import AuditEvent


def _shown(value: object) -> str:
    return "" if value is None else str(value)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("time", "actor_label", "source", "action", "object_type", "object_repr", "address")
    list_filter = ("action", "object_type", "source", "time", "actor_label")
    search_fields = ("actor_label", "object_repr", "object_id", "address")
    date_hierarchy = "time"
    list_select_related = ()
    fields = ("time", "actor_label", "actor", "source", "address", "action", "object_type", "object_id",
              "object_repr", "changes_table")
    readonly_fields = fields

    @admin.display(description="changes")
    def changes_table(self, event: AuditEvent) -> str:
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((name, change.get("secret") or _shown(change.get("old")), "" if "secret" in change
              else _shown(change.get("new"))) for name, change in sorted(event.changes.items())))
        return format_html("<table><tr><th>field</th><th>old (or secret)</th><th>new</th></tr>{}</table>", rows)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False
