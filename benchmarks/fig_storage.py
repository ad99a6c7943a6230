"""Figure 5: bytes per raw sample, indexes included, for simnet's FORE switch and 48-port IP switch.

Data: a day of 15 s polls (--smoke: an hour) of simnet's asx200bx (100 counters + the switch's
counter reset time per row) and ipsw48 (384 counters + 48 ifCounterDiscontinuityTime per row),
derived by Cellar and written by collector.archive.writer.write_samples (benchmarks/gen.py: realistic
traffic, a different random seed per run).
Cellar: hypertable_detailed_size('traffic_sample').total_bytes (heap + TOAST + indexes of all
chunks) / readings stored (the elements of the raw arrays, discontinuity times included).
Reference: the same readings stored the obvious way, one row per reading: a hypertable
(series_id int, time timestamptz, raw bigint, delta bigint, flags smallint, primary key
(series_id, time)), filled from traffic_sample with unnest, measured the same way.
Options (one run, the same data, each in a table of its own): see OPTIONS below.
"""
from __future__ import annotations

import statistics
import time

from benchmarks import db, gen
from benchmarks.core import Context, Measure

GOAL = 40.0
START = 1_767_225_600.0 + 86400 * 30      # 2026-01-31 00:00 UTC

NARROW = """
CREATE TABLE IF NOT EXISTS bench_narrow (
    time timestamptz NOT NULL, raw bigint, delta bigint, series_id integer NOT NULL, flags smallint NOT NULL,
    PRIMARY KEY (series_id, time));
SELECT create_hypertable('bench_narrow', by_range('time', INTERVAL '1 day'), create_default_indexes => false,
                         if_not_exists => true);
TRUNCATE bench_narrow;
INSERT INTO bench_narrow (time, raw, delta, series_id, flags)
SELECT s.time, u.r, u.d, u.sid, u.f FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id
CROSS JOIN LATERAL unnest(l.series_ids, s.raw, s.delta, s.flags) AS u(sid, r, d, f);
"""


def _size(table: str) -> dict:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT table_bytes, index_bytes, toast_bytes, total_bytes FROM hypertable_detailed_size(%s)",
                    [table])
        t, i, toast, total = cur.fetchone()
    return {"table": t, "index": i, "toast": toast, "total": total}


def _readings(table: str = "traffic_sample") -> tuple[int, int]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*), coalesce(sum(cardinality(raw)), 0) FROM {table}")
        return cur.fetchone()


def fill(ctx: Context, seed: int, hours: float) -> dict:
    from collector.archive import writer

    db.empty_traffic(ctx)
    polls = int(hours * 3600 / 15)
    out = {}
    for name, simnet_name in (("bench-store-fore", "asx200bx"), ("bench-store-ip48", "ipsw48")):
        g = gen.generator(name, simnet_name, START, seed=seed + len(name))
        batch = []
        for _ in range(polls):
            batch.append(g.next_row())
            if len(batch) >= 500:
                writer.write_samples(batch)
                batch = []
        if batch:
            writer.write_samples(batch)
        out[simnet_name] = len(g.series_ids)
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE traffic_sample")
    return out


def columns() -> dict:
    """Average stored size per element of each array column (pg_column_size: after compression)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT sum(pg_column_size(raw))::float8 / sum(cardinality(raw)), "
                    "sum(pg_column_size(delta))::float8 / sum(cardinality(raw)), "
                    "sum(pg_column_size(flags))::float8 / sum(cardinality(raw)), "
                    "sum(pg_column_size(s.*))::float8 / sum(cardinality(raw)) FROM traffic_sample s")
        r, d, f, row = cur.fetchone()
    return {"raw": r, "delta": d, "flags": f, "row": row}


def narrow_bytes() -> float:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(NARROW)
        cur.execute("VACUUM ANALYZE bench_narrow")
    n = _readings_narrow()
    size = _size("bench_narrow")["total"]
    with connection.cursor() as cur:
        cur.execute("DROP TABLE bench_narrow")
    return size / n


def _readings_narrow() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM bench_narrow")
        return cur.fetchone()[0]


def run(ctx: Context) -> list[Measure]:
    from benchmarks import storage_options

    hours = ctx.size(1 / 3, 24)
    cellar, ref, ratio = [], [], []
    details = {}
    for r in range(ctx.runs):
        t0 = time.monotonic()
        sizes = fill(ctx, seed=100 + r, hours=hours)
        rows, readings = _readings()
        size = _size("traffic_sample")
        per = size["total"] / readings
        details = {"rows": rows, "readings": readings, **size, "per_column": columns(), "values_per_row": sizes}
        ref_per = narrow_bytes()
        cellar.append(per)
        ref.append(ref_per)
        ratio.append(per / ref_per)
        ctx.log(f"  5 run {r + 1}: {per:.2f} bytes/sample ({rows} rows, {readings:,} readings, heap "
                f"{size['table']:,} toast {size['toast']:,} index {size['index']:,}); one row per reading "
                f"{ref_per:.2f} bytes/sample; {time.monotonic() - t0:.0f} s")
    ctx.info["5"] = {k: v for k, v in details.items() if k != "per_column"}
    pc = details["per_column"]
    m = Measure("5", f"Storage: {hours:g} h of 15 s polls of simnet's asx200bx and ipsw48 "
                     f"({details['readings']:,} readings in {details['rows']:,} rows)",
                "bytes / sample", cellar, ref, "one row per reading", ratio, "Cellar / one row per reading",
                f"≤ {GOAL:.0f} bytes", met=statistics.median(cellar) <= GOAL, higher_is_better=False)
    m.notes.append(f"stored bytes per reading by column (pg_column_size, last run): raw {pc['raw']:.2f}, "
                   f"delta {pc['delta']:.2f}, flags {pc['flags']:.2f}, whole row {pc['row']:.2f}; "
                   f"heap {details['table']:,} B, TOAST {details['toast']:,} B, index {details['index']:,} B")
    return [m] + storage_options.run(ctx, only=("copy", "pglz") if ctx.smoke else None)
