"""Rollup tiers (1 min, 15 min, 1 h, 1 d) and retention; planned by rollup_plan.py. The 1-minute
tier is computed from raw samples in numpy (collector/archive/rollup_raw.py), the others in SQL.

The Apache edition of TimescaleDB has no continuous aggregates, so Celery runs this module
(collector/poller/tasks.py: cellar.rollup, cellar.retention). Tables: migrations/traffic/0006
(tiers, watermarks) and 0007 (invalidation log of late samples).

What a bucket holds, per series (the contract every reader relies on):
- sum_delta: the sum of the deltas *drawn as traffic* whose sample time t falls in
  [bucket, bucket + width): delta not NULL, not OVER_CAPACITY, interval_ms > 0. Exact integers.
- sum_interval_ms: the sum of the intervals of those same samples, so the average rate of the
  bucket is exactly sum_delta / sum_interval_ms * 1000 (time-weighted, gaps excluded).
- max_rate / min_rate: the highest / lowest rate of one drawn sample (the MRTG peak envelope);
  NULL when nothing in the bucket was drawn.
- samples: polls in the bucket that carried the series; flagged: those with a flag other than
  WRAP alone (a wrap is routine for a busy Counter32 and its delta is exact; every flag,
  WRAP included, is visible on the raw samples).
A sample belongs to the bucket of its time (the end of its interval), in every tier, in the
CSV export and in the plots, so a range total is the same number wherever it is computed.

Tiers are computed 1m <- raw, 15m <- 1m, 1h <- 15m, 1d <- 1h (sums of sums, max of max: exact),
so raw samples and fine tiers can be dropped by retention while coarse tiers stay complete.

Incremental: traffic_rollup_watermark.done_until per tier; every bucket before it is final.
The 1m tier advances to (database now - CELLAR_ROLLUP_LAG_S); a coarser tier advances to the
last of its buckets entirely covered by the tier below. Idempotent: a step deletes its range
and inserts it again in one transaction, so re-running a step leaves identical rows.
Late data: samples inserted for times the rollup already passed are logged by a trigger
(migration 0007) and their buckets, and the coarser buckets containing them, are recomputed.
"""
from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction

from collector.archive import chunks, rollup_raw, tier_settle
from collector.archive.rollup_plan import (
    Step,
    cutoffs,
    plan_forward,
    plan_invalidations,
    plan_recompute,
    plan_retention,
)
from collector.archive.tiers import SETTLED_TABLES, TABLE_OF, TIER, TIER_COLUMNS, TIERS, Tier, floor_time
from collector.core.facts import NOT_DRAWN, ROUTINE

log = logging.getLogger(__name__)

LOCK_KEY = 0x63656C6C       # pg advisory lock shared by rollup and retention runs ("cell")

# --- SQL ----------------------------------------------------------------------------------

# A sample is drawn as traffic when it has a delta, a positive interval and no NOT_DRAWN flag;
# it counts as flagged with any flag but the ROUTINE one (collector/core/minutes.py, the raw step's,
# in numpy). Written for unnested sample columns u(sid, d, f) joined to sample rows s (the readers'
# raw tails); drawn_sql() for other column names.
def drawn_sql(delta: str, flags: str, interval_ms: str) -> str:
    return f"({delta} IS NOT NULL AND ({flags} & {int(NOT_DRAWN)}) = 0 AND {interval_ms} > 0)"


def flagged_sql(flags: str) -> str:
    return f"(({flags} & ~{int(ROUTINE)}) <> 0)"


DRAWN = drawn_sql("u.d", "u.f", "s.interval_ms")
TIER_AGGREGATES = """
       sum(sum_delta)::bigint, sum(sum_interval_ms)::bigint, max(max_rate), min(min_rate),
       sum(samples)::int, sum(flagged)::int"""


def tier_rollup_sql(tier: Tier, one_switch: bool) -> str:
    """INSERT the tier's buckets of [lo, hi) computed from its source tier."""
    if tier.source is None:
        raise ValueError(f"tier {tier.name} is computed from raw samples (raw_rollup_sql)")
    src = TIER[tier.source]
    switch = "AND series_id IN (SELECT id FROM traffic_series WHERE switch_id = %(switch)s)" if one_switch else ""
    return f"""
INSERT INTO {tier.table} ({TIER_COLUMNS})
SELECT time_bucket(interval '{tier.seconds} seconds', bucket), series_id, {TIER_AGGREGATES}
FROM {src.table}
WHERE bucket >= %(lo)s AND bucket < %(hi)s {switch}
GROUP BY 1, 2"""


