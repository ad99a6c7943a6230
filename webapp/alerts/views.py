"""The alerts page (states, history, the evaluation's cost, failing destinations, rules,
destinations and the outbox) and the operators' forms. Reads the collector's tables; every write
goes through collector/alerts (rules, actions), whose messages are shown as they are."""
from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.db.models import Avg, Count, Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from collector.alerts import actions, notify, rules
from collector.alerts.evaluate import plot_link
from collector.alerts.models import (
    COMPARISONS,
    DIRECTIONS,
    ENTITIES,
    KINDS,
    MODES,
    SCOPES,
    UNITS,
    Destination,
    EvaluationRun,
    Notification,
    Rule,
    State,
    Transition,
)
from collector.core.names import METRIC_WORD
from collector.groups.models import Group
from webapp.access import roles

HISTORY_ROWS = 100
OUTBOX_ROWS = 50


def _get(model, pk: int):
    found = model.objects.filter(pk=pk).first()
    if found is None:
        raise Http404(f"no {model._meta.verbose_name} {pk}")
    return found


def _live_rule(pk: int) -> Rule:
    """A rule that may be edited: a retired one is history only."""
    rule = _get(Rule, pk)
    if rule.retired_at is not None:
        raise Http404(f"rule {rule.name} is retired: its history is on the alerts page")
    return rule


def _cost() -> dict:
    hour = EvaluationRun.objects.filter(started__gte=timezone.now() - timedelta(hours=1))
    return {"last": EvaluationRun.objects.first(),
            "hour": hour.aggregate(n=Count("id"), avg=Avg("duration_ms"), max=Max("duration_ms"))}


