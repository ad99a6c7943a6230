"""Settling rollup buckets: a switch's buckets of one tier over one block span (Tier.block: a day
of minutes, 10 days of quarter hours, 40 days of hours), once past the late-data window, become
compressed blocks (collector/core/tierblocks.py) in traffic_settled_tier and
traffic_settled_tier_series (migration archive/0009), and leave the tier's table in the same
transaction. Readers find them through collector/archive/tier_read.py.

What is settled: for each tier of SETTLED_TIERS, the buckets before the horizon, min(now -
CELLAR_SETTLE_AFTER_HOURS, the tier's watermark, the watermark of the tier computed from it) down to
a UTC midnight: every bucket there is final and the coarser tier has read it. A span the horizon
cuts is settled up to it and merged again on a later day as the horizon moves (once a day at
most). One (tier, switch, span) per transaction, oldest span first, after the raw days
(collector/archive/settle.py runs both within one budget). Not settled: a span of a switch with
late minutes the rollup has yet to recompute. Chunks left empty are dropped. A block records how
far its span was settled (settled_until, migration archive/0010), so a run looks for rows only in
the spans of switches not settled up to its horizon: a settled span costs a run one read of its
blocks' keys, not a probe of each counter series.

Late data: a rollup step that recomputes buckets of a switch (collector/archive/rollup.py execute)
first reopens the blocks overlapping its range, in the step's tier and in the tier it reads: their
buckets go back into the tables as they were and the blocks are deleted, in the step's transaction;
the step then replaces its range as always and a later run settles the span again (the step also
forgets how far the blocks of spans its range touches were settled: it may write rows beside them).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction

from collector.archive import chunks, tier_read
from collector.archive.tiers import CONSUMER, SETTLED_TIER_TABLES, SETTLED_TIERS, TIER, Tier, floor_time
from collector.core import tierblocks

log = logging.getLogger(__name__)


@dataclass
class TierReport:
    blocks: dict[str, int] = field(default_factory=dict)      # tier -> switch spans settled
    buckets: int = 0
    bytes: int = 0
    chunks_dropped: int = 0

    def summary(self) -> dict:
        return {"tier_blocks": dict(self.blocks), "tier_buckets": self.buckets, "tier_bytes": self.bytes,
                "tier_chunks_dropped": self.chunks_dropped}


def horizon(tier: Tier, now: datetime, done: dict[str, datetime | None]) -> datetime | None:
    """Buckets before this (a UTC midnight) are settled; None before the tier and its consumer have run."""
    marks = [m for m in (done.get(tier.name), done.get(CONSUMER[tier.name].name)) if m is not None]
    if len(marks) < 2:
        return None
    return floor_time(min([now - timedelta(hours=settings.CELLAR_SETTLE_AFTER_HOURS), *marks]), 86400)


def spans(tier: Tier, until: datetime) -> list[tuple[datetime, datetime, list[tuple[str, datetime, datetime]]]]:
    """The block spans starting before `until` that the tier's chunks hold rows in, oldest first: (its
    start, where its settling stops: its end or `until`, the chunks (name, range) that end inside the
    settled part: empty once it is settled). A span is settled up to the horizon and completed on later
    days (the block merged again): at most once a day, so its rows wait a day or two, not the span."""
    with connection.cursor() as cur:
        cur.execute("SELECT format('%%I.%%I', chunk_schema, chunk_name), range_start, range_end "
                    "FROM timescaledb_information.chunks WHERE hypertable_name = %s AND range_start < %s "
                    "ORDER BY range_start", [tier.table, until])
        found = cur.fetchall()
    span = int(tier.block.total_seconds())
    starts: set[int] = set()
    for _, lo, hi in found:
        starts.update(range(tier.block_start(int(lo.timestamp())), int(min(hi, until).timestamp()), span))
    out = []
    for s in sorted(starts):
        lo = datetime.fromtimestamp(s, tz=UTC)
        upto = min(lo + tier.block, until)
        ended = [c for c in found if c[2] <= upto and tier.block_start(int(c[2].timestamp()) - 1) == s]
        out.append((lo, upto, ended))
    return out


def unsettled(cur, tier: Tier, lo: datetime, upto: datetime) -> list[int]:
    """The switches whose span starting at lo is not known to be settled up to `upto` (their block's
    settled_until; migration archive/0010): only theirs are looked at for rows, so a span once
    settled costs one read of its blocks' rows per run, not a probe of every counter series."""
    cur.execute("SELECT w.id FROM (SELECT DISTINCT switch_id AS id FROM traffic_layout) w WHERE NOT EXISTS "
                "(SELECT 1 FROM traffic_settled_tier b WHERE b.switch_id = w.id AND b.tier = %s AND b.lo = %s "
                "AND b.settled_until >= %s) ORDER BY w.id", [tier.name, lo, upto])
    return [r[0] for r in cur.fetchall()]


