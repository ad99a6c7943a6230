"""Storage options measured on the same data as figure 5 (the last run's rows of traffic_sample).

Each option is a hypertable of its own (1-day chunks, the same primary key), filled from
traffic_sample with INSERT ... SELECT, vacuumed, and measured like figure 5:
hypertable_detailed_size / readings. "copy" is traffic_sample copied as it is, the baseline of
the options (a bulk copy packs slightly differently from rows written poll by poll).
None of these changes the schema of Cellar: a chosen one becomes a migration (lz4 was chosen:
migrations/traffic/0008_lz4_sample_arrays.py; "pglz" is what it replaced).
"""
from __future__ import annotations

import math
import re

from benchmarks.core import Context, Measure

BASE_COLS = "time timestamptz NOT NULL, uptime_cs bigint, switch_id integer NOT NULL, layout_id integer NOT NULL, " \
            "interval_ms integer"

# name -> (description, extra column DDL, column settings, SELECT list producing the columns)
OPTIONS: dict[str, tuple[str, str, list[str], str]] = {
    "copy": ("as stored now (lz4 TOAST compression, migration 0008), rewritten in one bulk INSERT",
             "raw bigint[] NOT NULL, delta bigint[] NOT NULL, flags smallint[] NOT NULL",
             ["raw SET COMPRESSION lz4", "delta SET COMPRESSION lz4", "flags SET COMPRESSION lz4"],
             "raw, delta, flags"),
    "uncompressed": ("no TOAST compression (STORAGE EXTERNAL): what compression saves",
                     "raw bigint[] NOT NULL, delta bigint[] NOT NULL, flags smallint[] NOT NULL",
                     ["raw SET STORAGE EXTERNAL", "delta SET STORAGE EXTERNAL", "flags SET STORAGE EXTERNAL"],
                     "raw, delta, flags"),
    "pglz": ("pglz, PostgreSQL's default, on the three arrays (before migration 0008)",
             "raw bigint[] NOT NULL, delta bigint[] NOT NULL, flags smallint[] NOT NULL",
             ["raw SET COMPRESSION pglz", "delta SET COMPRESSION pglz", "flags SET COMPRESSION pglz"],
             "raw, delta, flags"),
    "flags-null": ("flags NULL when every flag of the row is 0",
                   "raw bigint[] NOT NULL, delta bigint[] NOT NULL, flags smallint[]", [],
                   "raw, delta, CASE WHEN flags = array_fill(0::smallint, ARRAY[cardinality(flags)]) "
                   "THEN NULL ELSE flags END"),
    "delta-int4": ("deltas as int4[] when the row's deltas all fit (else bigint[] in a second column)",
                   "raw bigint[] NOT NULL, delta4 integer[], delta bigint[], flags smallint[] NOT NULL", [],
                   "raw, CASE WHEN x.fits THEN delta::int[] END, CASE WHEN NOT x.fits THEN delta END, flags"),
    "int4+flags-null": ("delta-int4 and flags-null together",
                        "raw bigint[] NOT NULL, delta4 integer[], delta bigint[], flags smallint[]", [],
                        "raw, CASE WHEN x.fits THEN delta::int[] END, CASE WHEN NOT x.fits THEN delta END, "
                        "CASE WHEN flags = array_fill(0::smallint, ARRAY[cardinality(flags)]) THEN NULL "
                        "ELSE flags END"),
    "raw-only (NOT allowed)": ("no delta array (deltas derived at read time): the floor, for comparison only",
                               "raw bigint[] NOT NULL, flags smallint[] NOT NULL", [], "raw, flags"),
}

# INSERT ... SELECT copies a compressed value as it is (the target column's compression method is
# not applied to it): a slice makes a new, uncompressed array that the target compresses its way.
FRESH = {"raw": "raw[1:cardinality(raw)]", "delta": "delta[1:cardinality(delta)]",
         "flags": "flags[1:cardinality(flags)]"}

FITS = ("CROSS JOIN LATERAL (SELECT coalesce(bool_and(d BETWEEN -2147483648 AND 2147483647), true) AS fits "
        "FROM unnest(s.delta) AS d) x")


def _measure(name: str, cols: str, settings: list[str], select: str, readings: int) -> dict:
    from django.db import connection

    table = "bench_opt"
    with connection.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"CREATE TABLE {table} ({BASE_COLS}, {cols}, PRIMARY KEY (switch_id, time))")
        cur.execute(f"SELECT create_hypertable('{table}', by_range('time', INTERVAL '1 day'), "
                    "create_default_indexes => false)")
        for s in settings:
            cur.execute(f"ALTER TABLE {table} ALTER COLUMN {s}")
        fits = FITS if "x.fits" in select else ""
        select = re.sub(r"\b(raw|delta|flags)\b(?!\[)", lambda mt: FRESH[mt.group(1)], select)
        cur.execute(f"INSERT INTO {table} SELECT time, uptime_cs, switch_id, layout_id, interval_ms, {select} "
                    f"FROM traffic_sample s {fits} ORDER BY switch_id, time")
        cur.execute(f"VACUUM ANALYZE {table}")
        cur.execute("SELECT table_bytes, index_bytes, toast_bytes, total_bytes FROM hypertable_detailed_size(%s)",
                    [table])
        t, i, toast, total = cur.fetchone()
        # read cost: detoast and decompress every array once (what a rollup or a raw read does)
        arrays = [c.split()[0] for c in cols.split(", ") if "[]" in c]
        read = " + ".join(f"coalesce(cardinality({a}), 0)" for a in arrays)
        best = math.inf
        for _ in range(3):
            cur.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum({read}) FROM {table}")
            plan = cur.fetchone()[0][0]
            best = min(best, plan["Execution Time"])
        cur.execute(f"DROP TABLE {table}")
    return {"total": total, "per": total / readings, "table": t, "toast": toast, "index": i,
            "read_ms_per_m": best / readings * 1e6}


def run(ctx: Context, only: tuple[str, ...] | None = None) -> list[Measure]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(sum(cardinality(raw)), 0) FROM traffic_sample")
        readings = cur.fetchone()[0]
        cur.execute("SELECT count(*) FILTER (WHERE flags = array_fill(0::smallint, ARRAY[cardinality(flags)])), "
                    "count(*) FROM traffic_sample")
        zero_flags, rows = cur.fetchone()
    results = {}
    options = {k: v for k, v in OPTIONS.items() if only is None or k in only}
    for name, (_desc, cols, settings, select) in options.items():
        results[name] = _measure(name, cols, settings, select, readings)
        ctx.log(f"  5 option {name}: {results[name]['per']:.2f} bytes/sample, read "
                f"{results[name]['read_ms_per_m']:.0f} ms per million readings")
    base = results["copy"]["per"]
    ctx.info["5 options"] = {k: round(v["per"], 2) for k, v in results.items()}
    out = []
    for name, (desc, *_rest) in options.items():
        r = results[name]
        m = Measure(f"5-{name}", f"Storage option: {desc}", "bytes / sample", [r["per"]], [base],
                    "copy of traffic_sample", [r["per"] / base], "option / copy", higher_is_better=False)
        m.notes.append(f"heap {r['table']:,} B, TOAST {r['toast']:,} B, index {r['index']:,} B; reading every "
                       f"array back (detoast, decompress) {r['read_ms_per_m']:.0f} ms per million readings "
                       f"(one run, same data)")
        out.append(m)
    out[0].notes.append(f"{zero_flags} of {rows} rows have no flag set")
    return out
