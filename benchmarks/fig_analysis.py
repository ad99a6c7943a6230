"""Figure 9: a traffic analysis of a year of one port, against a bare select of its rows.

Data: benchmarks/plotdata.py (the plot figure's year of tiers of a 48-port switch).
Cellar: what the worker's task does (webapp/analysis/run.compute) for `s=<receive octets of port
1>&range=1y&res=15m`: the 15-minute tier (35,136 points; `auto` would read the 1-hour tier under
the default retentions), read through the plot's service with its live tail, usable points, the regular grid,
then the numerics (summary, ACF, spectrum, stationarity, four Hurst estimators with their two
parametric bootstraps), wall time in this process, split into reading (9a) and all of it (9b).
Reference: `SELECT bucket, sum_delta, sum_interval_ms FROM traffic_rollup_15m WHERE series_id = s
AND bucket in the window ORDER BY bucket` fetched with a plain binary psycopg cursor.
Goals: reading within 3x the bare select (the service also reads the tail, the clock and the
series); the whole analysis under 10 s on one core (it runs on the worker, with a progress bar).
"""
from __future__ import annotations

import statistics
import time

from benchmarks import db, plotdata
from benchmarks.core import Context, Measure
from benchmarks.fig_plot import BARE_ROWS, plain_conn

GOAL_READ_RATIO = 3.0
GOAL_TOTAL_S = 10.0


def _request(series_id: int):
    from django.http import QueryDict

    from collector.analysis import selection

    # The 15-minute tier named: its default retention (90 days) would send `auto` to the 1-hour tier, a
    # different measurement from the one this figure has always made.
    return selection.parse(QueryDict(f"s={series_id}&range=1y&res=15m"))


def run(ctx: Context) -> list[Measure]:
    from collector.analysis import run as analysis_run
    from collector.analysis import source
    from collector.reader import timelimits

    if "plotdata" not in ctx.cache:
        db.empty_traffic(ctx)
    data = plotdata.ensure(ctx)
    sid = data.in_ids[0]
    req = _request(sid)
    analysis_run.compute(req, lambda f, w: None)            # warm-up: imports, plans, caches
    read, total, ref, read_ratio, total_ratio = [], [], [], [], []
    result: dict = {}
    for r in range(ctx.runs):
        t0 = time.perf_counter()
        with timelimits.time_limited("analysis"):
            sampled = source.primary(req)
        t1 = time.perf_counter()
        result = analysis_run.compute(req, lambda f, w: None)
        t2 = time.perf_counter()
        with plain_conn().cursor(binary=True) as cur:
            t3 = time.perf_counter()
            cur.execute(BARE_ROWS.format(tier=sampled.res), [[sid], sampled.start, sampled.end])
            rows = cur.fetchall()
            t4 = time.perf_counter()
        read.append((t1 - t0) * 1000)
        total.append(t2 - t1)
        ref.append((t4 - t3) * 1000)
        read_ratio.append(read[-1] / ref[-1])
        total_ratio.append(total[-1] * 1000 / ref[-1])
        ctx.log(f"  9 run {r + 1}: read {read[-1]:.1f} ms ({sampled.counts['points']:,} points of {sampled.res}), "
                f"whole analysis {total[-1]:.2f} s, bare select {ref[-1]:.1f} ms ({len(rows):,} rows)")
    plain_conn().close()
    n = result["sampling"]["n"]
    a = Measure("9a", f"Analysis: reading a year of one port ({result['resolution_label']}, "
                f"{result['sampling']['counts']['points']:,} points)", "ms", read, ref,
                f"bare SELECT from traffic_rollup_{result['resolution']}", read_ratio, "Cellar / bare select",
                f"ratio ≤ {GOAL_READ_RATIO:g}", met=statistics.median(read_ratio) <= GOAL_READ_RATIO,
                higher_is_better=False)
    b = Measure("9b", f"Analysis: the whole task (read, grid, statistics, 4 Hurst estimators) of {n:,} samples",
                "s", total, [x / 1000 for x in ref], "the same bare SELECT", total_ratio, "Cellar / bare select",
                f"< {GOAL_TOTAL_S:g} s (on the worker)", met=statistics.median(total) < GOAL_TOTAL_S,
                higher_is_better=False)
    b.notes.append("the two parametric bootstraps (40 fGn series each) of aggregated variance and R/S take most "
                   "of it; docs/analysis.md gives the time per estimator")
    return [a, b]
