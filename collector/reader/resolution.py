"""Which resolution a plot reads, and from which tables. Pure functions.

A plot of [start, end) reads the finest resolution (raw, 1m, 15m, 1h, 1d) that gives at most
CELLAR_PLOT_MAX_POINTS points per series and whose data still covers `start` (retention).
Rollup tables are final up to their watermark; the rest of the range (the "tail", at most a few
buckets behind the clock) is aggregated on the fly from the finer tiers and, for the last
minutes, from raw samples, with the same sums. So a plot is never missing its newest data and
its totals are exactly the archived deltas.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from collector.archive.tiers import TIER, TIERS, ceil_time, floor_time

RESOLUTIONS = ("raw", "1m", "15m", "1h", "1d")
CHOICES = ("auto", *RESOLUTIONS)
RES_LABEL = {"raw": "raw samples", "1m": "1-minute averages", "15m": "15-minute averages",
             "1h": "1-hour averages", "1d": "1-day averages"}
P95_MAX_POINTS = 20_000     # the 95th percentile is taken over the finest resolution below this


def seconds(res: str, poll_interval_s: float) -> float:
    return float(poll_interval_s) if res == "raw" else float(TIER[res].seconds)


def available(res: str, start: datetime, cut: Mapping[str, datetime | None]) -> bool:
    """True if the retention of `res` still holds data back to `start`."""
    c = cut.get(res)
    return c is None or start >= c


def points(res: str, start: datetime, end: datetime, poll_interval_s: float) -> int:
    return int((end - start).total_seconds() // seconds(res, poll_interval_s)) + 1


def choose(start: datetime, end: datetime, poll_interval_s: float, cut: Mapping[str, datetime | None],
           max_points: int) -> str:
    """The finest available resolution with at most max_points points per series."""
    for res in RESOLUTIONS:
        if available(res, start, cut) and points(res, start, end, poll_interval_s) <= max_points:
            return res
    return RESOLUTIONS[-1]


def finest_tier(start: datetime, cut: Mapping[str, datetime | None]) -> str:
    """The finest rollup tier still holding `start`: what a sum over several switches reads when raw
    samples would do (their polls fall at different times); by default raw outlives the 1m tier."""
    return next((r for r in RESOLUTIONS[1:] if available(r, start, cut)), RESOLUTIONS[-1])


def p95_basis(start: datetime, end: datetime, poll_interval_s: float, cut: Mapping[str, datetime | None]) -> str:
    return choose(start, end, poll_interval_s, cut, P95_MAX_POINTS)


def align(res: str, start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """Whole buckets: a bucket is drawn, exported and totalled entirely or not at all."""
    if res == "raw":
        return start, end
    width = TIER[res].seconds
    return floor_time(start, width), ceil_time(end, width)


Segment = tuple[str, datetime, datetime]   # (source: tier name or "raw", lo, hi)


def segments(res: str, start: datetime, end: datetime,
             done: Mapping[str, datetime | None]) -> tuple[Segment | None, list[Segment]]:
    """(main, tail): main reads tier `res` itself in [start, its watermark); the tail covers
    the rest of [start, end) from the finer tiers' materialized rows, then raw samples.

    start and end must be aligned to `res` (align()). Watermarks are monotone by construction
    (a tier is computed from the one below), so the tail segments are contiguous.
    """
    if res == "raw":
        return ("raw", start, end), []
    main = None
    cursor = start
    wm = done.get(res)
    if wm is not None and wm > start:
        hi = min(end, wm)
        main = (res, start, hi)
        cursor = hi
    tail: list[Segment] = []
    finer = [t.name for t in reversed(TIERS) if t.seconds < TIER[res].seconds]
    for source in finer:
        d = done.get(source)
        if d is None or cursor >= end:
            continue
        hi = min(end, d)
        if hi > cursor:
            tail.append((source, cursor, hi))
            cursor = hi
    if cursor < end:
        tail.append(("raw", cursor, end))
    return main, tail


RANGES: dict[str, timedelta] = {
    "1h": timedelta(hours=1), "3h": timedelta(hours=3), "24h": timedelta(hours=24),
    "7d": timedelta(days=7), "30d": timedelta(days=30), "1y": timedelta(days=365),
}
RANGE_CHOICES = (*RANGES, "all", "custom")
