"""The admin of alerts: rules and destinations through the same checks as the page (rules.py), the
states, history and outbox read-only (they are written by the evaluation and the sender). Deleting a
rule retires it, as on the page (actions.retire); history and outbox rows are never deleted here."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpResponseRedirect
from django.urls import reverse

from collector.alerts import actions, notify, rules
from collector.alerts.models import Destination, EvaluationRun, Notification, Override, Rule, State, Transition


class RuleForm(forms.ModelForm):
    object = forms.CharField(required=False, help_text="scope 'one object': port:ID, vp:ID, vc:ID, switch:NAME, "
                                                       "host:NAME")

    class Meta:
        model = Rule
        fields = ["name", "kind", "enabled", "scope", "object", "switch", "poller_group", "group", "pattern", "entity",
                  "direction", "unit", "comparison", "threshold", "recovery", "mode", "window_minutes", "count",
                  "destinations", "muted_until"]

    def clean(self):
        super().clean()
        data = self.cleaned_data            # what ModelForm.clean returns
        form = {k: "" if data.get(k) is None else str(getattr(data.get(k), "pk", data.get(k))) for k in rules.FIELDS}
        if self.instance.pk and not form["object"]:
            form["object"] = next((f"{k}:{getattr(self.instance, k + '_id')}" for k in ("port", "vp", "vc", "switch",
                                                                                       "host")
                                   if getattr(self.instance, k + "_id")), "")
        try:
            self.checked = rules.check(form, Rule.objects.filter(pk=self.instance.pk).first())
        except rules.AlertError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data

    def save(self, commit=True):
        rule = self.checked
        rule.enabled, rule.muted_until = self.cleaned_data["enabled"], self.cleaned_data["muted_until"]
        self.instance = rule
        return super().save(commit)


class OverrideInline(admin.TabularInline):
    model = Override
    extra = 0


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    form = RuleForm
    list_display = ("name", "kind", "scope", "threshold", "recovery", "window_minutes", "enabled", "muted_until",
                    "retired_at")
    list_filter = ("kind", "enabled", ("retired_at", admin.EmptyFieldListFilter))
    inlines = [OverrideInline]

    def has_change_permission(self, request, obj=None) -> bool:
        return (obj is None or obj.retired_at is None) and super().has_change_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        """The confirmation lists the rules alone and asks for no permission on their history: they are
        retired, nothing is deleted."""
        return [f"{r} (retired: its states, history and notifications are kept)" for r in objs], {}, set(), []

    def get_actions(self, request):
        found = super().get_actions(request)
        delete = found.get("delete_selected")
        if delete is not None:
            func, name, _ = delete
            found["delete_selected"] = (func, name, "Delete (retire, history kept) the selected rules")
        return found

    def delete_model(self, request, obj: Rule) -> None:
        actions.retire(obj)

    def response_delete(self, request, obj_display, obj_id):
        self.message_user(request, f"The rule {obj_display} is retired: its history and notifications are kept.")
        return HttpResponseRedirect(reverse("admin:alerts_rule_changelist", current_app=self.admin_site.name))

    def delete_queryset(self, request, queryset) -> None:
        for rule in queryset:
            actions.retire(rule)


class DestinationForm(forms.ModelForm):
    url = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False),
                          help_text="an apprise URL; left empty, the stored one is kept")

    class Meta:
        model = Destination
        fields = ["name", "url", "enabled"]

    def clean(self):
        super().clean()
        data = self.cleaned_data            # what ModelForm.clean returns
        url = data.get("url") or (str(self.instance.url) if self.instance.pk else "")
        try:
            notify.check_url(url)
        except rules.AlertError as exc:
            raise forms.ValidationError(str(exc)) from None
        data["url"] = url
        return data


@admin.register(Destination)
class DestinationAdmin(admin.ModelAdmin):
    form = DestinationForm
    list_display = ("name", "shown_url", "enabled", "last_ok_at", "failing_since")
    readonly_fields = ("last_ok_at", "failing_since", "last_error")

    @admin.display(description="URL (redacted)")
    def shown_url(self, obj: Destination) -> str:
        return notify.redacted(str(obj.url))


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(State)
class StateAdmin(ReadOnly):
    list_display = ("rule", "label", "state", "since", "value", "threshold", "ack_until", "muted_until")
    list_filter = ("state", "rule")


class Kept(ReadOnly):
    """History is evidence: not even the admin deletes it."""

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Transition)
class TransitionAdmin(Kept):
    list_display = ("at", "rule_name", "message", "from_state", "to_state", "value", "threshold")


@admin.register(Notification)
class NotificationAdmin(Kept):
    list_display = ("created", "destination_name", "kind", "title", "status", "attempts", "next_try_at", "last_error")
    list_filter = ("status", "kind")


@admin.register(EvaluationRun)
class EvaluationRunAdmin(ReadOnly):
    list_display = ("started", "duration_ms", "rules", "watched", "transitions", "skipped")
