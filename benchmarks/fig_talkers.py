"""Figure 11: top talkers of 100,000 series over 30 days, server time (goal: under 2 s).

Data (--smoke: 200 series): 2,000 switches of 25 ports, 50 port series each (Port and Series rows
by bulk_create, profile if-mib, no raw samples: a ranking never reads them in bulk). Rates follow a heavy tail,
as real networks' do (rate of the series of rank k ~ k^-1.5, capped at line rate, a daily
variation, peaks 1.6x the day's average). The 1-day tier holds 30 days of every series (what a
30-day ranking of 100,000 series reads); the 15-minute tier holds the 500 busiest series (the
plots' 95th-percentile resolution for 30 days, read only for the series whose peak could rank:
the figure checks that every percentile it needed was there). Watermarks at the end of the data.
Cellar: webapp/talkers/ranking.build for the whole network (the page's, the API's and the CSV's
work: scope count, tier plan, one aggregate per series, the ranking and the other row, the labels
of the rows), by average (11a), by peak (11b) and by the exact 95th percentile (11c), top 10, wall.
Reference: the bare aggregate a ranking cannot do without, on the same connection: `SELECT
series_id, sum(sum_delta), sum(sum_interval_ms), max(max_rate) FROM traffic_rollup_1d WHERE
bucket in the 30 days GROUP BY series_id`, wall.
Goal: under 2 s.
"""
from __future__ import annotations

import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from benchmarks import db
from benchmarks.core import Context, Measure
from benchmarks.gen import ip_network

if TYPE_CHECKING:
    from webapp.talkers.ranking import Ranking

GOAL_S = 2.0
DAYS = 30
PER_SWITCH = 50
P95_SERIES = 500


def build(ctx: Context) -> tuple[datetime, datetime, int]:
    from django.db import connection

    from collector.archive.models import Series
    from collector.inventory.models import Switch

    n_switches = ctx.size(4, 2000)
    t0 = time.monotonic()
    Switch.objects.all().delete()             # a network of this figure's series only
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        now = cur.fetchone()[0]
    end = datetime(now.year, now.month, now.day, tzinfo=UTC)
    start = end - timedelta(days=DAYS)
    switches = ip_network("tt", n_switches, PER_SWITCH, enabled=False)
    ids = sorted(Series.objects.filter(switch__in=switches).values_list("id", flat=True))
    n = len(ids)
    # Rank k (1-based, a fixed shuffle of the ids) carries ~k^-1.5 of the busiest: a heavy tail.
    rate = "least(1.2e8, 1.0e8 * power((r.k)::float8, -1.5) + 1000)"
    ranks = """(SELECT id, row_number() OVER (ORDER BY (id::bigint * 2654435761) %% 4294967296) AS k
                FROM unnest(%(ids)s::int[]) AS id) r"""
    rows = {}
    with connection.cursor() as cur:
        cur.execute(f"""
INSERT INTO traffic_rollup_1d (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)
SELECT b, r.id, ({rate} * (0.8 + 0.4 * ((r.id + extract(day FROM b)::int) %% 7) / 7.0) * 86400)::bigint,
       86400000, {rate} * 1.6, {rate} * 0.2, 5760, 0
FROM {ranks} CROSS JOIN generate_series(%(lo)s::timestamptz, %(hi)s::timestamptz - interval '1 day',
                                        interval '1 day') AS b""", {"ids": ids, "lo": start, "hi": end})
        rows["1d"] = cur.rowcount
        cur.execute(f"""
INSERT INTO traffic_rollup_15m (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)
SELECT b, r.id, ({rate} * (0.6 + 0.5 * sin(2 * pi() * extract(epoch FROM b) / 86400)) * 900)::bigint, 900000,
       {rate} * 1.6, {rate} * 0.2, 60, 0
FROM {ranks} CROSS JOIN generate_series(%(lo)s::timestamptz, %(hi)s::timestamptz - interval '15 minutes',
                                        interval '15 minutes') AS b
WHERE r.k <= %(top)s""", {"ids": ids, "lo": start, "hi": end, "top": min(P95_SERIES, n)})
        rows["15m"] = cur.rowcount
        for tier in ("1m", "15m", "1h", "1d"):
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES (%s, %s, now()) "
                        "ON CONFLICT (tier) DO UPDATE SET done_until = EXCLUDED.done_until", [tier, end])
        cur.execute("ANALYZE traffic_rollup_1d")
        cur.execute("ANALYZE traffic_rollup_15m")
        cur.execute("ANALYZE traffic_series")
    ctx.log(f"  talkers data: {n:,} series, {rows} tier rows in {time.monotonic() - t0:.0f} s")
    ctx.info["11 data"] = {"series": n, "days": DAYS, "tier_rows": rows, "p95_tier_series": min(P95_SERIES, n)}
    return start, end, n


def cellar(start: datetime, end: datetime, by: str) -> tuple[float, Ranking]:
    from webapp.talkers import params, ranking

    req = params.TalkersRequest(range="custom", start=start, end=end, by=by, n=10)
    t0 = time.perf_counter()
    r = ranking.build(req)
    return time.perf_counter() - t0, r


def reference(start: datetime, end: datetime) -> tuple[float, int]:
    from django.db import connection

    t0 = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute("SELECT series_id, sum(sum_delta), sum(sum_interval_ms), max(max_rate) FROM traffic_rollup_1d "
                    "WHERE bucket >= %s AND bucket < %s GROUP BY series_id", [start, end])
        n = len(cur.fetchall())
    return time.perf_counter() - t0, n


def run(ctx: Context) -> list[Measure]:
    db.empty_traffic()
    start, end, n = build(ctx)
    cellar(start, end, "average")
    reference(start, end)
    out = []
    for key, by in (("11a", "average"), ("11b", "peak"), ("11c", "p95")):
        walls, refs, ratios = [], [], []
        last: Ranking | None = None
        for i in range(ctx.runs):
            wall, r = cellar(start, end, by)
            rwall, ref_rows = reference(start, end)
            if r.in_scope != n or r.ranked != n or ref_rows != n or len(r.rows) != min(10, n):
                raise RuntimeError(f"{by}: scope {r.in_scope}, ranked {r.ranked}, reference {ref_rows}, series {n}")
            if by == "p95" and any(row.p95 is None for row in r.rows):
                raise RuntimeError("a percentile the ranking needed is missing from the 15-minute tier")
            walls.append(wall)
            refs.append(rwall)
            ratios.append(wall / rwall)
            last = r
            ctx.log(f"  {key} run {i + 1}: by {by} {wall * 1000:.0f} ms ({last.plan.text}), bare aggregate "
                    f"{rwall * 1000:.0f} ms")
        if last is None:
            raise RuntimeError("no run measured (ctx.runs is 0)")
        m = Measure(key, f"Top talkers by {by}: {n:,} series over {DAYS} days, whole network, top 10 and the "
                         "other row", "s", walls, refs, "bare GROUP BY over the 1d tier", ratios,
                    "Cellar / bare aggregate", f"< {GOAL_S:g} s", met=statistics.median(walls) < GOAL_S,
                    higher_is_better=False)
        m.notes.append(f"tiers read: {last.plan.text}" + (f"; 95th percentiles computed for {last.p95_computed} "
                                                           f"series ({last.p95_basis})" if by == "p95" else ""))
        out.append(m)
    return out