# traffic_series_total holds, per series, the sum of the 1-day buckets before the 1-day watermark
# (collector/archive/models.py SeriesTotal). A step of the 1-day tier takes the sums of its buckets
# below the watermark out before it deletes them and adds them back after it has written them and
# moved the watermark, in the same transaction: a forward step adds its days, a late or recomputed
# step the difference it makes, so the table always equals the tier's sums below its watermark.
def carry_1d_sql(one_switch: bool, sign: int) -> str:
    switch = "AND series_id IN (SELECT id FROM traffic_series WHERE switch_id = %(switch)s)" if one_switch else ""
    return f"""
INSERT INTO traffic_series_total AS t (series_id, total)
SELECT series_id, {'-' if sign < 0 else ''}sum(sum_delta) FROM traffic_rollup_1d
 WHERE bucket >= %(lo)s {switch}
   AND bucket < least(%(hi)s::timestamptz, coalesce((SELECT done_until FROM traffic_rollup_watermark
                                                      WHERE tier = '1d'), '-infinity'))
 GROUP BY series_id
ON CONFLICT (series_id) DO UPDATE SET total = t.total + EXCLUDED.total"""


def delete_sql(tier: Tier, one_switch: bool) -> str:
    switch = "AND series_id IN (SELECT id FROM traffic_series WHERE switch_id = %(switch)s)" if one_switch else ""
    return f"DELETE FROM {tier.table} WHERE bucket >= %(lo)s AND bucket < %(hi)s {switch}"


@dataclass
class RunReport:
    steps: list[Step] = field(default_factory=list)
    late_buckets: int = 0
    caught_up: bool = True
    seconds: float = 0.0
    skipped: bool = False   # another run held the lock

    def summary(self) -> dict:
        per_tier: dict[str, int] = defaultdict(int)
        for s in self.steps:
            per_tier[s.tier] += 1
        return {"steps": dict(per_tier), "late_buckets": self.late_buckets, "caught_up": self.caught_up,
                "seconds": round(self.seconds, 3), "skipped": self.skipped}


def retention_days() -> dict[str, int]:
    """Days each of tiers.RETAINED is kept (0: forever), from the CELLAR_RETENTION_* settings."""
    return {"raw": settings.CELLAR_RETENTION_RAW_DAYS, "1m": settings.CELLAR_RETENTION_1M_DAYS,
            "15m": settings.CELLAR_RETENTION_15M_DAYS, "1h": settings.CELLAR_RETENTION_1H_DAYS,
            "1d": settings.CELLAR_RETENTION_1D_DAYS, "poll_log": settings.CELLAR_RETENTION_POLL_LOG_DAYS}


def watermarks() -> dict[str, datetime | None]:
    with connection.cursor() as cur:
        cur.execute("SELECT tier, done_until FROM traffic_rollup_watermark")
        found = dict(cur.fetchall())
    return {t.name: found.get(t.name) for t in TIERS}


def db_now() -> datetime:
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        return cur.fetchone()[0]


def first_sample_time() -> datetime | None:
    """Time of the oldest raw sample, reading only the oldest chunk when there is one."""
    with connection.cursor() as cur:
        cur.execute("SELECT min(range_end) FROM timescaledb_information.chunks "
                    "WHERE hypertable_name = 'traffic_sample'")
        (oldest_end,) = cur.fetchone()
        if oldest_end is not None:
            cur.execute("SELECT min(time) FROM traffic_sample WHERE time < %s", [oldest_end])
            (first,) = cur.fetchone()
            if first is not None:
                return first
        cur.execute("SELECT least((SELECT min(time) FROM traffic_sample), (SELECT min(first_time) "
                    "FROM traffic_settled_poll))")
        return cur.fetchone()[0]


def _init_watermarks() -> dict[str, datetime | None]:
    """First run: every tier starts at the bucket holding the oldest raw sample."""
    done = watermarks()
    if all(done.values()):
        return done
    first = first_sample_time()
    if first is None:
        return done
    with connection.cursor() as cur:
        for tier in TIERS:
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until) VALUES (%s, %s) "
                        "ON CONFLICT (tier) DO NOTHING", [tier.name, floor_time(first, tier.seconds)])
    return watermarks()