ROWS_SQL = ("SELECT series_id, extract(epoch FROM bucket)::bigint, sum_delta, sum_interval_ms, max_rate, min_rate, "
            "samples, flagged FROM {table} WHERE series_id IN (SELECT id FROM traffic_series WHERE switch_id = %s) "
            "AND bucket >= %s AND bucket < %s")


def _block_rows(tier: Tier, found: list[tier_read.Block]) -> list[tierblocks.BucketRow]:
    return [row for _, at, spine, cols in found
            for row in tierblocks.join(spine, cols, tier_read.epoch_s(at), tier.seconds)]


def settle_span(tier: Tier, switch_id: int, lo: datetime, report: TierReport, upto: datetime | None = None) -> None:
    """One switch's buckets of a tier span (up to `upto`, else all of it) into blocks, merged with its
    block if the span was settled before (the rows, newer, win), its rows deleted, in one transaction;
    the block then says it is settled up to there (settled_until). Nothing while the switch has late
    minutes to recompute in the span."""
    hi = lo + tier.block if upto is None else min(lo + tier.block, upto)
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT 1 FROM traffic_rollup_invalidation WHERE switch_id = %s AND bucket >= %s "
                    "AND bucket < %s LIMIT 1", [switch_id, lo, hi])
        if cur.fetchone():
            return
        cur.execute(ROWS_SQL.format(table=tier.table), [switch_id, lo, hi])
        fresh = cur.fetchall()
        if not fresh:           # nothing left as rows: a block there is settled this far
            cur.execute("UPDATE traffic_settled_tier SET settled_until = %s WHERE switch_id = %s AND tier = %s "
                        "AND lo = %s AND settled_until IS DISTINCT FROM %s", [hi, switch_id, tier.name, lo, hi])
            return
        old = tier_read.blocks(tier, [switch_id], None, lo, hi)
        merged = {(r[0], r[1]): r for r in _block_rows(tier, old)}
        merged.update({(r[0], r[1]): r for r in fresh})
        if old:
            _delete_blocks(cur, tier, switch_id, lo)
        size = _write_blocks(cur, tier, switch_id, lo, list(merged.values()), hi)
        cur.execute(f"DELETE FROM {tier.table} WHERE series_id IN (SELECT id FROM traffic_series "
                    "WHERE switch_id = %s) AND bucket >= %s AND bucket < %s", [switch_id, lo, hi])
    report.blocks[tier.name] = report.blocks.get(tier.name, 0) + 1
    report.buckets += len(fresh)
    report.bytes += size


