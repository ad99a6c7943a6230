"""Rollup and retention planning: what to compute or drop next, as pure functions of the
watermarks, the clock and the retention settings (collector/archive/rollup.py runs the plans).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from collector.archive.tiers import CONSUMER, TIERS, ceil_time, floor_time


@dataclass(frozen=True)
class Step:
    """Compute tier buckets in [lo, hi) (all series, or one switch's) and, if forward, advance."""
    tier: str
    lo: datetime
    hi: datetime
    switch_id: int | None = None

    @property
    def forward(self) -> bool:
        return self.switch_id is None


def plan_forward(done: Mapping[str, datetime | None], horizon: datetime) -> list[Step]:
    """The next forward step of each tier, in dependency order (a tier may use its source's step).

    done: watermark per tier (None: not initialised); horizon: raw samples before it are
    considered complete (database now - lag).
    """
    steps: list[Step] = []
    reached: dict[str, datetime | None] = dict(done)
    for tier in TIERS:
        lo = reached.get(tier.name)
        if lo is None:
            continue
        limit = horizon if tier.source is None else reached.get(tier.source)
        if limit is None:
            continue
        hi = min(floor_time(limit, tier.seconds), lo + tier.step)
        # a step always ends on a bucket boundary (lo + step may not, for the 1d tier)
        hi = floor_time(hi, tier.seconds)
        if hi > lo:
            steps.append(Step(tier.name, lo, hi))
            reached[tier.name] = hi
    return steps


def coalesce(starts: Iterable[datetime], seconds: int) -> list[tuple[datetime, datetime]]:
    """Bucket starts -> sorted disjoint [lo, hi) ranges of consecutive buckets."""
    width = timedelta(seconds=seconds)
    ranges: list[tuple[datetime, datetime]] = []
    for b in sorted(set(starts)):
        if ranges and ranges[-1][1] == b:
            ranges[-1] = (ranges[-1][0], b + width)
        else:
            ranges.append((b, b + width))
    return ranges


def cutoffs(now: datetime, days: Mapping[str, int]) -> dict[str, datetime | None]:
    """Oldest time each of RETAINED still fully holds (None: kept forever)."""
    return {name: (now - timedelta(days=d) if d else None) for name, d in days.items()}


def plan_invalidations(late: Iterable[tuple[int, datetime]], done: Mapping[str, datetime | None],
                       cut: Mapping[str, datetime | None]) -> list[Step]:
    """Recompute steps for late samples logged as (switch_id, 1-minute bucket), tier by tier.

    A bucket is recomputed only if the tier has already passed it (else the forward pass will
    compute it) and the data it is computed from is still fully retained (else recomputing
    would replace a complete bucket by a partial one).
    """
    by_switch: dict[int, set[datetime]] = defaultdict(set)
    for switch_id, minute in late:
        by_switch[switch_id].add(minute)
    steps: list[Step] = []
    for tier in TIERS:
        wm = done.get(tier.name)
        if wm is None:
            continue
        source_cut = cut.get("raw" if tier.source is None else tier.source)
        for switch_id in sorted(by_switch):
            buckets = {floor_time(m, tier.seconds) for m in by_switch[switch_id]}
            keep = [b for b in buckets if b < wm and (source_cut is None or b >= source_cut)]
            steps += [Step(tier.name, lo, hi, switch_id) for lo, hi in coalesce(keep, tier.seconds)]
    return steps


def plan_retention(now: datetime, days: Mapping[str, int],
                   done: Mapping[str, datetime | None]) -> dict[str, datetime]:
    """older_than for drop_chunks per retained table; never drops what is not yet rolled up.

    Raw samples are kept until the 1m tier has them, each tier until the next tier has it.
    Tables with 0 days (keep forever) or nothing rolled up yet are left alone.
    """
    consumer = {"raw": TIERS[0].name, **{name: tier.name for name, tier in CONSUMER.items()}}
    plan: dict[str, datetime] = {}
    for name, cutoff in cutoffs(now, days).items():
        if cutoff is None:
            continue
        if name in consumer:
            consumed = done.get(consumer[name])
            if consumed is None:
                continue
            cutoff = min(cutoff, consumed)
        plan[name] = cutoff
    return plan


def plan_recompute(lo: datetime, hi: datetime, done: Mapping[str, datetime | None],
                   cut: Mapping[str, datetime | None], switch_id: int | None = None) -> list[Step]:
    """Steps recomputing every tier's buckets overlapping [lo, hi) that the tier has passed.

    Buckets whose source data is no longer fully retained are left as they are.
    """
    steps: list[Step] = []
    for tier in TIERS:
        wm = done.get(tier.name)
        if wm is None:
            continue
        start = floor_time(lo, tier.seconds)
        source_cut = cut.get("raw" if tier.source is None else tier.source)
        if source_cut is not None:
            start = max(start, ceil_time(source_cut, tier.seconds))
        end = min(ceil_time(hi, tier.seconds), wm)
        while start < end:
            stop = min(end, floor_time(start + tier.step, tier.seconds))
            if stop <= start:
                stop = start + tier.width
            steps.append(Step(tier.name, start, stop, switch_id))
            start = stop
    return steps
