"""Significant bursts of every series, found day by day in the 1-minute tier and stored.

A burst is what numerics/bursts.py says (the rule: settings CELLAR_BURST_*). The data inventory
(seed 002, table 15) marks the series that have bursts over any range, a year of 10,000 series
included: that cannot be a scan of a year of rates per request, so a poller task ("bursts" in
the beat schedule) scans each UTC day once it is in the 1-minute tier and stores what it found,
with the rule beside each row. The window whose median the rule uses is that UTC day.

A day still filling is scanned again on every run (its rows replaced); a day is final once the
1-minute tier is SETTLE (6 h) past its end, so late samples within that time are taken in. A
final day whose 1-minute buckets the rollup recomputed later (late samples: a spool replayed after
an outage; collector/archive RollupRecomputedDay) is scanned again too. Work per run is bounded
(days and seconds). A burst that runs across midnight is stored as one row per day (each day's
rule uses that day's median); the later row is marked `continues`, and counts skip it.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from collector.archive import tier_read
from collector.archive.models import RollupRecomputedDay
from collector.archive.rollup import watermarks
from collector.archive.tiers import TIER
from collector.bursts.models import Burst, BurstScan
from numerics.bursts import BurstRule, find

log = logging.getLogger(__name__)
MAX_DAYS_PER_RUN = 31
FETCH_ROWS = 50_000
ONE_DAY = timedelta(days=1)
# A day is final (never scanned again) once the 1-minute tier is this far past its end: samples
# that arrive late (a spool replayed after a database outage) recompute their buckets, and a day
# scanned in that time is scanned again with them.
SETTLE = timedelta(hours=6)
TIER_SECONDS = 60.0


def default_rule() -> BurstRule:
    """The rule of the settings (one definition for the stored bursts and the plots' default)."""
    return BurstRule(k=settings.CELLAR_BURST_K, capacity_pct=settings.CELLAR_BURST_CAPACITY_PCT,
                     min_duration_s=float(settings.CELLAR_BURST_MIN_SECONDS),
                     min_samples=settings.CELLAR_BURST_MIN_SAMPLES)


def _at(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _series_of_day(day: date):
    """(series id, capacity/s, bucket starts, deltas, seconds, peaks, samples) per series with
    1-minute buckets that day, read in batches with a server-side cursor (memory bounded by one
    series). The peak (highest one-sample rate) and sample count tell how many samples of a
    bucket were above the threshold (numerics/bursts.py samples_above)."""
    lo = _at(day)
    with transaction.atomic(), connection.cursor() as plain:
        plain.execute("SELECT id, capacity_per_s FROM traffic_series")
        capacity = dict(plain.fetchall())
        source = tier_read.stage(plain, TIER["1m"], None, lo, lo + ONE_DAY, rates=("max",))   # a settled day
        cur = connection.connection.cursor(name="cellar_burst_scan")
        cur.itersize = FETCH_ROWS
        cur.execute("SELECT series_id, extract(epoch FROM bucket), sum_delta, sum_interval_ms, "
                    "coalesce(max_rate, 'NaN'), samples "
                    f"FROM {source} m WHERE bucket >= %s AND bucket < %s ORDER BY series_id, bucket",
                    [lo, lo + ONE_DAY])
        current: int | None = None          # the series being read (its rows are in `rows`)
        rows: list[tuple] = []
        for sid, t, d, ms, peak, n in cur:
            if sid != current and current is not None:
                yield _columns(current, capacity.get(current), rows)
                rows = []
            current = sid
            rows.append((float(t), d, ms, peak, n))
        if current is not None:
            yield _columns(current, capacity.get(current), rows)
        cur.close()


def _columns(sid: int, capacity: int | None, rows: list[tuple]) -> tuple:
    a = np.asarray(rows, dtype=np.float64)
    return sid, capacity, a[:, 0], a[:, 1], a[:, 2] / 1000.0, a[:, 3], a[:, 4]


@dataclass(frozen=True)
class DayScan:
    day: date
    series: int
    bursts: int
    final: bool
    seconds: float


def scan_day(day: date, final: bool, rule: BurstRule | None = None) -> DayScan:
    """Find and store the bursts of every series in one UTC day (replacing that day's rows)."""
    rule = rule or default_rule()
    started = time.perf_counter()
    found: list[Burst] = []
    n_series = 0
    for sid, capacity, start, delta, seconds, peak, samples in _series_of_day(day):
        n_series += 1
        report = find(start, start + TIER_SECONDS, delta, seconds, rule, capacity, peak, samples)
        found += [Burst(series_id=sid, day=day, start=datetime.fromtimestamp(b.start, UTC),
                        end=datetime.fromtimestamp(b.end, UTC), peak=b.peak, mean=b.mean, volume=b.volume,
                        points=b.points, gap_s=b.gap_seconds, rule_k=rule.k, rule_capacity_pct=rule.capacity_pct,
                        rule_min_s=rule.min_duration_s, rule_min_samples=rule.min_samples) for b in report.bursts]
    took = time.perf_counter() - started
    with transaction.atomic():
        Burst.objects.filter(day=day).delete()
        Burst.objects.bulk_create(found, batch_size=5000)
        link_midnight(day)
        link_midnight(day + ONE_DAY)
        BurstScan.objects.update_or_create(day=day, defaults={
            "scanned_at": datetime.now(UTC), "final": final, "series": n_series, "bursts": len(found),
            "seconds": took})
    return DayScan(day, n_series, len(found), final, took)


def link_midnight(day: date) -> None:
    """Mark the rows of `day` that start at its midnight where the same series' burst of the day
    before ends there: one burst, two rows."""
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE studies_burst b SET continues = EXISTS (SELECT 1 FROM studies_burst p WHERE "
            "p.series_id = b.series_id AND p.day = b.day - 1 AND p.\"end\" = b.start) "
            "WHERE b.day = %s AND b.start = %s", [day, _at(day)])


def recomputed_after_scan() -> list[date]:
    """Final days whose 1-minute buckets were recomputed (late samples) after their scan."""
    scanned = dict(BurstScan.objects.filter(final=True).values_list("day", "scanned_at"))
    return [d for d, at in RollupRecomputedDay.objects.filter(day__in=list(scanned)).values_list("day", "at")
            if at > scanned[d]]


def days_to_scan(done_until: datetime | None) -> list[tuple[date, bool]]:
    """Final days recomputed since their scan, then days not yet final, oldest first, up to the
    day the 1-minute tier has reached."""
    if done_until is None:
        return []
    again = [(d, True) for d in sorted(recomputed_after_scan())[:MAX_DAYS_PER_RUN]]
    last_final = BurstScan.objects.filter(final=True).order_by("-day").values_list("day", flat=True).first()
    if last_final is None:
        with connection.cursor() as cur:
            cur.execute("SELECT least((SELECT min(bucket) FROM traffic_rollup_1m), "
                        "(SELECT min(first_bucket) FROM traffic_settled_tier WHERE tier = '1m'))")
            (first,) = cur.fetchone()
        if first is None:
            return again
        day = first.astimezone(UTC).date()
    else:
        day = last_final + ONE_DAY
    out = again
    while _at(day) < done_until and len(out) < MAX_DAYS_PER_RUN:
        out.append((day, _at(day) + ONE_DAY + SETTLE <= done_until))
        day += ONE_DAY
    return out


def run(budget_s: float = 60.0) -> dict:
    """Scan the days due, oldest first, within `budget_s` (the rest waits for the next run)."""
    started = time.monotonic()
    scanned = []
    for day, final in days_to_scan(watermarks().get("1m")):
        if time.monotonic() - started > budget_s:
            break
        result = scan_day(day, final)
        scanned.append(result)
        log.info("bursts of %s: %d in %d series (%s, %.2f s)", day, result.bursts, result.series,
                 "final" if final else "day still filling", result.seconds)
    return {"days": [str(s.day) for s in scanned], "bursts": sum(s.bursts for s in scanned),
            "seconds": round(time.monotonic() - started, 3)}
