"""What this process's last plots read, to plan the next plot's buckets before its series are read.

A plot needs two statements in turn: its series with the database clock and the rollup watermarks
(queries.series_and_clock: they choose the tier and the segments), then its buckets. Planned from
what this process read last, the buckets statement can go in the same round trip as the series
statement (service.resolve), and its result is the plot's own when `same_buckets` says so: the same
resolution, range, series and switches, and watermarks no later than the database's. The
watermarks move every minute, but a plan made with older ones reads the same buckets: each of its
segments ends at or before the watermark of the tier it reads, where that tier's rows are final,
and the longer tail it reads from the finer tiers and raw samples sums to the same values (the
rollup's sums; tests/webapp/traffic/test_live_edge.py). Otherwise the buckets are read again, as
before: a wrong guess costs the database one statement, never a wrong plot. A one-port plot: one
round trip instead of two (docs/benchmarks.md, 3a).

Per process; a lock keeps the remembered series whole under threads (a race between a guess and
a newer read only makes the guess miss: it is checked before use).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from collector.reader.catalog import SeriesInfo

SERIES_KEPT = 10_000        # series remembered (the most recently plotted); ~1 KB each
# A clock read longer ago plans nothing: the extra tail of an older plan stays a few minutes of the
# finer tiers, which retention keeps for days.
CLOCK_KEPT = timedelta(minutes=5)

_series: OrderedDict[int, SeriesInfo] = OrderedDict()
_lock = threading.Lock()
_clock: tuple[datetime, float, dict[str, datetime | None]] | None = None     # db now, monotonic then, watermarks


def remember(series: Sequence[SeriesInfo], now: datetime, done: dict[str, datetime | None]) -> None:
    """What a plot's series statement read."""
    global _clock
    _clock = (now, time.monotonic(), dict(done))
    with _lock:
        for s in series:
            _series[s.id] = s
            _series.move_to_end(s.id)
        while len(_series) > SERIES_KEPT:
            _series.popitem(last=False)


def series(ids: Sequence[int]) -> list[SeriesInfo] | None:
    """The series as last read, in the order asked; None unless every one of them was."""
    with _lock:
        found = [_series.get(i) for i in ids]
    return None if not found or any(s is None for s in found) else found     # type: ignore[return-value]


def clock() -> tuple[datetime, dict[str, datetime | None]] | None:
    """The database clock now, as last read plus the time since, and the watermarks last read."""
    if _clock is None:
        return None
    now, then, done = _clock
    since = timedelta(seconds=time.monotonic() - then)
    return None if since > CLOCK_KEPT else (now + since, dict(done))


class Planned(Protocol):
    """What same_buckets compares of two plans (service.Plan)."""
    res: str
    start: datetime
    end: datetime
    series: list[SeriesInfo]
    done: dict[str, datetime | None]


def same_buckets(guess: Planned, actual: Planned) -> bool:
    """True if the buckets read for plan `guess` are those of plan `actual`: same resolution,
    range, series and switches, the same tiers begun, and none of guess's watermarks past the
    database's (they can move back only with a restore)."""
    if (guess.res, guess.start, guess.end) != (actual.res, actual.start, actual.end) or actual.res == "raw":
        return False
    if [(s.id, s.switch_id) for s in guess.series] != [(s.id, s.switch_id) for s in actual.series]:
        return False
    for tier, mark in actual.done.items():
        was = guess.done.get(tier)
        if (was is None) != (mark is None) or (was is not None and mark is not None and was > mark):
            return False
    return True


def forget() -> None:
    """Tests: start from nothing read."""
    global _clock
    _clock = None
    with _lock:
        _series.clear()
