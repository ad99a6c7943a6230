"""The forms of the onboarding pages: add a switch by address, sweep a range. Secrets typed here go
encrypted onto the job's row for the worker and are erased when the job ends (jobs.py)."""
from __future__ import annotations

from typing import cast

from django import forms
from django.conf import settings

from collector.core.profiles import profile_names
from collector.core.snmp_types import AUTH_PROTOCOLS, PRIV_PROTOCOLS, SNMP_VERSIONS
from collector.inventory.models import CredentialSet

USE_SETS = "sets"


class AddSwitchForm(forms.Form):
    address = forms.CharField(max_length=255, help_text="IP address or host name of the agent",
                              widget=forms.TextInput(attrs={"placeholder": "192.0.2.10"}))
    name = forms.CharField(max_length=100, required=False, help_text="empty: the agent's sysName",
                           widget=forms.TextInput(attrs={"placeholder": "its sysName"}))
    port = forms.IntegerField(min_value=1, max_value=65535, initial=161)
    credentials = forms.ChoiceField(initial=USE_SETS, help_text="site credential sets are tried in their order")
    snmp_version = forms.ChoiceField(choices=list(SNMP_VERSIONS.items()), initial="2c", required=False)
    community = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False))
    v3_user = forms.CharField(max_length=64, required=False)
    auth_proto = forms.ChoiceField(choices=[("", "none"), *AUTH_PROTOCOLS.items()], required=False)
    auth_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False))
    priv_proto = forms.ChoiceField(choices=[("", "none"), *PRIV_PROTOCOLS.items()], required=False)
    priv_key = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False))
    poller_group = forms.SlugField(max_length=50, initial="default")
    interval = forms.IntegerField(
        min_value=1, max_value=3600, required=False,
        help_text=f"seconds between polls (empty: {settings.CELLAR_DEFAULT_POLL_INTERVAL})",
        widget=forms.NumberInput(attrs={"placeholder": settings.CELLAR_DEFAULT_POLL_INTERVAL}))
    profile = forms.ChoiceField(initial="auto")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        sets = list(CredentialSet.objects.values_list("id", "name", "snmp_version"))
        # self.fields holds the form's own copies of the fields declared above (both ChoiceFields).
        cast(forms.ChoiceField, self.fields["credentials"]).choices = (
            [(USE_SETS, f"every site credential set, in order ({len(sets)})")]
            + [(str(i), f"only set {name} (SNMPv{v})") for i, name, v in sets] + [("typed", "these credentials:")])
        cast(forms.ChoiceField, self.fields["profile"]).choices = [(p, p) for p in profile_names()]

    def clean(self) -> dict:
        super().clean()
        data = self.cleaned_data            # what Form.clean returns
        if data.get("credentials") != "typed":
            if not CredentialSet.objects.exists():
                raise forms.ValidationError("no site credential sets are defined: type the credentials, or ask an "
                                            "admin to add sets (admin site, or manage.py credentials add)")
            return data
        if data.get("snmp_version") == "3":
            if not data.get("v3_user"):
                raise forms.ValidationError("SNMPv3 needs a user")
            if data.get("auth_proto") and len(data.get("auth_key") or "") < 8:
                raise forms.ValidationError("the authentication key must be at least 8 characters (RFC 3414)")
            if data.get("priv_proto") and (not data.get("auth_proto") or len(data.get("priv_key") or "") < 8):
                raise forms.ValidationError("privacy needs authentication and a key of at least 8 characters")
        elif not data.get("community"):
            raise forms.ValidationError("type the community, or choose the site credential sets")
        return data

    def job_params(self) -> dict:
        d = self.cleaned_data
        chosen = d["credentials"]
        return {"address": d["address"].strip(), "name": d["name"].strip(), "port": d["port"] or 161,
                "interval": d.get("interval") or 0, "profile": d["profile"],
                "credential_sets": [int(chosen)] if chosen.isdigit() else []}

    def typed_credentials(self) -> dict | None:
        d = self.cleaned_data
        if d["credentials"] != "typed":
            return None
        if d["snmp_version"] == "3":
            return {"snmp_version": "3", "v3_user": d["v3_user"], "auth_proto": d["auth_proto"],
                    "auth_key": d["auth_key"], "priv_proto": d["priv_proto"], "priv_key": d["priv_key"]}
        return {"snmp_version": d["snmp_version"], "community": d["community"]}


class SweepForm(forms.Form):
    network = forms.CharField(max_length=64, help_text="e.g. 192.0.2.0/24, inside CELLAR_SWEEP_NETWORKS")
    poller_group = forms.SlugField(max_length=50, initial="default")
