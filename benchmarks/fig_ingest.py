"""Figure 2: Cellar's writer against psql `\\copy` of the same rows into the same hypertable.

Rows: consecutive 15 s polls of simnet's 48-port IP switch (432 values per row: 384 counters
and 48 ifCounterDiscontinuityTime), made by benchmarks/gen.py with Cellar's own derivation.
Cellar: collector.archive.writer.write_samples(rows), one call for the whole batch (COPY into a
temporary table, INSERT ... ON CONFLICT DO NOTHING), wall time including its commit.
Reference: `psql -c "\\copy traffic_sample (...) FROM 'file'"` of the same rows (the same
arrays as COPY text), wall time of the psql process. The hypertable is emptied (TRUNCATE) before
each measurement, so both create the same chunks; the order alternates between runs.
Also shown: write_samples([row]) once per row, which is what the poller does per poll.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import time
from urllib.parse import unquote, urlsplit, urlunsplit

from benchmarks import gen, procstat
from benchmarks.core import Context, Measure

COLUMNS = "time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags"


def _truncate() -> None:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("TRUNCATE traffic_sample")


def _backend_cpu() -> tuple[int, float]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    return pid, procstat.cpu_seconds(pid) or 0.0


def _psql_copy(ctx: Context, path: str) -> float:
    t0 = time.monotonic()
    # The password goes to psql through PGPASSWORD, not in the URL on its command line (ps shows argv).
    url = urlsplit(ctx.db_url)
    host = url.netloc.rpartition("@")[2]
    bare = urlunsplit(url._replace(netloc=f"{url.username}@{host}" if url.username else host))
    env = {**os.environ, **({"PGPASSWORD": unquote(url.password)} if url.password is not None else {})}
    out = subprocess.run(["psql", bare, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                          f"\\copy traffic_sample ({COLUMNS}) FROM '{path}'"], capture_output=True, text=True,
                         timeout=600, env=env)
    wall = time.monotonic() - t0
    if out.returncode != 0:
        raise RuntimeError(f"psql \\copy failed: {out.stderr.strip()[:500]}")
    return wall


def _count() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_sample")
        return cur.fetchone()[0]


def run(ctx: Context) -> list[Measure]:
    from collector.archive import writer

    n_rows = ctx.size(60, 3000)
    n_single = ctx.size(20, 300)
    g = gen.generator("bench-ingest", "ipsw48", start=1_767_225_600.0, seed=2)   # 2026-01-01
    rows = g.rows(n_rows)
    per_row = len(rows[0].raw)
    path = str(ctx.work / "ingest.copy")
    with open(path, "w") as f:
        for r in rows:
            f.write(writer.copy_line(r))
    ctx.info["2"] = {"rows": n_rows, "values_per_row": per_row, "copy_file_bytes": os.path.getsize(path)}
    cellar, ref, ratio, single, single_ratio, cpu_c, cpu_db = [], [], [], [], [], [], []
    for r in range(ctx.runs):
        def ours():
            _truncate()
            pid, db0 = _backend_cpu()
            c0, t0 = time.process_time(), time.monotonic()
            written = writer.write_samples(rows)
            wall = time.monotonic() - t0
            cpu_c.append(time.process_time() - c0)
            cpu_db.append((procstat.cpu_seconds(pid) or db0) - db0)
            if written != n_rows:
                raise RuntimeError(f"write_samples wrote {written} of {n_rows} rows")
            return wall

        def theirs():
            _truncate()
            wall = _psql_copy(ctx, path)
            if _count() != n_rows:
                raise RuntimeError("psql \\copy did not store every row")
            return wall

        if r % 2:
            w_ref, w_ours = theirs(), ours()
        else:
            w_ours, w_ref = ours(), theirs()
        cellar.append(n_rows / w_ours)
        ref.append(n_rows / w_ref)
        ratio.append(cellar[-1] / ref[-1])
        _truncate()
        t0 = time.monotonic()
        for row in rows[:n_single]:
            writer.write_samples([row])
        single.append(n_single / (time.monotonic() - t0))
        single_ratio.append(single[-1] / ref[-1])
        ctx.log(f"  2 run {r + 1}: write_samples {cellar[-1]:,.0f} rows/s, psql \\copy {ref[-1]:,.0f} rows/s, "
                f"one row per call {single[-1]:,.0f} rows/s")
    _truncate()
    m = Measure("2", f"Ingest: {n_rows:,} rows of {per_row} values (48-port IP switch), one write_samples call",
                "rows/s", cellar, ref, "psql \\copy", ratio, "Cellar / \\copy", "ratio ≥ 0.5",
                met=statistics.median(ratio) >= 0.5)
    m.notes.append(f"samples/s (median): Cellar {statistics.median(cellar) * per_row:,.0f}, \\copy "
                   f"{statistics.median(ref) * per_row:,.0f}; Cellar's client CPU "
                   f"{statistics.median(cpu_c) / n_rows * 1000:.2f} ms/row, its PostgreSQL backend "
                   f"{statistics.median(cpu_db) / n_rows * 1000:.2f} ms/row")
    m1 = Measure("2-1", f"Ingest, one write_samples([row]) per row (the poller's case), {n_single} rows",
                 "rows/s", single, ref, "psql \\copy (batch)", single_ratio, "Cellar / \\copy")
    return [m, m1]
