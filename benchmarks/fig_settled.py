"""Figure 17: reads of one day before and after it is settled into blocks, in one run.

Data: benchmarks/plotdata.py (a 48-port switch: 2 days of raw 15 s rows, a year of tiers, the
scaffolding rows of ~400 raw chunks). The day measured is the last whole UTC day of raw rows.
Each read is timed REPS times per run with the day as rows in traffic_sample ("before"); the
archive is then settled as the beat's task settles it (collector/archive/settle.run, the clock
moved past CELLAR_SETTLE_AFTER_HOURS: the bench switch's days become blocks; the scaffolding rows
belong to no switch with a layout, so they stay rows and keep their chunks), and the same reads
are timed again ("after"). The ratio of a run is
its after / before medians; goal: no read slower by more than 20 %.

- 17a: the raw-samples CSV of one port (receive + transmit) over the day, as the export view
  streams it (figure 4a's path): rows/s;
- 17b: the plot data of one port over 6 hours of the day at raw resolution (figure 3's view): ms;
- 17c: the analysis's read of one port over the day at raw resolution (figure 9a's path): ms;
- 17d: figure 3a (one port, a year, the 1-day tier and its live tail): ms; its reads never touch
  a settled day (the same ~400 raw chunks before and after).
The "after" state is left as it is: this figure runs last (benchmarks/run.py FIGURES).
"""
from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime, timedelta

from benchmarks import db, fig_csv, fig_plot, plotdata
from benchmarks.core import Context, Measure

GOAL = 1.2
REPS = 5


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _csv(port: list[int], day: datetime):
    q = {"s": ",".join(map(str, port)), "start": _iso(day), "end": _iso(day + timedelta(days=1)), "raw": "1"}

    def timed() -> tuple[float, int]:
        wall, rows, _ = fig_csv.export(q)
        return wall, rows
    return timed


def _plot(port: list[int], day: datetime):
    from django.test import RequestFactory

    from webapp.traffic import views

    q = {"s": ",".join(map(str, port)), "start": _iso(day + timedelta(hours=6)),
         "end": _iso(day + timedelta(hours=12)), "res": "raw", "figure": "1", "points": "0", "p95": "0"}

    def timed() -> tuple[float, int]:
        request = RequestFactory().get("/traffic/api/data", q)
        t0 = time.perf_counter()
        response = views.data(request)
        body = response.content
        wall = time.perf_counter() - t0
        if response.status_code != 200:
            raise RuntimeError(f"data view answered {response.status_code}: {body[:300]!r}")
        return wall, sum(s["n_points"] for s in json.loads(body)["series"])
    return timed


def _analysis_read(sid: int, day: datetime):
    from django.http import QueryDict

    from collector.analysis import selection, source
    from collector.reader import timelimits

    req = selection.parse(QueryDict(f"s={sid}&start={_iso(day)}&end={_iso(day + timedelta(days=1))}&res=raw"))

    def timed() -> tuple[float, int]:
        t0 = time.perf_counter()
        with timelimits.time_limited("analysis"):
            sampled = source.primary(req)
        return time.perf_counter() - t0, int(sampled.counts["points"])
    return timed


def _year_plot(port: list[int]):
    def timed() -> tuple[float, int]:
        wall, body = fig_plot.view(port)
        return wall, sum(s["n_points"] for s in body["series"])
    return timed


def _medians(ctx: Context, timed) -> tuple[list[float], int]:
    timed()                                  # warm-up: plans, caches
    out, size = [], 0
    for _ in range(ctx.runs):
        walls = []
        for _ in range(REPS):
            wall, size = timed()
            walls.append(wall)
        out.append(statistics.median(walls))
    return out, size


def _settle_all(ctx: Context, now: datetime) -> dict:
    from django.conf import settings

    from collector.archive import settle

    later = now + timedelta(hours=settings.CELLAR_SETTLE_AFTER_HOURS)
    t0 = time.monotonic()
    total = settle.SettleReport()
    for _ in range(1000):
        report = settle.run(budget_s=60, now=later)
        for k in ("switch_days", "rows", "readings", "bytes", "chunks_dropped"):
            setattr(total, k, getattr(total, k) + getattr(report, k))
        if report.caught_up:
            break
    summary = total.summary()
    summary["seconds"] = round(time.monotonic() - t0, 1)
    ctx.log(f"  17 settled: {summary}")
    return summary


def run(ctx: Context) -> list[Measure]:
    if "plotdata" not in ctx.cache:
        db.empty_traffic(ctx)
    data = plotdata.ensure(ctx)
    day = datetime.fromtimestamp(data.now.timestamp() // 86400 * 86400, tz=UTC) - timedelta(days=1)
    if day < data.raw_from:             # --smoke: an hour of raw rows; the hour before now's day
        day = data.raw_from
    port = [data.in_ids[0], data.out_ids[0]]
    reads = {"17a": ("Raw-samples CSV of one port over the settled day", "rows/s", _csv(port, day), True),
             "17b": ("Plot data of one port, 6 hours of the day at raw resolution", "ms", _plot(port, day), False),
             "17c": ("Analysis read of one port over the day at raw resolution", "ms",
                     _analysis_read(data.in_ids[0], day), False),
             "17d": ("Figure 3a: plot of one port over a year (1-day tier and live tail)", "ms", _year_plot(port),
                     False)}
    before = {key: _medians(ctx, timed) for key, (_, _, timed, _) in reads.items()}
    settled = _settle_all(ctx, data.now)
    out = []
    for key, (title, unit, timed, per_row) in reads.items():
        after, size = _medians(ctx, timed)
        b_walls, b_size = before[key]
        if size != b_size:
            raise RuntimeError(f"{key}: {b_size} rows before settling, {size} after")
        cellar = [size / w for w in after] if per_row else [w * 1000 for w in after]
        ref = [size / w for w in b_walls] if per_row else [w * 1000 for w in b_walls]
        ratio = [a / b for a, b in zip(after, b_walls, strict=True)]       # time after / time before
        for r in range(ctx.runs):
            ctx.log(f"  {key} run {r + 1}: before {b_walls[r] * 1000:.1f} ms, after {after[r] * 1000:.1f} ms "
                    f"({size:,} {'rows' if per_row else 'points'}), median of {REPS}")
        m = Measure(key, f"{title}: {size:,} {'rows' if per_row else 'points'}", unit, cellar, ref,
                    "the same read before settling", ratio, "time after / time before", f"ratio ≤ {GOAL}",
                    met=statistics.median(ratio) <= GOAL, higher_is_better=per_row)
        out.append(m)
    out[0].notes.append(f"settled in one pass: {settled['switch_days']} switch-days, {settled['rows']:,} rows, "
                        f"{settled['bytes'] / max(1, settled['readings']):.2f} block bytes per reading, "
                        f"{settled['chunks_dropped']} emptied chunks dropped, {settled['seconds']} s")
    ctx.info["17"] = {"day": day.isoformat(), "settled": settled}
    return out
