"""Notes posted by users (the form on switch and port pages) and through the JSON API: checked
here, recorded through record_event as kind "note"."""
from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from collector.events.models import MESSAGE_MAX, Event
from collector.events.record import EventError, record_event
from collector.inventory.models import Switch
from collector.inventory.ports import PortLookupError, find_port

FUTURE_SLACK_S = 300        # a note may be dated at most this far ahead (clocks differ), never more


def post(text: str, *, switch: str = "", port: str = "", at: datetime | None = None, user_id: int | None,
         source: str = "user") -> Event:
    """A note on a switch, one of its ports, or (neither) the whole network. EventError naming
    the field: unknown switch or port (with the candidates), empty or too long text, a time in
    the future."""
    text = (text or "").strip()
    if not text:
        raise EventError("a note needs text")
    if len(text) > MESSAGE_MAX:
        raise EventError(f"a note is at most {MESSAGE_MAX} characters (this one has {len(text)})")
    now = timezone.now()
    if at is not None and (at - now).total_seconds() > FUTURE_SLACK_S:
        raise EventError(f"a note's time {at.isoformat()} is in the future")
    switch_id = port_id = None
    if switch:
        sw = Switch.objects.filter(name=switch).first()
        if sw is None:
            raise EventError(f"no switch named {switch!r}")
        switch_id = sw.id
        if port:
            try:
                port_id = find_port(sw, port).id
            except PortLookupError as exc:
                raise EventError(str(exc)) from None
    elif port:
        raise EventError("a port is named on its switch: give switch= too")
    return record_event("note", at=at or now, switch_id=switch_id, port_id=port_id, message=text, source=source,
                        user_id=user_id)
