"""Figure 3: the plot data of a year of 15-second samples, against a bare select of its points.

Data: benchmarks/plotdata.py (one 48-port switch; tiers for a year, raw samples for 2 days).
Cellar: the traffic app's JSON view as the page calls it (webapp/traffic/views.data with
`range=1y&figure=1&points=0&p95=0`, through Django's RequestFactory, no HTTP): series catalog,
plan, one statement for the tier and its live tail (finer tiers and raw samples up to now),
gaps, statistics, the plotly figure, JSON encoding. Wall time in this process (the database's
time included).
Reference: `SELECT bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged FROM
<the tier the view used> WHERE series_id = ANY(...) AND bucket >= start AND bucket < end ORDER BY
series_id, bucket` over the view's start/end, fetched with a plain psycopg connection and a binary
cursor (the fastest plain client; Django's cursor converts timestamptz 3x slower), wall time.
3c/3d: the 95th percentile the page asks for after drawing (views.p95: a year of 1-hour
averages per series), against a bare `percentile_cont(0.95)` of the same rates grouped by series.
Each run is the median of REPS calls of each side, interleaved (a 1 ms reference is noisy).
"""
from __future__ import annotations

import json
import os
import statistics
import time
from datetime import datetime

from benchmarks import db, plotdata
from benchmarks.core import Context, Measure

GOAL_MS = 100.0
REPS = 7


def view(ids: list[int], rng: str = "1y", name: str = "data") -> tuple[float, dict]:
    from django.test import RequestFactory

    from webapp.traffic import views

    query = {"s": ",".join(map(str, ids)), "range": rng}
    if name == "data":
        query.update(figure="1", points="0", p95="0")       # what the page asks for
    request = RequestFactory().get(f"/traffic/api/{name}", query)
    t0 = time.perf_counter()
    response = getattr(views, name)(request)
    content = response.content
    wall = time.perf_counter() - t0
    if response.status_code != 200:
        raise RuntimeError(f"{name} view answered {response.status_code}: {content[:300]!r}")
    return wall, json.loads(content)


_raw_conn = None


def plain_conn():
    """A plain psycopg connection of its own: no Django cursor wrapper, no Django type loaders."""
    global _raw_conn
    import psycopg

    if _raw_conn is None or _raw_conn.closed:
        _raw_conn = psycopg.connect(os.environ["DATABASE_URL"],
                                    autocommit=True)
    return _raw_conn


BARE_ROWS = ("SELECT bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged "
             "FROM traffic_rollup_{tier} "
             "WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s ORDER BY series_id, bucket")
BARE_P95 = ("SELECT series_id, percentile_cont(0.95) "
            "WITHIN GROUP (ORDER BY sum_delta::float8 * 1000 / sum_interval_ms) "
            "FROM traffic_rollup_{tier} WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s "
            "AND sum_interval_ms > 0 GROUP BY series_id")


def _timed(sql: str, ids: list[int], tier: str, start: str, end: str) -> tuple[float, int]:
    """Wall time of one statement over the view's [start, end), fetched the fastest plain way
    (psycopg, binary, C loaders), and its row count."""
    lo, hi = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
    conn = plain_conn()
    t0 = time.perf_counter()
    with conn.cursor(binary=True) as cur:
        cur.execute(sql.format(tier=tier), [ids, lo, hi])
        rows = cur.fetchall()
    return time.perf_counter() - t0, len(rows)


def bare(ids: list[int], tier: str, start: str, end: str) -> tuple[float, int]:
    """The tier's rows of the plot."""
    return _timed(BARE_ROWS, ids, tier, start, end)


def bare_p95(ids: list[int], tier: str, start: str, end: str) -> tuple[float, int]:
    """The 95th percentile of each series' bucket rates."""
    return _timed(BARE_P95, ids, tier, start, end)


