"""Figure 4: CSV export rows/s against `COPY (the same query) TO STDOUT` through psycopg.

Data: benchmarks/plotdata.py. Cellar: the export view as a browser calls it
(webapp/traffic/views.export through RequestFactory), its StreamingHttpResponse read to the end
(the streaming generator the view and the export_csv command use); wall time.
Reference: the query the export runs (webapp/traffic/csvrows.sql_for of the same plan) as
`COPY (...) TO STDOUT (FORMAT csv)` on the same connection, every byte read; wall time.
Rows: data lines of the CSV (the header line not counted).
"""
from __future__ import annotations

import statistics
import time
from datetime import timedelta

from benchmarks import db, plotdata
from benchmarks.core import Context, Measure

GOAL = 0.5


def _query(ids: list[int], **extra) -> dict:
    return {"s": ",".join(map(str, ids)), **extra}


def export(q: dict) -> tuple[float, int, int]:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from webapp.traffic import views

    request = RequestFactory().get("/traffic/export.csv", q)
    # The view as the access middleware hands it on (no middleware here): the stream cap counts
    # per user, or per address for an anonymous reader (CELLAR_ANONYMOUS_READ).
    request.user = AnonymousUser()
    t0 = time.perf_counter()
    response = views.export(request)
    if response.status_code != 200:
        raise RuntimeError(f"export answered {response.status_code}: {b''.join(response)[:300]!r}")
    lines = size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    return time.perf_counter() - t0, lines - 1, size


def copy_reference(q: dict) -> tuple[float, int, int]:
    from django.db import connection, transaction
    from django.http import QueryDict

    from collector.reader import csvrows, reading, selection

    qd = QueryDict(mutable=True)
    qd.update(q)
    t0 = time.perf_counter()
    plan, _ = reading.resolve(selection.parse(qd), for_csv=True, res="raw" if q.get("raw") == "1" else None)
    sql, args = csvrows.sql_for(plan)
    lines = size = 0
    with transaction.atomic(), connection.cursor() as cur:
        with cur.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)", args) as copy:
            for data in copy:
                lines += bytes(data).count(b"\n")
                size += len(data)
    return time.perf_counter() - t0, lines, size


def _measure(ctx: Context, key: str, title: str, q: dict) -> Measure:
    export(q)
    copy_reference(q)
    cellar, ref, ratio = [], [], []
    rows = ref_rows = size = 0
    for r in range(ctx.runs):
        wall, rows, size = export(q)
        rwall, ref_rows, _ = copy_reference(q)
        cellar.append(rows / wall)
        ref.append(ref_rows / rwall)
        ratio.append(cellar[-1] / ref[-1])
        ctx.log(f"  {key} run {r + 1}: export {rows:,} rows in {wall * 1000:.0f} ms, COPY {ref_rows:,} rows in "
                f"{rwall * 1000:.0f} ms")
    m = Measure(key, f"{title}: {rows:,} rows, {size / 1e6:.1f} MB", "rows/s", cellar, ref,
                "COPY (same query) TO STDOUT", ratio, "Cellar / COPY", f"ratio ≥ {GOAL}",
                met=statistics.median(ratio) >= GOAL)
    if rows != ref_rows:
        m.notes.append(f"row counts differ: export {rows:,}, COPY {ref_rows:,}")
    return m


def run(ctx: Context) -> list[Measure]:
    if "plotdata" not in ctx.cache:
        db.empty_traffic(ctx)
    data = plotdata.ensure(ctx)
    port = [data.in_ids[0], data.out_ids[0]]
    start = (data.raw_from + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (data.now - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return [
        _measure(ctx, "4a", "CSV of raw samples, one port (receive + transmit)", _query(port, start=start, end=end,
                                                                                       raw="1")),
        _measure(ctx, "4b", "CSV at 15-minute resolution, one port, 1 year", _query(port, range="1y", res="15m")),
    ]
