"""Figure 3: the plot data of a year of 15-second samples, against a bare select of its points.

Data: benchmarks/plotdata.py (one 48-port switch; tiers for a year, raw samples for 2 days).
Cellar: the traffic app's JSON view as the page calls it (webapp/traffic/views.data with
`range=1y&figure=1`, through Django's RequestFactory, no HTTP): plan, tier and tail queries,
95th percentile, gaps and their poll-log reasons, statistics, the plotly figure, JSON encoding.
Wall time in this process (the database's time included).
Reference: `SELECT bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged FROM
<the tier the view used> WHERE series_id = ANY(...) AND bucket >= start AND bucket < end ORDER BY
series_id, bucket` over the view's start/end, fetched with a plain psycopg connection and a binary
cursor (the fastest plain client; Django's cursor converts timestamptz 3x slower), wall time.
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


def view(ids: list[int], rng: str = "1y") -> tuple[float, dict]:
    from django.test import RequestFactory

    from webapp.traffic import views

    request = RequestFactory().get("/traffic/api/data", {"s": ",".join(map(str, ids)), "range": rng, "figure": "1"})
    t0 = time.perf_counter()
    response = views.data(request)
    content = response.content
    wall = time.perf_counter() - t0
    if response.status_code != 200:
        raise RuntimeError(f"plot view answered {response.status_code}: {content[:300]!r}")
    return wall, json.loads(content)


_raw_conn = None


def _conn():
    """A plain psycopg connection of its own: no Django cursor wrapper, no Django type loaders."""
    global _raw_conn
    import psycopg

    if _raw_conn is None or _raw_conn.closed:
        _raw_conn = psycopg.connect(os.environ["DATABASE_URL"],
                                    autocommit=True)
    return _raw_conn


def bare(ids: list[int], tier: str, start: str, end: str) -> tuple[float, int]:
    """The tier's rows of the plot, fetched the fastest plain way (psycopg, binary, C loaders)."""
    lo, hi = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
    conn = _conn()
    t0 = time.perf_counter()
    with conn.cursor(binary=True) as cur:
        cur.execute(f"SELECT bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged "
                    f"FROM traffic_rollup_{tier} WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s "
                    f"ORDER BY series_id, bucket", [ids, lo, hi])
        rows = cur.fetchall()
    return time.perf_counter() - t0, len(rows)


def explain_ms(ids: list[int], tier: str, start: str, end: str) -> float:
    lo, hi = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
    with _conn().cursor() as cur:
        cur.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT bucket, sum_delta, sum_interval_ms, max_rate, min_rate, "
                    f"samples, flagged FROM traffic_rollup_{tier} WHERE series_id = ANY(%s) AND bucket >= %s "
                    f"AND bucket < %s ORDER BY series_id, bucket", [ids, lo, hi])
        plan = cur.fetchone()[0][0]
    return plan["Planning Time"] + plan["Execution Time"]


def _measure(ctx: Context, key: str, title: str, ids: list[int]) -> Measure:
    _, body = view(ids)                 # warm-up: Django, plans, caches
    tier = body["resolution"]
    if tier == "raw":
        raise RuntimeError("a 1-year plot read raw samples: the tiers were not chosen")
    bare(ids, tier, body["start"], body["end"])
    cellar, ref, ratio = [], [], []
    points = rows = 0
    for r in range(ctx.runs):
        wall, body = view(ids)
        bwall, rows = bare(ids, tier, body["start"], body["end"])
        points = sum(len(s["points"]["t"]) for s in body["series"])
        cellar.append(wall * 1000)
        ref.append(bwall * 1000)
        ratio.append(wall / bwall)
        ctx.log(f"  {key} run {r + 1}: view {wall * 1000:.1f} ms ({points} points, server_ms "
                f"{body.get('server_ms')}), bare select {bwall * 1000:.1f} ms ({rows} rows)")
    m = Measure(key, f"{title}: range 1y, {len(ids)} series, tier {tier}, {points:,} points",
                "ms", cellar, ref, f"bare SELECT from traffic_rollup_{tier} ({rows:,} rows)", ratio,
                "Cellar / bare select", f"< {GOAL_MS:.0f} ms and ratio ≤ 2",
                met=statistics.median(cellar) < GOAL_MS and statistics.median(ratio) <= 2.0, higher_is_better=False)
    m.notes.append(f"95th percentile basis: {body['series'][0]['stats']['p95_basis']}; JSON "
                   f"{len(json.dumps(body)) / 1024:,.0f} KiB; the bare select's planning + execution in the "
                   f"server: {explain_ms(ids, tier, body['start'], body['end']):.1f} ms (the rest of its time is "
                   f"transfer and conversion in the client)")
    return m


def run(ctx: Context) -> list[Measure]:
    if "plotdata" not in ctx.cache:
        db.empty_traffic()
    data = plotdata.ensure(ctx)
    global _raw_conn
    try:
        return [_measure(ctx, "3a", "Plot of one port (receive + transmit octets)",
                         [data.in_ids[0], data.out_ids[0]]),
                _measure(ctx, "3b", "Plot of the 48 ports of a switch (receive octets)", data.in_ids)]
    finally:
        if _raw_conn is not None:
            _raw_conn.close()
            _raw_conn = None