def execute(step: Step, advance: bool | None = None) -> None:
    """Replace the tier's buckets in [lo, hi); a forward step also advances the watermark."""
    tier = TIER[step.tier]
    one = step.switch_id is not None
    advance = step.forward if advance is None else advance
    params = {"lo": step.lo, "hi": step.hi, "switch": step.switch_id}
    started = time.monotonic()
    with transaction.atomic(), connection.cursor() as cur:
        if not advance:
            # A recomputed range may lie in settled blocks, of this tier or of the one it reads
            # (a forward step never does: spans settle behind both tiers' watermarks).
            for name in filter(None, (tier.name, tier.source)):
                tier_settle.reopen(cur, name, step.switch_id, step.lo, step.hi)
        if tier.name == "1d":
            cur.execute(carry_1d_sql(one, -1), params)
        cur.execute(delete_sql(tier, one), params)
        if tier.source is None:
            rollup_raw.insert(cur, tier, step)
        else:
            cur.execute(tier_rollup_sql(tier, one), params)
        if advance:
            cur.execute("UPDATE traffic_rollup_watermark SET done_until = %s, updated_at = now() "
                        "WHERE tier = %s AND done_until = %s", [step.hi, step.tier, step.lo])
            if cur.rowcount != 1:   # someone else moved it: undo this step, the next run replans
                raise RuntimeError(f"rollup watermark of {step.tier} moved during the step")
        if tier.name == "1d":
            cur.execute(carry_1d_sql(one, +1), params)
    # One line per step, with the data's minutes: whether a tier keeps up is read from the log
    # (benchmarks/fig_scale.py: the 1-minute step of a minute's data must take < 10 % of it).
    log.info("rollup step %s %s +%d min: %.3f s", step.tier, step.lo.isoformat(),
             round((step.hi - step.lo).total_seconds() / 60), time.monotonic() - started)


def recompute(lo: datetime, hi: datetime, switch_id: int | None = None) -> list[Step]:
    """Recompute (replace) every tier's buckets overlapping [lo, hi): an operator tool, idempotent.

    """
    done = watermarks()
    steps = plan_recompute(lo, hi, done, cutoffs(db_now(), retention_days()), switch_id)
    with RunLock() as held:
        if not held:
            raise RuntimeError("a rollup or retention run is in progress; try again")
        for step in steps:
            execute(step, advance=False)
    return steps


def _take_late(limit: int) -> list[tuple[int, datetime]]:
    with connection.cursor() as cur:
        cur.execute(
            "DELETE FROM traffic_rollup_invalidation WHERE (switch_id, bucket) IN "
            "(SELECT switch_id, bucket FROM traffic_rollup_invalidation ORDER BY bucket LIMIT %s) "
            "RETURNING switch_id, bucket", [limit])
        return cur.fetchall()


def _note_recomputed_days(days: set) -> None:
    with connection.cursor() as cur:
        cur.executemany("INSERT INTO traffic_rollup_recomputed_day (day, at) VALUES (%s, now()) "
                        "ON CONFLICT (day) DO UPDATE SET at = excluded.at", [(d,) for d in sorted(days)])


def process_late(limit: int = 20_000) -> int:
    """Recompute the buckets of logged late samples (oldest first, at most `limit` minutes)."""
    with transaction.atomic():
        late = _take_late(limit)
        if not late:
            return 0
        steps = plan_invalidations(late, watermarks(), cutoffs(db_now(), retention_days()))
        for step in steps:
            execute(step)
        _note_recomputed_days({bucket.astimezone(UTC).date() for _, bucket in late})
    log.info("rollup: recomputed %d late 1-minute buckets in %d steps", len(late), len(steps))
    return len(late)


class RunLock:
    """pg advisory lock: one rollup or retention run at a time, across workers and hosts."""

    def __enter__(self) -> bool:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
            self.held = bool(cur.fetchone()[0])
        return self.held

    def __exit__(self, *exc: object) -> None:
        if self.held:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])


def run(budget_s: float = 50.0, lag_s: int | None = None) -> RunReport:
    """Late buckets first, then forward steps until caught up or out of time budget."""
    lag = timedelta(seconds=settings.CELLAR_ROLLUP_LAG_S if lag_s is None else lag_s)
    started = time.monotonic()
    report = RunReport()
    with RunLock() as held:
        if not held:
            report.skipped = True
            return report
        _init_watermarks()
        while (n := process_late()) and time.monotonic() - started < budget_s:
            report.late_buckets += n
        while True:
            if time.monotonic() - started >= budget_s:
                report.caught_up = False
                break
            steps = plan_forward(watermarks(), db_now() - lag)
            if not steps:
                break
            for step in steps:
                execute(step)
                report.steps.append(step)
    report.seconds = time.monotonic() - started
    if report.steps or report.late_buckets:
        log.info("rollup: %s", report.summary())
    return report


def retention(now: datetime | None = None) -> dict[str, int]:
    """drop_chunks per table as configured; returns the number of chunks dropped per table."""
    dropped: dict[str, int] = {}
    with RunLock() as held:
        if not held:
            return dropped
        plan = plan_retention(now or db_now(), retention_days(), watermarks())
        for name, older_than in plan.items():
            dropped[name] = chunks.drop_chunks(TABLE_OF[name], older_than)
            if name == "raw":
                # a chunk of blocks ends where its last day ends: dropped once that is past the cutoff
                for table in SETTLED_TABLES:
                    dropped[table] = chunks.drop_chunks(table, older_than)
        dropped.update(tier_settle.drop_before(plan))       # settled tier buckets past their tier's cutoff
    if any(dropped.values()):
        log.info("retention: dropped chunks %s", dropped)
    return dropped
