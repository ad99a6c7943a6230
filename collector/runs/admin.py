from datetime import time

from django.contrib import admin
from django.contrib.admin import widgets
from django.db import models

from collector.runs.models import ExperimentRun


class FractionTimeInput(widgets.BaseAdminTimeWidget):
    """The admin's time input showing a time's fractions of a second: the stock one shows whole
    seconds, so a run saved unchanged lost them (20:15:01.815 became 20:15:01)."""

    def format_value(self, value):
        if isinstance(value, time) and value.microsecond:
            text = value.strftime("%H:%M:%S.%f")
            return text[:-3] if value.microsecond % 1000 == 0 else text
        return super().format_value(value)


class FractionSplitDateTime(widgets.AdminSplitDateTime):
    supports_microseconds = True        # else the bound field drops them before the widget sees them

    def __init__(self, attrs=None):
        super().__init__(attrs)
        # MultiWidget keeps its widgets in a list; django-stubs types AdminSplitDateTime's as a tuple.
        self.widgets[1] = FractionTimeInput()  # type: ignore[index]


@admin.register(ExperimentRun)
class ExperimentRunAdmin(admin.ModelAdmin):
    list_display = ("name", "start", "end", "src_host", "dst_host", "bytes_sent", "created_by")
    search_fields = ("name", "description")
    raw_id_fields = ("series", "channel")
    formfield_overrides = {models.DateTimeField: {"widget": FractionSplitDateTime}}
