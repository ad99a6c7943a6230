from django.contrib import admin

from collector.external.models import ExternalSeries


@admin.register(ExternalSeries)
class ExternalSeriesAdmin(admin.ModelAdmin):
    """Name, source and description may be edited; the points come only through an import
    (deleting a series deletes its points in the database)."""
    list_display = ("name", "unit", "interval_s", "n_points", "first", "last", "source", "created_by")
    search_fields = ("name", "source", "description")
    readonly_fields = ("unit", "interval_s", "stamp", "first", "last", "n_points", "created_by", "created", "updated")

    def has_add_permission(self, request) -> bool:
        return False
