"""One evaluation of every enabled rule (the beat task cellar.evaluate_alerts, every
CELLAR_ALERTS_INTERVAL seconds): readings -> machine.step -> states, transitions, events, outbox.

Bounded: at most scopes.MAX_OBJECTS_PER_RULE objects per rule and MAX_OBJECTS_PER_RUN per run,
and rules are not started after `budget_s`; what the bounds leave out is written on the run
(EvaluationRun.skipped) and shown on the alerts page with the run's duration. Idempotent: an
overlapping run skips (PostgreSQL advisory lock), each rule is evaluated in one transaction, and
a state that does not change writes nothing. Objects that have always been ok have no row (ok is
the absence of a state): the table holds what alerted once, not the whole scope.
"""
from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from collector.alerts import actions, machine, notify, readings, scopes
from collector.alerts.models import EvaluationRun, Rule, State, Transition
from collector.alerts.readings import Observed
from collector.core.facts import quantity

log = logging.getLogger(__name__)
MAX_OBJECTS_PER_RUN = 50_000
LOCK_KEY = 0x63656C6C61720E   # "cellar" + 14: the advisory lock of evaluations
RUNS_KEPT = timedelta(days=1)


def plot_link(series_ids: list[int], at: datetime, window_minutes: int) -> str:
    """An absolute link to the plot of the object around the transition (the window and as much after)."""
    if not series_ids:
        return f"{settings.CELLAR_SITE_URL}/alerts/"
    span = timedelta(minutes=max(window_minutes, 15))
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    return (f"{settings.CELLAR_SITE_URL}/traffic/?s={','.join(map(str, series_ids))}"
            f"&start={(at - 2 * span):{fmt}}&end={(at + span):{fmt}}")


def _message(rule: Rule, state: State, obs: Observed, to: str, now: datetime) -> tuple[str, str]:
    word = {"firing": "FIRING", "resolved": "RESOLVED", "pending": "pending", "ok": "ok"}[to]
    title = f"[Cellar] {word}: {rule.name} on {obs.target.label}"
    lines = [f"Rule: {rule.name} ({rule.get_kind_display()})", f"Object: {obs.target.label}",
             f"State: {word} at {now:%Y-%m-%d %H:%M:%S} UTC"]
    if rule.kind == "rate":
        limit = obs.threshold if to != "resolved" else obs.recovery
        side = rule.comparison if to != "resolved" else ("below" if rule.comparison == "above" else "above")
        value = "unknown" if obs.value is None else quantity(obs.value, obs.unit)
        what = "the threshold" if to != "resolved" else "the recovery value"
        how = "average" if rule.mode == "avg" else "every sample"
        of = " of capacity" if obs.unit == "%" else ""
        lines.append(f"Value: {value}{of}, {side} {what} {quantity(limit, obs.unit)} "
                     f"({how} over {rule.window_minutes} min)")
    if obs.detail:
        lines.append(f"Detail: {obs.detail}")
    lines.append(f"Plot: {plot_link(state.series_ids, now, rule.window_minutes)}")
    lines.append(f"Alerts: {settings.CELLAR_SITE_URL}/alerts/")
    return title, "\n".join(lines)


def record_alert_event(rule: Rule, obs: Observed, to: str, message: str, now: datetime) -> None:
    """Firings and resolutions in the event log (collector/events), beside polls and traps."""
    from collector.events.record import record_event

    t = obs.target
    record_event("alert_firing" if to == "firing" else "alert_resolved", at=now, switch_id=t.switch_id,
                 port_id=t.port_id, vp_id=t.vp_id, vc_id=t.vc_id, host_id=t.host_id, message=message,
                 source="alert", data={"rule": rule.name, "rule_id": rule.id, "value": obs.value,
                                       "threshold": obs.threshold})


def _transition(rule: Rule, state: State, obs: Observed, frm: str, now: datetime) -> int:
    to = state.state
    title, body = _message(rule, state, obs, to, now)
    tr = Transition.objects.create(state=state, rule=rule, rule_name=rule.name, at=now, from_state=frm, to_state=to,
                                   value=obs.value, unit=obs.unit,
                                   threshold=obs.recovery if to == "resolved" else obs.threshold,
                                   message=title.removeprefix("[Cellar] "))
    if to not in ("firing", "resolved"):
        return 0
    record_alert_event(rule, obs, to, tr.message, now)
    muted = actions.is_muted(rule, state, now)
    if to == "firing":
        state.notified = not muted
    elif not state.notified:      # its firing was not sent (muted): neither is its resolution
        return 0
    else:
        state.notified = False
    if to == "firing" and muted:
        return 0
    notify.enqueue(tr, list(rule.destinations.filter(enabled=True)), to, title, body)
    return 1


