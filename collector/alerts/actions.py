"""What operators do to alerts from the page or the admin: acknowledge, mute (each with an expiry),
retire a rule (their "delete"), and the "send test" of a destination. The page app calls these; it
never writes the tables."""
from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from collector.alerts import machine, notify
from collector.alerts.models import Destination, Rule, State
from collector.alerts.rules import AlertError

MAX_HOURS = 24 * 30


def _expiry(hours: str) -> timedelta:
    text = str(hours or "").strip()
    try:
        value = float(text)
    except ValueError:
        raise AlertError(f"hours {text!r} is not a number: give 0.1 to {MAX_HOURS} hours") from None
    if not 0.1 <= value <= MAX_HOURS:
        raise AlertError(f"an acknowledgement or a mute lasts 0.1 to {MAX_HOURS} hours (30 days), not {text}")
    return timedelta(hours=value)


def acknowledge(state: State, user, hours: str, note: str = "") -> State:
    """A firing or pending alert acknowledged until the expiry (or until it resolves)."""
    if state.state not in ("firing", "pending"):
        raise AlertError(f"only a firing or pending alert is acknowledged; this one is {state.state}")
    state.acked_by, state.ack_until, state.ack_note = user, timezone.now() + _expiry(hours), note.strip()[:300]
    state.save(update_fields=["acked_by", "ack_until", "ack_note"])
    return state


def unacknowledge(state: State) -> None:
    state.acked_by, state.ack_until, state.ack_note = None, None, ""
    state.save(update_fields=["acked_by", "ack_until", "ack_note"])


def mute(target: State | Rule, hours: str) -> None:
    """No notification until the expiry ("0" or "" unmutes): of one object (a State) or of every
    object of a rule (a Rule). The page's forms and the admin's actions both come here."""
    target.muted_until = None if str(hours).strip() in ("", "0") else timezone.now() + _expiry(hours)
    target.save(update_fields=["muted_until"])


def is_muted(rule: Rule, state: State, now: datetime) -> bool:
    """The object's notifications are muted now: its own mute or its rule's is in force."""
    return machine.active_until(rule.muted_until, now) or machine.active_until(state.muted_until, now)


def retire(rule: Rule) -> None:
    """What deleting a rule does, on the page and in the admin: the rule stops being evaluated and
    leaves the rules list, its name is free for a new rule; its states, transitions and notifications
    stay (history is evidence, listed under the name the rule had at the time). It lets go of its
    saved group, which a live rule protects from deletion: a retired one must not keep it forever."""
    if rule.retired_at is None:
        rule.retired_at, rule.enabled, rule.group = timezone.now(), False, None
        rule.save(update_fields=["retired_at", "enabled", "group"])


def send_test(destination: Destination, user) -> int:
    return notify.enqueue_test(destination, getattr(user, "username", "") or "someone")