def page(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    states = list(State.objects.exclude(state="ok").filter(rule__retired_at__isnull=True)
                  .select_related("rule", "acked_by").order_by("state", "-since")[:500])
    # What the template shows beside the rows' fields, set on the rows (the models do not declare these).
    for s in states:
        s.plot = plot_link(s.series_ids, s.since, s.rule.window_minutes) if s.series_ids else ""  # type: ignore[attr-defined]
        s.acked = s.ack_until is not None and s.ack_until > now  # type: ignore[attr-defined]
        s.muted = actions.is_muted(s.rule, s, now)  # type: ignore[attr-defined]
    destinations = list(Destination.objects.order_by("name"))
    for d in destinations:
        d.shown_url = notify.redacted(str(d.url))  # type: ignore[attr-defined]
        d.waiting = d.notifications.filter(status__in=("queued", "retrying")).count()  # type: ignore[attr-defined]
    return render(request, "alerts/page.html", {
        "states": states, "now": now, "cost": _cost(), "destinations": destinations,
        "failing": [d for d in destinations if d.failing_since],
        "history": Transition.objects.select_related("rule")[:HISTORY_ROWS],
        "rules": Rule.objects.filter(retired_at__isnull=True).prefetch_related("destinations", "overrides")
                             .select_related("group"),
        "outbox": Notification.objects.all()[:OUTBOX_ROWS],
        "can_ack": request.user.has_perm(roles.ACK_ALERTS), "can_edit": request.user.has_perm(roles.EDIT_ALERTS),
    })


def _back(request: HttpRequest, text: str, error: bool = False) -> HttpResponse:
    (messages.error if error else messages.success)(request, text)
    return HttpResponseRedirect(reverse("alerts:page"))


def _mute(request: HttpRequest, target: State | Rule, name: str) -> HttpResponse:
    """The mute form of an object (a State) or a rule: hours from the form, 0 unmutes."""
    actions.mute(target, request.POST.get("hours", ""))
    until = target.muted_until
    return _back(request, f"{name}: " + (f"muted until {until:%Y-%m-%d %H:%M} UTC" if until else "unmuted"))


@roles.require(roles.ACK_ALERTS, "acknowledging an alert needs the operator role")
@require_POST
def ack(request: HttpRequest, state_id: int) -> HttpResponse:
    state = _get(State, state_id)
    try:
        if request.POST.get("action") == "unack":
            actions.unacknowledge(state)
            return _back(request, f"{state.label}: acknowledgement removed")
        if request.POST.get("action") == "mute":
            return _mute(request, state, state.label)
        actions.acknowledge(state, request.user, request.POST.get("hours", ""), request.POST.get("note", ""))
    except rules.AlertError as exc:
        return _back(request, str(exc), error=True)
    return _back(request, f"{state.label}: acknowledged until {state.ack_until:%Y-%m-%d %H:%M} UTC")


def _rule_form(request: HttpRequest, form: dict, rule: Rule | None, error: str = "", status: int = 200,
               chosen: list[int] | None = None) -> HttpResponse:
    return render(request, "alerts/rule_form.html", {
        "form": form, "rule": rule, "error": error, "kinds": KINDS, "scopes": SCOPES, "entities": ENTITIES,
        "directions": DIRECTIONS, "units": UNITS, "comparisons": COMPARISONS, "modes": MODES,
        "groups": Group.objects.order_by("name"), "destinations": Destination.objects.order_by("name"),
        "chosen": chosen or [], "max_window": rules.MAX_WINDOW_MINUTES,
        "metric_names": ["traffic", *sorted(METRIC_WORD)]}, status=status)


def _form_of(rule: Rule) -> dict:
    obj = next((f"{k}:{getattr(rule, k + '_id')}" for k in ("port", "vp", "vc", "host")
                if getattr(rule, k + "_id")), "")
    if rule.scope == "object" and rule.switch is not None and not obj:
        obj = f"switch:{rule.switch.name}"
    form = {k: "" if getattr(rule, k, None) is None else str(getattr(rule, k)) for k in rules.FIELDS}
    form.update(object=obj, switch=rule.switch.name if rule.switch is not None else "", group=str(rule.group_id or ""))
    return form


@roles.require(roles.EDIT_ALERTS, "editing alert rules needs the operator role")
def rule_edit(request: HttpRequest, rule_id: int | None = None) -> HttpResponse:
    rule = _live_rule(rule_id) if rule_id else None
    if request.method != "POST":
        form = _form_of(rule) if rule else {"kind": "rate", "scope": "switch", "window_minutes": "5", "count": "3",
                                            "direction": "both", "metric": "traffic", "unit": "pct",
                                            "comparison": "above", "mode": "avg",
                                            "entity": "port"}
        chosen = list(rule.destinations.values_list("id", flat=True)) if rule else []
        return _rule_form(request, form, rule, chosen=chosen)
    form = {k: request.POST.get(k, "") for k in rules.FIELDS}
    chosen = [int(x) for x in request.POST.getlist("destinations") if x.isdigit()]
    try:
        saved = rules.save(form, chosen, rule, request.user)
    except rules.AlertError as exc:
        return _rule_form(request, form, rule, str(exc), 400, chosen)
    return _back(request, f"rule {saved.name} saved")


@roles.require(roles.EDIT_ALERTS, "changing alert rules needs the operator role")
@require_POST
def rule_action(request: HttpRequest, rule_id: int) -> HttpResponse:
    rule = _live_rule(rule_id)
    action = request.POST.get("action")
    try:
        if action == "delete":
            actions.retire(rule)
            return _back(request, f"rule {rule.name} retired: its history and notifications are kept below")
        if action == "mute":
            return _mute(request, rule, f"rule {rule.name}")
        if action == "override":
            rules.set_override(rule, request.POST.get("object", ""), request.POST.get("threshold", ""),
                               request.POST.get("recovery", ""))
            return _back(request, f"rule {rule.name}: override saved")
    except rules.AlertError as exc:
        return _back(request, str(exc), error=True)
    return _back(request, f"unknown action {action!r}", error=True)


@roles.require(roles.EDIT_DESTINATIONS, "editing notification destinations needs the operator role")
@require_POST
def destination_save(request: HttpRequest, destination_id: int | None = None) -> HttpResponse:
    dest = _get(Destination, destination_id) if destination_id else None
    try:
        saved = rules.save_destination(request.POST.get("name", ""), request.POST.get("url", ""), dest)
    except rules.AlertError as exc:
        return _back(request, str(exc), error=True)
    return _back(request, f"destination {saved.name} saved")


@roles.require(roles.EDIT_DESTINATIONS, "sending a test notification needs the operator role")
@require_POST
def destination_action(request: HttpRequest, destination_id: int) -> HttpResponse:
    dest = _get(Destination, destination_id)
    if request.POST.get("action") == "delete":
        dest.delete()
        return _back(request, f"destination {dest.name} deleted")
    actions.send_test(dest, request.user)
    return _back(request, f"test notification to {dest.name} queued: its result shows in the outbox below")
