"""Figure 18: the rollup tiers as rows and as settled blocks (collector/core/tierblocks.py), in one run.

Data: figure 5's two switches (simnet's asx200bx and ipsw48: 501 counter series, 15 s polls,
benchmarks/gen.py traffic) over DAYS days (--smoke: 3 hours), written by Cellar's writer, every
tier computed by Cellar's own rollup (collector/archive/rollup.recompute over the data's days).

- 18a-18d, bytes per counter-bucket of each tier: its rows cut into blocks per switch and block
  span (collector/archive/tiers.py Tier.block) and encoded by Cellar's tier codec; every block is
  decoded again and compared with its rows, float rates bit for bit (a difference fails the
  figure). Reference: the rows as stored (hypertable_detailed_size: heap, TOAST and indexes, over
  the buckets). Goal ≤ 4 bytes (issue: "every tier"). Not counted: the row that would hold each
  block (~60 bytes with its index, one per series and block: 0.04 bytes a 1-minute bucket). The
  encoding is deterministic, so it is done once and its figure repeated for each run.
- 18f-18k (benchmarks/tier_reads.py): the tiers settled for real by Cellar's settle run, their
  bytes on disk, and the readers of the tiers timed before and after settling.
- 18e, one series-day of the 1-minute tier read back: its blocks fetched from a table (the
  switch's spine and the series' column, bytea) and decoded into rows, against the bare SELECT of
  the same rows from traffic_rollup_1m (median of REPS reads per run).
"""
from __future__ import annotations

import statistics
import struct
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import numpy as np

from benchmarks import fig_storage, tier_reads
from benchmarks.core import Context, Measure
from collector.core import tierblocks  # pure: no Django, safe before the benchmark's setup

DAYS = 7
GOAL = 4.0
REPS = 20
KEYS = {"1m": "18a", "15m": "18b", "1h": "18c", "1d": "18d"}


def _key(rows: list) -> list:
    bits = lambda v: None if v is None else struct.pack("<d", v)  # noqa: E731
    return [(r[0], r[1], r[2], r[3], bits(r[4]), bits(r[5]), r[6], r[7]) for r in rows]


def measure(cur, tier) -> dict:
    """The tier's rows and blocks: sizes, the rates' share, unpaired rates, codec time per bucket;
    the blocks of the 1-minute tier are kept in bench_tier_block for 18e."""
    cur.execute(f"SELECT total_bytes FROM hypertable_detailed_size('{tier.table}')")
    total = cur.fetchone()[0] or 0
    cur.execute(f"SELECT s.switch_id, r.series_id, extract(epoch FROM r.bucket)::bigint, r.sum_delta, "
                f"r.sum_interval_ms, r.max_rate, r.min_rate, r.samples, r.flagged FROM {tier.table} r "
                f"JOIN traffic_series s ON s.id = r.series_id ORDER BY 1, 2, 3")
    got = cur.fetchall()
    if not got:
        return {"buckets": 0}
    groups: dict[tuple, list] = defaultdict(list)
    for sw, *row in got:
        groups[(sw, tier.block_start(row[1]))].append(tuple(row))
    size = no_rates = unpaired = 0
    enc_s = dec_s = 0.0
    for (sw, lo), rows in groups.items():
        t0 = time.perf_counter()
        spine, cols = tierblocks.split(rows, lo, tier.seconds)
        blocks = {sid: tierblocks.encode_column(c, spine) for sid, c in cols.items()}
        sb = tierblocks.encode_spine(spine)
        t1 = time.perf_counter()
        back_spine = tierblocks.decode_spine(sb)
        back = tierblocks.join(back_spine, {sid: tierblocks.decode_column(b, back_spine) for sid, b in blocks.items()},
                               lo, tier.seconds)
        t2 = time.perf_counter()
        enc_s, dec_s = enc_s + t1 - t0, dec_s + t2 - t1
        if _key(back) != _key(rows):
            raise RuntimeError(f"{tier.name}: the block of switch {sw} from {lo} does not give back its rows")
        size += len(sb) + sum(len(b) for b in blocks.values())
        if tier.name == "1m":
            cur.execute("INSERT INTO bench_tier_block VALUES (%s, %s, 0, %s)", [sw, lo, sb])
            cur.executemany("INSERT INTO bench_tier_block VALUES (%s, %s, %s, %s)",
                            [(sw, lo, sid, b) for sid, b in blocks.items()])
        for c in cols.values():
            unpaired += sum(len(p.unpaired) for p in tierblocks.column_pairs(c, spine))
            c.max_null = c.min_null = np.ones(len(c), bool)
            no_rates += len(tierblocks.encode_column(c, spine))
        no_rates += len(sb)
    n = len(got)
    return {"buckets": n, "series": len({r[1] for r in got}), "blocks": len(groups), "rows": total / n,
            "blocks_bytes": size / n, "rates": (size - no_rates) / n, "unpaired": unpaired,
            "encode_us": enc_s / n * 1e6, "decode_us": dec_s / n * 1e6}


