"""Settling raw samples: a switch's rows of a UTC day, once past the late-data window, become
compressed blocks (collector/core/settled.py) in traffic_settled_poll and traffic_settled_series
(migration archive/0006), and leave traffic_sample in the same transaction.

What is settled: the days that end before the horizon, min(now - CELLAR_SETTLE_AFTER_HOURS, the
1-minute tier's watermark) (the rollup has read them; the plots' live tails read raw samples only
after that watermark), one (switch, day) per transaction, oldest day first, until the run's time
budget is spent. Not settled: a switch's newest row (the next poll derives its deltas from it and
the status pages read it: both keep reading it from traffic_sample), and a day of a switch with
late buckets the rollup has yet to recompute (it reads their raw rows). A day whose switches are
all settled leaves an empty chunk behind, dropped. An archive made before blocks existed is
converted by the same runs: in bounded batches while polling goes on, resumable after a kill
(each batch is one transaction).

Late rows: a poll for a time inside or before a settled day reopens that day and the switch's
settled day before it (`reopen_for`, called by ingest before the previous row is read): their
rows go back to traffic_sample as they were (without logging rollup invalidations for them), the
blocks are deleted, the late row is derived against the right previous row and written as
always (ON CONFLICT DO NOTHING catches a poll stored twice), and a later run settles the day
again. Runs hold the rollup's advisory lock: never while a late bucket is recomputed.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction

from collector.archive import chunks, rollup, tier_settle
from collector.archive.settled_read import DAY, from_us, to_us
from collector.core import settled

log = logging.getLogger(__name__)



@dataclass
class SettleReport:
    switch_days: int = 0
    rows: int = 0
    readings: int = 0
    bytes: int = 0
    chunks_dropped: int = 0
    skipped: bool = False
    caught_up: bool = True
    seconds: float = 0.0
    tiers: tier_settle.TierReport = field(default_factory=tier_settle.TierReport)

    def summary(self) -> dict:
        return {"switch_days": self.switch_days, "rows": self.rows, "readings": self.readings,
                "bytes": self.bytes, "chunks_dropped": self.chunks_dropped, "skipped": self.skipped,
                "caught_up": self.caught_up, "seconds": round(self.seconds, 3), **self.tiers.summary()}


def horizon(now: datetime) -> datetime | None:
    """Days ending at or before this are settled; None before the rollup's first minute."""
    wm = rollup.watermarks().get("1m")
    if wm is None:
        return None
    limit = min(now - timedelta(hours=settings.CELLAR_SETTLE_AFTER_HOURS), wm)
    return datetime.fromtimestamp(limit.timestamp() // 86400 * 86400, tz=UTC)


def _chunks(cur, until: datetime) -> list[tuple[str, datetime, datetime]]:
    cur.execute("SELECT format('%%I.%%I', chunk_schema, chunk_name), range_start, range_end "
                "FROM timescaledb_information.chunks "
                "WHERE hypertable_name = 'traffic_sample' AND range_end <= %s ORDER BY range_start", [until])
    return cur.fetchall()


def _switches_in(cur, lo: datetime, hi: datetime) -> list[int]:
    # A probe of the primary key per switch that ever had a layout: no scan of the day's rows.
    cur.execute("SELECT w.id FROM (SELECT DISTINCT switch_id AS id FROM traffic_layout) w WHERE EXISTS "
                "(SELECT 1 FROM traffic_sample s WHERE s.switch_id = w.id AND s.time >= %s AND s.time < %s) "
                "ORDER BY w.id", [lo, hi])
    return [r[0] for r in cur.fetchall()]


ROWS_SQL = ("SELECT time, layout_id, uptime_cs, interval_ms, raw, delta, flags FROM traffic_sample "
            "WHERE switch_id = %s AND time >= %s AND time < %s ORDER BY time")


def _layouts(cur, ids: set[int]) -> dict[int, list[int]]:
    cur.execute("SELECT id, series_ids FROM traffic_layout WHERE id = ANY(%s)", [sorted(ids)])
    return {lid: list(sids) for lid, sids in cur.fetchall()}


def read_blocks(cur, switch_id: int, lo: datetime) -> list[settled.Row]:
    """The rows of a settled switch-day (every series), as traffic_sample held them."""
    cur.execute("SELECT block FROM traffic_settled_poll WHERE switch_id = %s AND lo = %s", [switch_id, lo])
    got = cur.fetchone()
    if got is None:
        return []
    spine = settled.decode_spine(bytes(got[0]))
    cur.execute("SELECT series_id, block FROM traffic_settled_series WHERE switch_id = %s AND lo = %s",
                [switch_id, lo])
    cols = {sid: settled.decode_column(bytes(b), spine) for sid, b in cur.fetchall()}
    return settled.join(spine, cols, _layouts(cur, set(spine.layout_id.tolist())))


def _write_blocks(cur, switch_id: int, lo: datetime, rows: list[settled.Row]) -> int:
    spine, cols = settled.split(rows, _layouts(cur, {r[1] for r in rows}))
    block = settled.encode_spine(spine)
    cur.execute("INSERT INTO traffic_settled_poll (lo, first_time, last_time, switch_id, polls, block) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [lo, from_us(rows[0][0]), from_us(rows[-1][0]), switch_id, len(rows), block])
    size = len(block)
    with cur.copy("COPY traffic_settled_series (lo, switch_id, series_id, block) FROM STDIN") as copy:
        for sid, col in cols.items():
            b = settled.encode_column(col, spine)
            size += len(b)
            copy.write_row((lo, switch_id, sid, b))
    return size


def _delete_blocks(cur, switch_id: int, lo: datetime) -> None:
    cur.execute("DELETE FROM traffic_settled_series WHERE switch_id = %s AND lo = %s", [switch_id, lo])
    cur.execute("DELETE FROM traffic_settled_poll WHERE switch_id = %s AND lo = %s", [switch_id, lo])


def settle_switch_day(switch_id: int, lo: datetime, report: SettleReport) -> None:
    """One switch's day into blocks (merged with its blocks if the day was settled before), its rows
    deleted, in one transaction. The switch's newest row and a day with late buckets stay."""
    hi = lo + DAY
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT 1 FROM traffic_rollup_invalidation WHERE switch_id = %s AND bucket >= %s AND bucket < %s "
                    "LIMIT 1", [switch_id, lo, hi])
        if cur.fetchone():
            return
        cur.execute("SELECT max(time) FROM traffic_sample WHERE switch_id = %s AND time >= %s", [switch_id, lo])
        (newest,) = cur.fetchone()
        if newest is None:
            return
        until = min(hi, newest)        # the switch's newest row stays
        cur.execute(ROWS_SQL, [switch_id, lo, until])
        fresh = [(to_us(t), lay, up, iv, raw, delta, flags) for t, lay, up, iv, raw, delta, flags in cur.fetchall()]
        if not fresh:
            return
        old = read_blocks(cur, switch_id, lo)
        merged = {r[0]: r for r in fresh}
        merged.update({r[0]: r for r in old})      # a row kept in a block was stored first: it stays
        rows = [merged[t] for t in sorted(merged)]
        if old:
            _delete_blocks(cur, switch_id, lo)
        size = _write_blocks(cur, switch_id, lo, rows)
        cur.execute("DELETE FROM traffic_sample WHERE switch_id = %s AND time >= %s AND time < %s",
                    [switch_id, lo, until])
    report.switch_days += 1
    report.rows += len(fresh)
    report.readings += sum(len(r[4]) for r in fresh)
    report.bytes += size


def run(budget_s: float = 20.0, now: datetime | None = None, max_switch_days: int | None = None) -> SettleReport:
    """Settle what is past the horizon, oldest day first, then the tiers' spans
    (collector/archive/tier_settle.py), until done, out of budget or max_switch_days settled."""
    started = time.monotonic()
    report = SettleReport()

    def out_of_budget() -> bool:
        return time.monotonic() - started >= budget_s

    with rollup.RunLock() as held:
        if not held:
            report.skipped = True
            return report
        now = now or rollup.db_now()
        if not _settle_raw(report, horizon(now), out_of_budget, max_switch_days):
            report.caught_up = False
        elif max_switch_days is None:
            report.caught_up = tier_settle.run(report.tiers, now, rollup.watermarks(), out_of_budget)
    report.seconds = time.monotonic() - started
    if report.switch_days or report.tiers.blocks:
        log.info("settle: %s", report.summary())
    return report


def _settle_raw(report: SettleReport, until: datetime | None, out_of_budget, max_switch_days: int | None) -> bool:
    """The raw days before `until`; False if cut short."""
    if until is None:
        return True
    with connection.cursor() as cur:
        past = _chunks(cur, until)
    for chunk, lo, hi in past:
        for day in _days(lo, hi):
            with connection.cursor() as cur:
                switches = _switches_in(cur, day, day + DAY)
            for switch_id in switches:
                if out_of_budget() or report.switch_days == max_switch_days:
                    return False
                settle_switch_day(switch_id, day, report)
        report.chunks_dropped += chunks.drop_if_empty("traffic_sample", chunk, lo, hi)
    return True


def _days(lo: datetime, hi: datetime) -> list[datetime]:
    first = datetime.fromtimestamp(lo.timestamp() // 86400 * 86400, tz=UTC)
    out = []
    while first < hi:
        out.append(first)
        first += DAY
    return out


# --- late rows -----------------------------------------------------------------------------

_TO_REOPEN = """
SELECT DISTINCT w.sw, p.lo FROM unnest(%s::int[], %s::timestamptz[]) AS w(sw, at)
CROSS JOIN LATERAL (
    (SELECT lo FROM traffic_settled_poll WHERE switch_id = w.sw AND lo > w.at - interval '1 day' AND lo <= w.at)
    UNION ALL
    (SELECT lo FROM traffic_settled_poll WHERE switch_id = w.sw AND lo <= w.at - interval '1 day'
      ORDER BY lo DESC LIMIT 1)) p
WHERE EXISTS (SELECT 1 FROM traffic_settled_poll q WHERE q.switch_id = w.sw AND q.lo > w.at - interval '1 day'
                AND q.lo <= w.at)"""


def reopen_for(polls: dict[int, datetime]) -> int:
    """Put back the settled day a poll at these times (switch id -> time) falls in, and the switch's
    settled day before it (its previous row may be there); returns the switch-days reopened (0: one
    query, the usual case: a poll newer than every settled day)."""
    if not polls:
        return 0
    with connection.cursor() as cur:
        cur.execute(_TO_REOPEN, [list(polls), list(polls.values())])
        found = cur.fetchall()
    for switch_id, lo in found:
        reopen(switch_id, lo)
    return len(found)


def reopen(switch_id: int, lo: datetime) -> int:
    """A settled switch-day back into traffic_sample rows, its blocks deleted, in one transaction."""
    with transaction.atomic(), connection.cursor() as cur:
        rows = read_blocks(cur, switch_id, lo)
        cur.execute("SET LOCAL cellar.reopening = 'on'")
        with cur.copy("COPY traffic_sample (switch_id, time, layout_id, uptime_cs, interval_ms, raw, delta, flags) "
                      "FROM STDIN") as copy:
            for t, lay, up, iv, raw, delta, flags in rows:
                copy.write_row((switch_id, from_us(t), lay, up, iv, raw, delta, flags))
        _delete_blocks(cur, switch_id, lo)
    log.info("settle: reopened switch %s day %s (%d rows) for a late poll", switch_id, lo.date(), len(rows))
    return len(rows)
