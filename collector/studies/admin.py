from django.contrib import admin

from collector.studies.models import Burst, ExperimentRun


@admin.register(ExperimentRun)
class ExperimentRunAdmin(admin.ModelAdmin):
    list_display = ("name", "start", "end", "src_host", "dst_host", "bytes_sent", "created_by")
    search_fields = ("name", "description")
    raw_id_fields = ("series", "channel")


@admin.register(Burst)
class BurstAdmin(admin.ModelAdmin):
    """Found by the burst scan: read only (a rescan of the day replaces them)."""
    list_display = ("series", "start", "end", "peak", "volume", "rule_k", "rule_capacity_pct", "rule_min_s")
    list_filter = ("day",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