def _read_day(cur, sid: int, sw: int, lo: int) -> tuple[float, float, int]:
    """(blocks wall s, bare select wall s, rows) of one series-day of the 1-minute tier."""
    def from_blocks() -> list:
        cur.execute("SELECT series_id, block FROM bench_tier_block WHERE switch_id = %s AND lo = %s "
                    "AND series_id IN (0, %s)", [sw, lo, sid])
        parts = {k: bytes(b) for k, b in cur.fetchall()}
        spine = tierblocks.decode_spine(parts[0])
        return tierblocks.join(spine, {sid: tierblocks.decode_column(parts[sid], spine)}, lo, 60)

    def bare() -> list:
        cur.execute("SELECT series_id, extract(epoch FROM bucket)::bigint, sum_delta, sum_interval_ms, max_rate, "
                    "min_rate, samples, flagged FROM traffic_rollup_1m WHERE series_id = %s AND bucket >= %s "
                    "AND bucket < %s ORDER BY bucket", [sid, datetime.fromtimestamp(lo, UTC),
                                                        datetime.fromtimestamp(lo + 86400, UTC)])
        return cur.fetchall()

    if _key(from_blocks()) != _key([tuple(r) for r in bare()]):
        raise RuntimeError(f"series {sid}: the day read from blocks differs from its rows")
    walls: dict[str, list[float]] = {"blocks": [], "bare": []}
    for _ in range(REPS):
        for name, read in (("blocks", from_blocks), ("bare", bare)):
            t0 = time.perf_counter()
            rows = read()
            walls[name].append(time.perf_counter() - t0)
    return statistics.median(walls["blocks"]), statistics.median(walls["bare"]), len(rows)


def run(ctx: Context) -> list[Measure]:
    from django.db import connection

    from collector.archive import rollup
    from collector.archive.tiers import TIERS

    hours = ctx.size(3, DAYS * 24)
    fig_storage.fill(ctx, seed=7, hours=hours)
    # The rollup as the beat runs it, up to the end of the data's last day (so that its 1-day
    # buckets are final), not up to now (months of empty steps).
    until = datetime.fromtimestamp(fig_storage.START, UTC) + timedelta(days=-(-hours // 24), minutes=2)
    t0 = time.monotonic()
    for _ in range(10_000):
        lag = int((rollup.db_now() - until).total_seconds())
        if rollup.run(budget_s=600, lag_s=lag).caught_up:
            break
    ctx.log(f"  18: {hours:g} h filled and rolled up ({time.monotonic() - t0:.0f} s for the rollup)")
    out = []
    with connection.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_tier_block")
        cur.execute("CREATE TABLE bench_tier_block (switch_id int, lo bigint, series_id int, block bytea, "
                    "PRIMARY KEY (switch_id, lo, series_id))")
        for tier in TIERS:
            got = measure(cur, tier)
            if not got["buckets"]:
                continue
            ctx.log(f"  18 {tier.name}: {got}")
            m = Measure(KEYS[tier.name], f"Tier {tier.name} as settled blocks: {got['buckets']:,} buckets of "
                        f"{got['series']} series, {hours:g} h of figure 5's switches, every row given back exactly",
                        "bytes / counter-bucket", [got["blocks_bytes"]] * ctx.runs, [got["rows"]] * ctx.runs,
                        "the tier's rows (heap, TOAST, indexes)", [got["blocks_bytes"] / got["rows"]] * ctx.runs,
                        "blocks / rows", f"≤ {GOAL:g} bytes", met=got["blocks_bytes"] <= GOAL, higher_is_better=False)
            m.notes.append(f"of which the peak and floor rates {got['rates']:.2f} bytes ({got['unpaired']} of them "
                           f"kept as float bits); {got['blocks']} switch-blocks; encode {got['encode_us']:.1f} us, "
                           f"decode {got['decode_us']:.2f} us a bucket (one core)")
            out.append(m)
        cur.execute("SELECT b.switch_id, b.lo, b.series_id FROM bench_tier_block b WHERE b.series_id <> 0 "
                    "ORDER BY b.lo DESC, b.switch_id, b.series_id LIMIT 1")
        sw, lo, sid = cur.fetchone()
        blocks, bare, rows = [], [], 0
        for _ in range(ctx.runs):
            b, s, rows = _read_day(cur, sid, sw, lo)
            blocks.append(b * 1000)
            bare.append(s * 1000)
        out.append(Measure("18e", f"One series-day of the 1-minute tier read from its blocks ({rows:,} buckets: "
                                  "spine and column fetched, decoded, rows)", "ms", blocks, bare,
                           "bare SELECT of the same rows", [b / s for b, s in zip(blocks, bare, strict=True)],
                           "blocks / bare select", "", higher_is_better=False))
        cur.execute("DROP TABLE bench_tier_block")
    out += tier_reads.run(ctx, datetime.fromtimestamp(fig_storage.START, UTC), -(-int(hours) // 24))
    return out
