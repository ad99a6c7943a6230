"""Events from polls: the reboots, discontinuities and wraps of the rows ingest stored.

The poller (runner.poll_once) hands over what ingest kept (archive/ingest.take_flagged) after
each poll; rowfacts says which facts a row holds. Recording is idempotent (the same row replayed
is the same event), so a retry never doubles a marker.

Wraps are routine (a busy Counter32 wraps every few minutes and its delta stays exact): a switch
gets at most one wrap event per WRAP_EVERY, or a large switch would add one row per poll forever
(events are kept past the archive's retention). Reboots and discontinuities are always recorded.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from collector.events.models import Event
from collector.events.record import record_event
from collector.events.rowfacts import FlaggedRow, facts

WRAP_EVERY = timedelta(hours=1)
_last_wrap: dict[int, datetime] = {}


def _wrap_due(switch_id: int, when: datetime) -> bool:
    last = _last_wrap.get(switch_id)
    if last is None:
        last = (Event.objects.filter(kind="wrap", switch_id=switch_id, at__lte=when).order_by("-at")
                .values_list("at", flat=True).first())
    if last is not None and last <= when < last + WRAP_EVERY:
        _last_wrap[switch_id] = last
        return False
    _last_wrap[switch_id] = when
    return True


def record_rows(switch_id: int, rows: list[tuple[float, int | None, list[int], list[int]]]) -> int:
    count = 0
    for at, uptime_cs, series_ids, flags in rows:
        when = datetime.fromtimestamp(at, UTC)
        for fact in facts(FlaggedRow(switch_id, at, uptime_cs, series_ids, flags)):
            if fact.kind == "wrap" and not _wrap_due(switch_id, when):
                continue
            record_event(fact.kind, at=when, switch_id=switch_id, source="poll", message=fact.message, data=fact.data)
            count += 1
    return count


def forget() -> None:
    """Drop the remembered wrap times (tests empty the database under this process)."""
    _last_wrap.clear()
