"""Inventory admin. SNMP secrets are write-only: never rendered back, blank keeps the old value."""
from __future__ import annotations

from django import forms
from django.contrib import admin

from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel, VirtualPath

SECRET_FIELDS = ("community", "auth_key", "priv_key")


class SwitchForm(forms.ModelForm):
    community = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                                help_text="write-only; leave blank to keep the stored value")
    auth_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                               help_text="write-only; leave blank to keep the stored value")
    priv_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                               help_text="write-only; leave blank to keep the stored value")
    clear_secrets = forms.BooleanField(required=False, help_text="erase the stored community and keys")

    class Meta:
        model = Switch
        exclude = ()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in SECRET_FIELDS:
            self.initial[name] = ""   # never send a stored secret to the browser

    def clean(self):
        data = super().clean()
        for name in SECRET_FIELDS:
            if not data.get(name) and self.instance.pk and not data.get("clear_secrets"):
                data[name] = getattr(self.instance, name)   # blank = keep
        if data.get("snmp_version") == "3" and not data.get("v3_user"):
            self.add_error("v3_user", "SNMPv3 needs a user name")
        for key, proto in (("auth_key", "auth_proto"), ("priv_key", "priv_proto")):
            if data.get(proto) and len(str(data.get(key) or "")) < 8:
                self.add_error(key, "at least 8 characters (RFC 3414)")
        return data


@admin.register(Switch)
class SwitchAdmin(admin.ModelAdmin):
    form = SwitchForm
    list_display = ("name", "address", "snmp_version", "profile", "detected_profile", "poll_interval_s",
                    "poller_group", "enabled", "discovered_at")
    list_filter = ("enabled", "profile", "poller_group", "snmp_version")
    search_fields = ("name", "address", "sys_name")
    readonly_fields = ("detected_profile", "sys_object_id", "sys_descr", "sys_name", "switch_type",
                       "software_version", "hardware_version", "port_count", "uptime_cs", "uptime_at",
                       "discovered_at", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("name", "address", "enabled", "profile", "poll_interval_s", "poller_group",
                           "time_zone")}),
        ("SNMP access", {"fields": ("snmp_port", "snmp_version", "community", "v3_user", "auth_proto", "auth_key",
                                    "priv_proto", "priv_key", "clear_secrets", "timeout_s", "retries")}),
        ("Discovered", {"fields": readonly_fields}),
    )


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ("name", "address", "check_method", "enabled")
    search_fields = ("name", "address")


@admin.register(Port)
class PortAdmin(admin.ModelAdmin):
    list_display = ("switch", "name", "label", "port_type", "oper_status", "speed_bps", "gone_at")
    list_filter = ("switch", "oper_status", "is_atm")
    search_fields = ("name", "label", "description")
    list_select_related = ("switch",)


@admin.register(VirtualPath)
class VirtualPathAdmin(admin.ModelAdmin):
    list_display = ("switch", "port", "vpi", "status", "alloc_bw", "gone_at")
    list_filter = ("switch",)
    list_select_related = ("switch", "port")


@admin.register(VirtualChannel)
class VirtualChannelAdmin(admin.ModelAdmin):
    list_display = ("switch", "port", "vpi", "vci", "status", "service_category", "alloc_bw", "gone_at")
    list_filter = ("switch",)
    list_select_related = ("switch", "port")


@admin.register(CrossConnect)
class CrossConnectAdmin(admin.ModelAdmin):
    list_display = ("switch", "kind", "in_port", "in_vpi", "in_vci", "out_port", "out_vpi", "out_vci", "status",
                    "gone_at")
    list_filter = ("switch", "kind")
    list_select_related = ("switch", "in_port", "out_port")


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    list_display = ("a_port", "b_port", "b_host", "source", "note")
    list_filter = ("source",)
    autocomplete_fields = ("a_port", "b_port", "b_host")
