"""A year of data for the plot (3) and CSV (4) figures: one 48-port IP switch, polled every 15 s.

What is generated, exactly (sizes for the full run; --smoke uses a week and an hour):
- switch `bench-plot48` (profile if-mib) with 48 ports (Port rows as discovery makes them:
  ifIndex keys, 1 Gb/s, 10 Gb/s for 47-48), its 432 series (8 counters + the discontinuity time
  per port) and layout made by collector/ingest from a first poll;
- raw samples for the last RAW_DAYS days: one row every 15 s with all 432 values, derived by
  Cellar (benchmarks/gen.py) and written by collector/writer.write_samples;
- rollup tiers for the 96 octet series (ifHCInOctets, ifHCOutOctets of each port), with SQL
  generate_series, traffic following a daily cycle with noise: 1d, 1h and 15m buckets for the
  whole year (366 days), 1m buckets for the last 7 days (1 day with --smoke); the other counters
  (packets, errors, discards) have no tier rows (they are not plotted here);
- one scaffolding row per chunk interval in every hypertable, so that each has the chunks of
  the default retention (scaffold_chunks: ~400 raw chunks, not 2);
- watermarks as a rollup running behind the clock leaves them: 1m at now - 3 min, 15m/1h/1d at
  the last boundary their source tier covers; so a plot reads its tier, then a short tail of the
  finer tiers and raw samples, as it would on a live system.
A 1-year plot of a port reads the 1d tier (2,000 points at most per series: CELLAR_PLOT_MAX_POINTS)
and its 95th percentile the 1h tier.
"""
from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from benchmarks import gen
from benchmarks.core import Context

NAME = "bench-plot48"
TIERS = (("1d", 86400), ("1h", 3600), ("15m", 900), ("1m", 60))


