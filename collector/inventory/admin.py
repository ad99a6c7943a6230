"""Inventory admin. SNMP secrets are write-only: never rendered back, blank keeps the old value."""
from __future__ import annotations

from django import forms
from django.contrib import admin

from collector.inventory import topology
from collector.inventory.models import (
    CredentialSet,
    CrossConnect,
    Host,
    Link,
    LinkEvidence,
    Port,
    Switch,
    VirtualChannel,
    VirtualPath,
)

SECRET_FIELDS = ("community", "auth_key", "priv_key")


class SecretsForm(forms.ModelForm):
    """Write-only SNMP secrets: blank keeps the stored value, never rendered back."""
    community = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                                help_text="write-only; leave blank to keep the stored value")
    auth_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                               help_text="write-only; leave blank to keep the stored value")
    priv_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                               help_text="write-only; leave blank to keep the stored value")
    clear_secrets = forms.BooleanField(required=False, help_text="erase the stored community and keys")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in SECRET_FIELDS:
            self.initial[name] = ""   # never send a stored secret to the browser

    def clean(self):
        super().clean()
        data = self.cleaned_data            # what ModelForm.clean returns
        for name in SECRET_FIELDS:
            if not data.get(name) and self.instance.pk and not data.get("clear_secrets"):
                data[name] = getattr(self.instance, name)   # blank = keep
        if data.get("snmp_version") == "3" and not data.get("v3_user"):
            self.add_error("v3_user", "SNMPv3 needs a user name")
        for key, proto in (("auth_key", "auth_proto"), ("priv_key", "priv_proto")):
            if data.get(proto) and len(str(data.get(key) or "")) < 8:
                self.add_error(key, "at least 8 characters (RFC 3414)")
        return data


class SwitchForm(SecretsForm):
    class Meta:
        model = Switch
        exclude = ()


class CredentialSetForm(SecretsForm):
    class Meta:
        model = CredentialSet
        exclude = ()


@admin.register(CredentialSet)
class CredentialSetAdmin(admin.ModelAdmin):
    """Site credentials tried in turn when a switch is added by address or a range is swept."""
    form = CredentialSetForm
    list_display = ("name", "position", "snmp_version", "v3_user", "auth_proto", "priv_proto", "note")
    fields = ("name", "position", "snmp_version", "community", "v3_user", "auth_proto", "auth_key", "priv_proto",
              "priv_key", "clear_secrets", "note")


@admin.register(Switch)
class SwitchAdmin(admin.ModelAdmin):
    form = SwitchForm
    list_display = ("name", "address", "snmp_version", "profile", "detected_profile", "poll_interval_s",
                    "poller_group", "enabled", "discovered_at")
    list_filter = ("enabled", "profile", "poller_group", "snmp_version")
    search_fields = ("name", "address", "sys_name")
    readonly_fields = ("detected_profile", "sys_object_id", "sys_descr", "sys_name", "switch_type", "identity",
                       "software_version", "hardware_version", "port_count", "uptime_cs", "uptime_at",
                       "discovered_at", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("name", "address", "enabled", "profile", "poll_interval_s", "poller_group",
                           "time_zone")}),
        ("SNMP access", {"fields": ("snmp_port", "snmp_version", "credential_set", "community", "v3_user", "auth_proto",
                                    "auth_key",
                                    "priv_proto", "priv_key", "clear_secrets", "timeout_s", "retries")}),
        ("Discovered", {"fields": readonly_fields}),
    )


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ("name", "address", "check_method", "poller_group", "enabled")
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


class ConflictFilter(admin.SimpleListFilter):
    title = "conflict"
    parameter_name = "conflict"

    def lookups(self, request, model_admin):
        return [("yes", "in conflict"), ("no", "no conflict")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(conflict="")
        if self.value() == "no":
            return queryset.filter(conflict="")
        return queryset


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    """Links typed by hand and inferred ones, with their evidence; confirm or reject inferred links
    (a rejected link stays, so inference never proposes it again: collector/inventory/topology.py)."""
    list_display = ("__str__", "state", "source", "confidence", "conflict_short", "decided_by", "note")
    list_filter = ("state", "source", ConflictFilter)
    search_fields = ("a_port__name", "a_port__switch__name", "b_port__name", "b_port__switch__name", "b_host__name")
    autocomplete_fields = ("a_port", "b_port", "b_host")
    list_select_related = ("a_port__switch", "b_port__switch", "b_host")
    readonly_fields = ("confidence", "evidence_text", "conflict", "inferred_at", "decided_by", "decided_at")
    exclude = ("evidence",)
    actions = ["confirm", "reject"]

    @admin.display(description="conflict")
    def conflict_short(self, obj: Link) -> str:
        return (obj.conflict[:120] + "...") if len(obj.conflict) > 120 else obj.conflict

    @admin.display(description="evidence")
    def evidence_text(self, obj: Link) -> str:
        return "\n".join(f"{e.get('kind')} ({e.get('side')}, weight {e.get('weight')}): {e.get('says')}"
                         for e in obj.evidence or []) or "-"

    def _decide(self, request, queryset, state: str) -> None:
        for link in queryset.filter(b_port__isnull=False):
            topology.decide(link.id, state, request.user.get_username())
        topology.infer_links()
        self.message_user(request, f"{queryset.count()} link(s) {state}; inference ran again")

    @admin.action(description="Confirm the selected links (kept whatever later evidence says)")
    def confirm(self, request, queryset):
        self._decide(request, queryset, "confirmed")

    @admin.action(description="Reject the selected links (never proposed again)")
    def reject(self, request, queryset):
        self._decide(request, queryset, "rejected")


@admin.register(LinkEvidence)
class LinkEvidenceAdmin(admin.ModelAdmin):
    """What the agents said about their neighbours, as said, and what it was matched to (read-only:
    discovery and inference write it)."""
    list_display = ("switch", "port", "kind", "says", "resolution", "seen_at")
    list_filter = ("kind", "switch", ("far_switch", admin.EmptyFieldListFilter))
    search_fields = ("says", "resolution", "switch__name", "port__name")
    list_select_related = ("switch", "port")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
