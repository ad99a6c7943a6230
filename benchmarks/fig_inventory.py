"""Figure 8: the data inventory (seed 002, table 15) of 10,000 series over a year, server time.

Data (--smoke: 200 series, 30 days): 200 switches of 50 port series each (Series rows made with
bulk_create, profile if-mib, no raw samples: the inventory never reads them); rollup tiers as a
rollup leaves them: the 1-day tier for the whole year, the 1-hour and 15-minute tiers for the
first and the last day, the 1-minute tier for the last hour (where the first/last refinement
reads); watermarks at the end of the data (no tail); one stored burst for every 20th series.
Cellar: webapp/datasets/service.build for the whole year (the page's, the API's and the CSV's
work: tier plan, aggregate, first/last refined to the finest tier, bursts, rows sorted), wall.
Reference: the bare aggregate the inventory cannot do without, on the same connection:
`SELECT series_id, min(bucket), max(bucket), sum(sum_delta), sum(samples), max(max_rate) FROM
traffic_rollup_1d WHERE bucket in the year GROUP BY series_id`, wall.
Goal: under 1 s of server time.
"""
from __future__ import annotations

import statistics
import time
from datetime import UTC, datetime, timedelta

from benchmarks import db
from benchmarks.core import Context, Measure

GOAL_S = 1.0


def _day(t: datetime) -> datetime:
    return datetime(t.year, t.month, t.day, tzinfo=UTC)


def build(ctx: Context) -> tuple[datetime, datetime, int]:
    from django.db import connection

    from collector.archive.models import Series
    from collector.bursts.models import Burst
    from collector.inventory.models import Switch

    n_switches, per_switch, days = ctx.size(4, 200), 50, ctx.size(30, 365)
    t0 = time.monotonic()
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        now = cur.fetchone()[0]
    end = _day(now)
    start = end - timedelta(days=days)
    Switch.objects.bulk_create([Switch(name=f"inv-{i:03d}", address="127.0.0.1", community="bench", profile="if-mib",
                                       poll_interval_s=15, enabled=False) for i in range(n_switches)])
    switches = list(Switch.objects.filter(name__startswith="inv-"))
    Series.objects.bulk_create([
        Series(switch=sw, object_name="ifHCInOctets" if k % 2 else "ifHCOutOctets", index=str(k // 2 + 1),
               kind="counter", direction="in" if k % 2 else "out", metric="octets", unit="octets", width=64,
               capacity_per_s=125_000_000) for sw in switches for k in range(per_switch)], batch_size=5000)
    ids = list(Series.objects.filter(switch__in=switches).values_list("id", flat=True))
    spans = {"1d": [(start, end)], "1h": [(start, start + timedelta(days=1)), (end - timedelta(days=1), end)],
             "15m": [(start, start + timedelta(days=1)), (end - timedelta(days=1), end)],
             "1m": [(end - timedelta(hours=1), end)]}
    widths = {"1d": 86400, "1h": 3600, "15m": 900, "1m": 60}
    rows = 0
    with connection.cursor() as cur:
        for tier, ranges in spans.items():
            w = widths[tier]
            for lo, hi in ranges:
                cur.execute(f"""
INSERT INTO traffic_rollup_{tier} (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)
SELECT b, s, (1e6 * (1 + s %% 7) * {w})::bigint, {w * 1000}, 1.5e6 * (1 + s %% 7), 0.5e6, {max(1, w // 15)}, 0
FROM unnest(%(ids)s::int[]) AS s CROSS JOIN generate_series(%(lo)s::timestamptz,
     %(hi)s::timestamptz - interval '{w} seconds', interval '{w} seconds') AS b""",
                            {"ids": ids, "lo": lo, "hi": hi})
                rows += cur.rowcount
        for tier in widths:
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until) VALUES (%s, %s) "
                        "ON CONFLICT (tier) DO UPDATE SET done_until = EXCLUDED.done_until", [tier, end])
            cur.execute(f"ANALYZE traffic_rollup_{tier}")
    Burst.objects.bulk_create([
        Burst(series_id=sid, day=(end - timedelta(days=3)).date(), start=end - timedelta(days=3, hours=-2),
              end=end - timedelta(days=3, hours=-3), peak=9e7, mean=8e7, volume=int(8e7 * 3600), points=60,
              rule_k=4, rule_capacity_pct=10, rule_min_s=60) for sid in ids[::20]])
    ctx.log(f"  inventory data: {len(ids):,} series, {rows:,} tier rows in {time.monotonic() - t0:.0f} s")
    ctx.info["8 data"] = {"series": len(ids), "days": days, "tier_rows": rows}
    return start, end, len(ids)


def cellar(start: datetime, end: datetime) -> tuple[float, int, str]:
    from webapp.datasets import service

    t0 = time.perf_counter()
    inv = service.build(service.Request(start=start, end=end))
    return time.perf_counter() - t0, len(inv.rows), inv.tiers_text


def reference(start: datetime, end: datetime) -> tuple[float, int]:
    from django.db import connection

    t0 = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute("SELECT series_id, min(bucket), max(bucket), sum(sum_delta), sum(samples), max(max_rate) "
                    "FROM traffic_rollup_1d WHERE bucket >= %s AND bucket < %s GROUP BY series_id", [start, end])
        n = len(cur.fetchall())
    return time.perf_counter() - t0, n


def run(ctx: Context) -> list[Measure]:
    db.empty_traffic(ctx)
    start, end, n = build(ctx)
    cellar(start, end)
    reference(start, end)
    walls, refs, ratios = [], [], []
    tiers = ""
    for r in range(ctx.runs):
        wall, rows, tiers = cellar(start, end)
        rwall, ref_rows = reference(start, end)
        if rows != n or ref_rows != n:
            raise RuntimeError(f"inventory has {rows} rows, the reference {ref_rows}, series {n}")
        walls.append(wall)
        refs.append(rwall)
        ratios.append(wall / rwall)
        ctx.log(f"  8 run {r + 1}: inventory {wall * 1000:.0f} ms ({tiers}), bare aggregate {rwall * 1000:.0f} ms")
    days = (end - start).days
    m = Measure("8", f"Data inventory: {n:,} series over {days} days (page/API/CSV rows, bursts, first/last "
                     "refined)", "s", walls, refs, "bare GROUP BY over the 1d tier", ratios,
                "Cellar / bare aggregate", f"< {GOAL_S:g} s", met=statistics.median(walls) < GOAL_S,
                higher_is_better=False)
    m.notes.append(f"tiers read: {tiers}")
    return [m]
