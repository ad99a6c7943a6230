"""Events from polls: the reboots, discontinuities and wraps of the rows ingest stored.

The poller (runner.poll_once) hands over what ingest kept (archive/ingest.take_flagged) after
each poll; rowfacts says which facts a row holds. Recording is idempotent (the same row replayed
is the same event), so a retry never doubles a marker.
"""
from __future__ import annotations

from datetime import UTC, datetime

from collector.events.record import record_event
from collector.events.rowfacts import FlaggedRow, facts


def record_rows(switch_id: int, rows: list[tuple[float, int | None, list[int], list[int]]]) -> int:
    count = 0
    for at, uptime_cs, series_ids, flags in rows:
        when = datetime.fromtimestamp(at, UTC)
        for fact in facts(FlaggedRow(switch_id, at, uptime_cs, series_ids, flags)):
            record_event(fact.kind, at=when, switch_id=switch_id, source="poll", message=fact.message, data=fact.data)
            count += 1
    return count
