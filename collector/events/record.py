"""THE way an event is recorded (polls, discovery, traps, alerts, notes all come here).

Idempotent: an event is the fact (kind, switch, port, VP, VC, host, at, message); recording the
same fact again (a poll replayed from the spool, a discovery run twice over the same change, an
alert evaluated twice) returns the row already stored. Distinct notes differ in time or text.
"""
from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from collector.events.models import KIND_NAMES, MESSAGE_MAX, SOURCE_NAMES, Event


class EventError(ValueError):
    """A refused event; str() says which field and what is accepted."""


def fact_key(kind: str, at: datetime, ids: tuple, message: str) -> str:
    text = json.dumps([kind, at.isoformat(), list(ids), message], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def record_event(kind: str, *, at: datetime | None = None, switch_id: int | None = None,
                 port_id: int | None = None, vp_id: int | None = None, vc_id: int | None = None,
                 host_id: int | None = None, message: str, source: str, data: dict | None = None,
                 user_id: int | None = None) -> Event:
    """Store one event (or return the identical one already stored). EventError for a kind or
    source not in models.KINDS/SOURCES, an empty or too long message, or a naive time."""
    if kind not in KIND_NAMES:
        raise EventError(f"unknown event kind {kind!r}; kinds: {', '.join(sorted(KIND_NAMES))}")
    if source not in SOURCE_NAMES:
        raise EventError(f"unknown event source {source!r}; sources: {', '.join(sorted(SOURCE_NAMES))}")
    message = (message or "").strip()
    if not message:
        raise EventError("an event needs a message")
    if len(message) > MESSAGE_MAX:
        raise EventError(f"a message is at most {MESSAGE_MAX} characters (this one has {len(message)})")
    if at is None:
        at = timezone.now()
    elif timezone.is_naive(at):
        raise EventError("an event's time needs a zone (UTC)")
    ids = (switch_id, port_id, vp_id, vc_id, host_id)
    key = fact_key(kind, at, ids, message)
    try:
        with transaction.atomic():
            return Event.objects.create(
                at=at, kind=kind, switch_id=switch_id, port_id=port_id, vp_id=vp_id, vc_id=vc_id, host_id=host_id,
                message=message, source=source, data=data or {}, actor_id=user_id, dedupe=key)
    except IntegrityError:
        found = Event.objects.filter(dedupe=key).first()
        if found is None:       # another constraint (a foreign key to a row just deleted): not ours
            raise
        return found
