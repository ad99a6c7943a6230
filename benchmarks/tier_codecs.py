"""What the rollup tiers cost per counter-bucket now, and what compressed blocks would cost.

`python -m benchmarks.tier_codecs [--days N]` (after `make provision`): a database of its own
(cellar_bench, re-created), N days (default 7) of figure 5's switches (simnet's asx200bx and
ipsw48, 15 s polls, benchmarks/gen.py traffic) written by Cellar's writer, every tier computed by
Cellar's own rollup, then for each tier:
- "rows (now)": hypertable_detailed_size (heap, TOAST, indexes) / buckets;
- "pcodec blocks": one block per series and period (1m: a day, 15m and 1h: the whole run; the
  1-day tier has too few buckets in a week to say anything) holding each column as pcodec
  (bucket offsets in widths, sum_delta, sum_interval_ms, samples, flagged as int64; max_rate and
  min_rate as float64), every block's bytes over the buckets; also per column;
- "pcodec, rates as deltas": the same with max/min rate replaced by the integer deltas that give
  them at the bucket's own interval (what an exact integer form could cost; an estimate: the
  rates of a bucket come from its samples' delta/interval, not from the bucket's interval);
- "with a spine": as "rates as deltas", but bucket offsets, sum_interval_ms, samples and flagged
  stored once per switch and period (the switch's longest series), a series equal to it there
  costing one byte, as the raw blocks' spine does (collector/core/settled.py).
Prints a table; nothing is written to docs by this module.
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
import pcodec

PERIOD_S = {"1m": 86400, "15m": None, "1h": None}     # None: one block over the whole run
COLUMNS = ("offset", "sum_delta", "sum_interval_ms", "max_rate", "min_rate", "samples", "flagged")


def _pco(a: np.ndarray) -> int:
    if len(a) == 0:
        return 0
    if not np.any(a):
        return 1
    return len(pcodec.standalone.simple_compress(np.ascontiguousarray(a), pcodec.ChunkConfig()))


def measure(cur, tier: str, width: int) -> dict:
    cur.execute(f"SELECT total_bytes FROM hypertable_detailed_size('traffic_rollup_{tier}')")
    total = cur.fetchone()[0] or 0
    cur.execute(f"SELECT series_id, extract(epoch FROM bucket)::bigint, sum_delta, sum_interval_ms, max_rate, "
                f"min_rate, samples, flagged FROM traffic_rollup_{tier} ORDER BY series_id, bucket")
    rows = cur.fetchall()
    if not rows:
        return {"buckets": 0}
    cur.execute("SELECT id, switch_id FROM traffic_series")
    switch_of = dict(cur.fetchall())
    period = PERIOD_S.get(tier)
    blocks: dict[tuple, list] = defaultdict(list)
    for sid, b, *rest in rows:
        blocks[(sid, b // period if period else 0)].append((b, *rest))
    per_col: dict[str, int] = defaultdict(int)
    as_deltas = 0
    spines: dict[tuple, dict[int, tuple]] = defaultdict(dict)     # (switch, period) -> series -> spine columns
    for (sid, p), block in blocks.items():
        spines[(switch_of[sid], p)][sid] = tuple(tuple(r[k] for r in block) for k in (0, 2, 5, 6))
    spine_bytes = 0
    for by_series in spines.values():
        longest = max(by_series.values(), key=lambda cols: len(cols[0]))
        spine_bytes += sum(_pco(np.array(c, dtype=np.int64)) for c in longest)
        for cols in by_series.values():
            if cols == longest:
                spine_bytes += 1
            else:
                spine_bytes += sum(_pco(np.array(c, dtype=np.int64)) for c in cols)
    for block in blocks.values():
        b, sum_delta, sum_interval, max_rate, min_rate, samples, flagged = zip(*block)
        times = np.array(b, dtype=np.int64)
        interval = np.array(sum_interval, dtype=np.int64)
        ints = {"offset": (times - times[0]) // width, "sum_delta": np.array(sum_delta, dtype=np.int64),
                "sum_interval_ms": interval, "samples": np.array(samples, dtype=np.int64),
                "flagged": np.array(flagged, dtype=np.int64)}
        for name, col in ints.items():
            per_col[name] += _pco(col)
        for name, values in (("max_rate", max_rate), ("min_rate", min_rate)):
            rate = np.array([0.0 if v is None else v for v in values], dtype=np.float64)
            per_col[name] += _pco(rate)
            as_deltas += _pco(np.rint(rate * interval / 1000).astype(np.int64))
    n = len(rows)
    whole = sum(per_col.values())
    return {"buckets": n, "series": len({r[0] for r in rows}), "blocks": len(blocks), "rows_now": total / n,
            "pcodec": whole / n, "pcodec_rates_as_deltas": (whole - per_col["max_rate"] - per_col["min_rate"]
                                                          + as_deltas) / n,
            "with_spine": (per_col["sum_delta"] + as_deltas + spine_bytes) / n,
            "per_column": {k: per_col[k] / n for k in COLUMNS}}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.tier_codecs", description=__doc__.split("\n\n")[0])
    p.add_argument("--days", type=float, default=7)
    args = p.parse_args(argv)
    from benchmarks import db

    url = db.recreate()
    db.migrate(url)
    db.setup_django(url)
    from django.db import connection

    from benchmarks import fig_storage
    from benchmarks.core import Context
    from collector.archive import rollup

    t0 = time.monotonic()
    ctx = Context(smoke=False, runs=1, db_url=url, work=db.ROOT / "state")
    fig_storage.fill(ctx, seed=7, hours=args.days * 24)
    filled = time.monotonic() - t0
    for _ in range(100000):
        if rollup.run(budget_s=600).caught_up:
            break
    print(f"filled {args.days:g} days in {filled:.0f} s, rolled up in {time.monotonic() - t0 - filled:.0f} s")
    with connection.cursor() as cur:
        for tier, width in (("1m", 60), ("15m", 900), ("1h", 3600), ("1d", 86400)):
            got = measure(cur, tier, width)
            if not got["buckets"]:
                print(f"{tier}: no buckets")
                continue
            cols = ", ".join(f"{k} {v:.2f}" for k, v in got["per_column"].items())
            print(f"{tier}: {got['buckets']:,} buckets of {got['series']} series in {got['blocks']:,} blocks; "
                  f"bytes per counter-bucket: rows now {got['rows_now']:.1f}, "
                  f"pcodec blocks {got['pcodec']:.2f} ({cols}), "
                  f"rates as deltas {got['pcodec_rates_as_deltas']:.2f}, with a spine {got['with_spine']:.2f}")
    db.drop()


if __name__ == "__main__":
    main()