def explain_ms(ids: list[int], tier: str, start: str, end: str) -> float:
    lo, hi = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
    with plain_conn().cursor() as cur:
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + BARE_ROWS.format(tier=tier), [ids, lo, hi])
        plan = cur.fetchone()[0][0]
    return plan["Planning Time"] + plan["Execution Time"]


def _pairs(ctx: Context, cellar, reference) -> tuple[list[float], list[float], list[float], dict, int]:
    """Per run: the median of REPS interleaved calls of each side (ms), and their ratio."""
    ours, ref, ratio = [], [], []
    body, rows = {}, 0
    for _ in range(ctx.runs):
        a, b = [], []
        for _ in range(REPS):
            wall, body = cellar()
            bwall, rows = reference(body)
            a.append(wall * 1000)
            b.append(bwall * 1000)
        ours.append(statistics.median(a))
        ref.append(statistics.median(b))
        ratio.append(ours[-1] / ref[-1])
    return ours, ref, ratio, body, rows


def _measure(ctx: Context, key: str, title: str, ids: list[int]) -> Measure:
    _, body = view(ids)                 # warm-up: Django, plans, caches
    tier = body["resolution"]
    if tier == "raw":
        raise RuntimeError("a 1-year plot read raw samples: the tiers were not chosen")
    bare(ids, tier, body["start"], body["end"])
    cellar, ref, ratio, body, rows = _pairs(ctx, lambda: view(ids),
                                            lambda b: bare(ids, tier, b["start"], b["end"]))
    points = sum(s["n_points"] for s in body["series"])
    for r in range(ctx.runs):
        ctx.log(f"  {key} run {r + 1}: view {cellar[r]:.2f} ms ({points} points), bare select {ref[r]:.2f} ms "
                f"({rows} rows), median of {REPS}")
    m = Measure(key, f"{title}: range 1y, {len(ids)} series, tier {tier}, {points:,} points",
                "ms", cellar, ref, f"bare SELECT from traffic_rollup_{tier} ({rows:,} rows)", ratio,
                "Cellar / bare select", f"< {GOAL_MS:.0f} ms and ratio ≤ 2",
                met=statistics.median(cellar) < GOAL_MS and statistics.median(ratio) <= 2.0, higher_is_better=False)
    m.notes.append(f"JSON {len(json.dumps(body)) / 1024:,.0f} KiB; the bare select's planning + execution in the "
                   f"server: {explain_ms(ids, tier, body['start'], body['end']):.1f} ms (the rest of its time is "
                   f"transfer and conversion in the client)")
    return m


def _measure_p95(ctx: Context, key: str, title: str, ids: list[int]) -> Measure:
    _, body = view(ids, name="p95")
    tier = body["p95_basis"]
    cellar, ref, ratio, body, rows = _pairs(ctx, lambda: view(ids, name="p95"),
                                            lambda b: bare_p95(ids, tier, b["start"], b["end"]))
    return Measure(key, f"{title}: range 1y, {len(ids)} series, over tier {tier}", "ms", cellar, ref,
                   f"bare percentile_cont over traffic_rollup_{tier} ({rows} series)", ratio,
                   "Cellar / bare select", "reported (asked after the plot is drawn)", met=None,
                   higher_is_better=False)


def run(ctx: Context) -> list[Measure]:
    if "plotdata" not in ctx.cache:
        db.empty_traffic(ctx)
    data = plotdata.ensure(ctx)
    global _raw_conn
    one, all48 = [data.in_ids[0], data.out_ids[0]], data.in_ids
    try:
        return [_measure(ctx, "3a", "Plot of one port (receive + transmit octets)", one),
                _measure(ctx, "3b", "Plot of the 48 ports of a switch (receive octets)", all48),
                _measure_p95(ctx, "3c", "95th percentile of one port (receive + transmit)", one),
                _measure_p95(ctx, "3d", "95th percentile of the 48 ports of a switch", all48)]
    finally:
        if _raw_conn is not None:
            _raw_conn.close()
            _raw_conn = None
