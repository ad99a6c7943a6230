"""Events in the admin: read only (events are recorded, never edited); admins (events.delete_event)
may delete one, e.g. a note posted on the wrong port."""
from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from collector.events.models import Event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("at", "kind", "source", "switch", "port", "message")
    list_filter = ("kind", "source", "at")
    search_fields = ("message", "switch__name", "port__name")
    date_hierarchy = "at"
    list_select_related = ("switch", "port")
    fields = ("at", "kind", "source", "switch", "port", "vp", "vc", "host", "actor", "message", "data", "recorded_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Event | None = None) -> bool:
        return False