def _floor(t: datetime, seconds: int) -> datetime:
    return datetime.fromtimestamp(int(t.timestamp() // seconds) * seconds, tz=UTC)


class PlotData:
    def __init__(self, switch_id: int, in_ids: list[int], out_ids: list[int], now: datetime, raw_from: datetime):
        self.switch_id = switch_id
        self.in_ids = in_ids          # ifHCInOctets series of ports 1..48
        self.out_ids = out_ids
        self.now = now
        self.raw_from = raw_from


# Scaffolding rows stand for other switches and series: switch id 0 and series id 0 exist in no
# inventory (the hypertables have no foreign keys), so no plot or export of the bench switch reads them.
SCAFFOLD_ID = 0
SCAFFOLD_TABLES = (("traffic_sample", "raw"), ("traffic_rollup_1m", "1m"), ("traffic_rollup_15m", "15m"),
                   ("traffic_rollup_1h", "1h"), ("traffic_rollup_1d", "1d"))


def scaffold_chunks(cur, now: datetime) -> dict[str, int]:
    """Give every hypertable the chunks a live system has under the default retention (raw 400
    days of 1-day chunks, 1m 7 days, 15m 90 days, 1h two years, 1d five years; 0 = forever
    counts as five years): one row per chunk interval. Planning, locking and chunk exclusion cost
    per chunk, so a plot measured over two days of raw chunks would look faster than it is.
    Returns the number of chunks of each table afterwards."""
    from collector.archive import rollup

    days = rollup.retention_days()
    out = {}
    for table, key in SCAFFOLD_TABLES:
        cur.execute("SELECT extract(epoch FROM time_interval) FROM timescaledb_information.dimensions "
                    "WHERE hypertable_name = %s", [table])
        step = timedelta(seconds=float(cur.fetchone()[0]))
        span = timedelta(days=days[key] or 1830)
        times = [now - k * step for k in range(int(span / step) + 1)]
        if table == "traffic_sample":
            cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                        "flags) SELECT t, s.uptime_cs, %s, s.layout_id, s.interval_ms, s.raw, s.delta, s.flags "
                        "FROM unnest(%s::timestamptz[]) t, (SELECT * FROM traffic_sample ORDER BY time LIMIT 1) s "
                        "ON CONFLICT DO NOTHING", [SCAFFOLD_ID, times])
        else:
            cur.execute(f"INSERT INTO {table} (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, "
                        "samples, flagged) SELECT date_trunc('minute', t), %s, 0, 60000, 0, 0, 1, 0 "
                        "FROM unnest(%s::timestamptz[]) t ON CONFLICT DO NOTHING", [SCAFFOLD_ID, times])
        cur.execute("SELECT count(*) FROM timescaledb_information.chunks WHERE hypertable_name = %s", [table])
        out[key] = cur.fetchone()[0]
    return out


def ensure(ctx: Context) -> PlotData:
    got = ctx.cache.get("plotdata")
    if got is not None:
        return got
    from django.db import connection

    from collector.archive import writer
    from collector.archive.models import Series
    from collector.inventory.models import Port

    t_start = time.monotonic()
    raw_days = ctx.size(1 / 24, 2)
    year = ctx.size(7, 366)
    m1_days = ctx.size(1, 7)
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        now = cur.fetchone()[0]
    profile, counters, disc = gen.counters_of("ipsw48")
    switch = gen.make_switch(NAME, profile)
    for n in range(1, 49):
        Port.objects.update_or_create(switch=switch, key=str(n), defaults={
            "if_index": n, "name": f"Gi1/0/{n}" if n < 47 else f"Te1/1/{n - 46}", "port_type": "ethernet",
            "speed_bps": 10_000_000_000 if n >= 47 else 1_000_000_000, "oper_status": "up", "admin_status": "up"})
    raw_from = now - timedelta(days=raw_days)
    g = gen.Generator(switch, profile, counters, disc, start=raw_from.timestamp(), seed=3)
    n_rows = int(raw_days * 86400 / 15)
    batch = []
    for _ in range(n_rows):
        batch.append(g.next_row())
        if len(batch) >= 1000:
            writer.write_samples(batch)
            batch = []
    if batch:
        writer.write_samples(batch)
    ids = {(s.object_name, s.index): s.id for s in Series.objects.filter(switch=switch)}
    in_ids = [ids[("ifHCInOctets", str(n))] for n in range(1, 49)]
    out_ids = [ids[("ifHCOutOctets", str(n))] for n in range(1, 49)]
    speeds = [1.25e8 if n < 47 else 1.25e9 for n in range(1, 49)]
    load = [0.05 + 0.6 * ((n * 29) % 71) / 71 for n in range(1, 49)]
    # watermarks: the 1m tier 3 minutes behind now, each coarser tier at the last boundary below
    wm = {"1m": _floor(now, 60) - timedelta(minutes=3)}
    wm["15m"] = _floor(wm["1m"], 900)
    wm["1h"] = _floor(wm["15m"], 3600)
    wm["1d"] = _floor(wm["1h"], 86400)
    start = {"1d": _floor(now - timedelta(days=year), 86400), "1h": _floor(now - timedelta(days=year), 3600),
             "15m": _floor(now - timedelta(days=year), 900), "1m": _floor(now - timedelta(days=m1_days), 60)}
    rows = {}
    with connection.cursor() as cur:
        for tier, width in TIERS:
            cur.execute(f"""
INSERT INTO traffic_rollup_{tier} (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)
SELECT b, s.id, (s.cap * s.load * x.f * {width})::bigint, {width * 1000}::bigint,
       s.cap * s.load * x.f * (1.1 + random() * 0.5), s.cap * s.load * x.f * (0.3 + random() * 0.4),
       {max(1, width // 15)}, (random() < 0.002)::int
FROM unnest(%(ids)s::int[], %(cap)s::float8[], %(load)s::float8[]) AS s(id, cap, load)
CROSS JOIN generate_series(%(lo)s::timestamptz, %(hi)s::timestamptz - interval '{width} seconds',
                           interval '{width} seconds') AS b
CROSS JOIN LATERAL (SELECT (0.65 + 0.35 * sin(2 * pi() * extract(epoch FROM b) / 86400))
                           * (0.85 + random() * 0.3) AS f) x""",
                        {"ids": in_ids + out_ids, "cap": speeds * 2, "load": load + [v * 0.8 for v in load],
                         "lo": start[tier], "hi": wm[tier]})
            rows[tier] = cur.rowcount
        for tier, t in wm.items():
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until) VALUES (%s, %s) "
                        "ON CONFLICT (tier) DO UPDATE SET done_until = EXCLUDED.done_until", [tier, t])
        scaffold = scaffold_chunks(cur, now)
        for tier, _ in TIERS:
            cur.execute(f"ANALYZE traffic_rollup_{tier}")
        cur.execute("ANALYZE traffic_sample")
    data = PlotData(switch.id, in_ids, out_ids, now, raw_from)
    ctx.cache["plotdata"] = data
    ctx.info["3-4 data"] = {"chunks": scaffold, "raw_rows": n_rows, "raw_values_per_row": len(g.series_ids),
                            "raw_days": round(raw_days, 3), "tier_rows": rows, "tier_series": 96,
                            "tiers_days": {"1d": year, "1h": year, "15m": year, "1m": m1_days},
                            "generated_s": round(time.monotonic() - t_start, 1)}
    ctx.log(f"  plot data: {n_rows} raw rows, tier rows {rows} in {time.monotonic() - t_start:.0f} s")
    return data
