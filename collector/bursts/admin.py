from django.contrib import admin

from collector.bursts.models import Burst


@admin.register(Burst)
class BurstAdmin(admin.ModelAdmin):
    """Found by the burst scan: read only (a rescan of the day replaces them)."""
    list_display = ("series", "start", "end", "peak", "volume", "rule_k", "rule_capacity_pct", "rule_min_s",
                    "rule_min_samples")
    list_filter = ("day",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