@transaction.atomic
def evaluate_rule(rule: Rule, now: datetime, limit: int) -> tuple[int, int]:
    """(objects, transitions) of one rule; scopes.ScopeError when its scope cannot be read."""
    observed = readings.observe(rule, now, limit)
    states = {(s.object_kind, s.object_id): s for s in State.objects.select_for_update().filter(rule=rule)}
    hold = timedelta(minutes=rule.window_minutes) if rule.kind == "status" else timedelta(0)
    changes = 0
    seen = set()
    touched: list[State] = []
    for obs in observed:
        key = (obs.target.kind, obs.target.id)
        seen.add(key)
        state = states.get(key)
        if state is None:
            if obs.reading is None or not (obs.reading.onset or obs.reading.breach):
                continue                         # ok and always was: no row
            state = State(rule=rule, object_kind=key[0], object_id=key[1], label=obs.target.label[:300],
                          series_ids=obs.series_ids, state="ok", since=now, evaluated_at=now)
        step = machine.step(state.state, state.since, state.pending_since, obs.reading, now, hold)
        frm = state.state
        state.state, state.since, state.pending_since = step.state, step.since, step.pending_since
        state.value, state.threshold, state.unit, state.detail = obs.value, obs.threshold, obs.unit, obs.detail[:300]
        state.evaluated_at, state.label, state.series_ids = now, obs.target.label[:300], obs.series_ids
        if step.state in ("ok", "resolved") and state.ack_until is not None:
            state.acked_by, state.ack_until, state.ack_note = None, None, ""   # an ack ends with its alert
        if state.pk is None or step.changed:
            state.save()
        elif not (frm == "ok" and step.state == "ok"):      # an object back to ok long ago: nothing to write
            touched.append(state)
        if step.changed:
            changes += 1
            _transition(rule, state, obs, frm, now)
            state.save(update_fields=["notified"])
    for key, state in states.items():
        if key in seen or state.state == "ok":
            continue
        if state.state == "resolved":            # resolved -> ok is silent
            State.objects.filter(pk=state.pk).update(state="ok", since=now, evaluated_at=now)
            continue
        frm = state.state
        state.state = "resolved" if frm == "firing" else "ok"
        state.since, state.pending_since, state.evaluated_at = now, None, now
        state.detail = "no longer in the rule's scope"
        state.save()
        changes += 1
        gone = Observed(scopes.Target(state.object_kind, state.object_id, state.label), None, state.value,
                        state.threshold, state.threshold, state.detail, unit=state.unit)
        _transition(rule, state, gone, frm, now)
        state.save(update_fields=["notified"])
    if touched:
        State.objects.bulk_update(touched, ["state", "since", "pending_since", "value", "threshold", "unit", "detail",
                                             "evaluated_at", "label", "series_ids"])
    return len(observed), changes


def run(now: datetime | None = None, budget_s: float | None = None) -> dict:
    """Evaluate every enabled rule once (skipped when another evaluation holds the lock)."""
    budget_s = budget_s if budget_s is not None else 0.8 * settings.CELLAR_ALERTS_INTERVAL
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
        if not cur.fetchone()[0]:
            return {"skipped": "another evaluation is running"}
    try:
        return _run(now or timezone.now(), budget_s)
    finally:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])


def _run(now: datetime, budget_s: float) -> dict:
    started = time.monotonic()
    objects = changes = evaluated = 0
    skipped: list[str] = []
    rules = list(Rule.objects.filter(enabled=True, retired_at__isnull=True)
                 .select_related("port", "vp", "vc", "switch", "host").order_by("id"))
    for i, rule in enumerate(rules):
        if time.monotonic() - started > budget_s:
            skipped.append(f"{len(rules) - i} rules not evaluated: the run's {budget_s:.0f} s were spent")
            break
        left = MAX_OBJECTS_PER_RUN - objects
        if left <= 0:
            skipped.append(f"{len(rules) - i} rules not evaluated: {MAX_OBJECTS_PER_RUN:,} objects per run "
                           "(MAX_OBJECTS_PER_RUN) reached")
            break
        try:
            n, c = evaluate_rule(rule, now, min(scopes.MAX_OBJECTS_PER_RULE, left))
        except scopes.ScopeError as exc:
            skipped.append(f"rule {rule.name}: {exc}")
            continue
        objects, changes, evaluated = objects + n, changes + c, evaluated + 1
    sent = notify.dispatch_due(now)
    duration = (time.monotonic() - started) * 1000
    EvaluationRun.objects.create(started=now, duration_ms=duration, rules=evaluated, watched=objects,
                                 transitions=changes, skipped="\n".join(skipped)[:5000])
    EvaluationRun.objects.filter(started__lt=now - RUNS_KEPT).delete()
    if skipped:
        log.warning("alert evaluation: %s", "; ".join(skipped))
    return {"rules": evaluated, "objects": objects, "transitions": changes, "ms": round(duration, 1),
            "redispatched": sent, "skipped": len(skipped)}