def _write_blocks(cur, tier: Tier, switch_id: int, lo: datetime, rows: list[tierblocks.BucketRow],
                  settled_until: datetime | None) -> int:
    spine, cols = tierblocks.split(rows, tier_read.epoch_s(lo), tier.seconds)
    block = tierblocks.encode_spine(spine)
    first = lo + timedelta(seconds=int(spine.offsets[0]) * tier.seconds)
    last = lo + timedelta(seconds=int(spine.offsets[-1]) * tier.seconds)
    cur.execute("INSERT INTO traffic_settled_tier (tier, lo, switch_id, first_bucket, last_bucket, buckets, block, "
                "settled_until) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [tier.name, lo, switch_id, first, last, len(rows), block, settled_until])
    size = len(block)
    with cur.copy("COPY traffic_settled_tier_series (tier, lo, switch_id, series_id, block, total_delta, "
                  "total_interval_ms, peak_rate, floor_rate, total_samples, total_flagged) FROM STDIN") as copy:
        for sid, col in cols.items():
            b = tierblocks.encode_column(col, spine)
            size += len(b)
            copy.write_row((tier.name, lo, switch_id, sid, b, *tierblocks.totals(col)))
    return size


def _delete_blocks(cur, tier: Tier, switch_id: int, lo: datetime) -> None:
    """The switch's blocks of the tier's span starting at lo."""
    for table in ("traffic_settled_tier_series", "traffic_settled_tier"):
        cur.execute(f"DELETE FROM {table} WHERE switch_id = %s AND tier = %s AND lo = %s", [switch_id, tier.name, lo])


def run(report: TierReport, now: datetime, done: dict[str, datetime | None], out_of_budget) -> bool:
    """Settle every settled tier's spans past its horizon until `out_of_budget()`; False if cut short.
    The caller holds the rollup's lock (collector/archive/settle.py run)."""
    for tier in SETTLED_TIERS:
        until = horizon(tier, now, done)
        if until is None:
            continue
        for lo, upto, ended in spans(tier, until):
            with connection.cursor() as cur:
                switches = unsettled(cur, tier, lo, upto)
            for switch_id in switches:
                if out_of_budget():
                    return False
                settle_span(tier, switch_id, lo, report, upto)
            for chunk, c_lo, c_hi in ended:
                report.chunks_dropped += chunks.drop_if_empty(tier.table, chunk, c_lo, c_hi)
    return True


# --- retention ------------------------------------------------------------------------------

def drop_before(older_than: dict[str, datetime]) -> dict[str, int]:
    """Retention of settled buckets: per settled tier (its cutoff in older_than, as the tier's rows
    are dropped), its blocks whose span ends at or before the cutoff deleted, then the chunks of the
    block tables left empty dropped; returns blocks deleted per tier and chunks dropped per table."""
    out: dict[str, int] = {}
    cuts = {name: at for name, at in older_than.items() if name in tier_read.STAGED}
    for name, at in cuts.items():
        tier = TIER[name]
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("DELETE FROM traffic_settled_tier_series WHERE tier = %s AND lo <= %s", [name, at - tier.block])
            cur.execute("DELETE FROM traffic_settled_tier WHERE tier = %s AND lo <= %s", [name, at - tier.block])
            out[f"settled {name}"] = cur.rowcount
    if cuts:
        until = max(cuts.values())
        for table in SETTLED_TIER_TABLES:
            with connection.cursor() as cur:
                cur.execute("SELECT format('%%I.%%I', chunk_schema, chunk_name), range_start, range_end "
                            "FROM timescaledb_information.chunks WHERE hypertable_name = %s AND range_end <= %s",
                            [table, until])
                found = cur.fetchall()
            out[table] = sum(chunks.drop_if_empty(table, c, lo, hi) for c, lo, hi in found)
    return out


# --- late buckets --------------------------------------------------------------------------

def reopen(cur, tier_name: str, switch_id: int | None, lo: datetime, hi: datetime) -> int:
    """Inside the caller's transaction: the tier's settled blocks overlapping [lo, hi) of the switch
    (None: every switch) back into the tier's table, the blocks deleted; returns the buckets put back
    (0: one index probe, the usual case)."""
    tier = TIER[tier_name]
    if tier.name not in tier_read.STAGED:
        return 0
    # The step writes rows into its range: a block of a span holding some of it (buckets there or
    # not: a switch down for part of the span) is no longer known to be settled as far as it said.
    cur.execute("UPDATE traffic_settled_tier SET settled_until = NULL WHERE tier = %s AND lo > %s AND lo < %s "
                "AND settled_until IS NOT NULL" + ("" if switch_id is None else " AND switch_id = %s"),
                [tier.name, lo - tier.block, hi] + ([] if switch_id is None else [switch_id]))
    found = tier_read.blocks(tier, None if switch_id is None else [switch_id], None, lo, hi)
    if not found:
        return 0
    rows = tier_read.put_back(cur, tier, found)
    for sw, at, _, _ in found:
        _delete_blocks(cur, tier, sw, at)
    log.info("settle: reopened %d %s blocks (%d buckets) for a recomputed range %s", len(found), tier.name, rows,
             lo.isoformat())
    return rows
