"""What this process's last plots read, to plan the next plot's buckets before its series are read.

A plot needs two statements in turn: its series with the database clock and the rollup watermarks
(queries.series_and_clock: they choose the tier and the segments), then its buckets. The watermarks
move once a minute and a series' switch and poll interval hardly ever, so a plan made from what
this process read last usually sends the very statement the real plan will send: service.resolve
sends it in the same round trip as the series statement and keeps its result only when the plan
made from what the series statement read asks for the same statement (queries.buckets_key: tier,
segments, series, switches); otherwise the buckets are read again, as before. So a guess that is
wrong costs the database one statement, never a wrong plot. A one-port plot: one round trip instead
of two (docs/benchmarks.md, 3a).

Per process, no locks: the guess is checked before use, so a race only makes it miss.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timedelta

from webapp.traffic.catalog import SeriesInfo

SERIES_KEPT = 10_000        # series remembered (the most recently plotted); ~1 KB each

_series: OrderedDict[int, SeriesInfo] = OrderedDict()
_clock: tuple[datetime, float, dict[str, datetime | None]] | None = None     # db now, monotonic then, watermarks


def remember(series: Sequence[SeriesInfo], now: datetime, done: dict[str, datetime | None]) -> None:
    """What a plot's series statement read."""
    global _clock
    _clock = (now, time.monotonic(), dict(done))
    for s in series:
        _series[s.id] = s
        _series.move_to_end(s.id)
    while len(_series) > SERIES_KEPT:
        _series.popitem(last=False)


def series(ids: Sequence[int]) -> list[SeriesInfo] | None:
    """The series as last read, in the order asked; None unless every one of them was."""
    found = [_series.get(i) for i in ids]
    return None if not found or any(s is None for s in found) else found     # type: ignore[return-value]


def clock() -> tuple[datetime, dict[str, datetime | None]] | None:
    """The database clock now, as last read plus the time since, and the watermarks last read."""
    if _clock is None:
        return None
    now, then, done = _clock
    return now + timedelta(seconds=time.monotonic() - then), dict(done)


def forget() -> None:
    """Tests: start from nothing read."""
    global _clock
    _clock = None
    _series.clear()
