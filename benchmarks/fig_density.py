"""Figure 20: raw readings settled over a whole day, on disk, by kind of traffic.

Figure 16b settles ten minutes, where every block's fixed costs weigh; an archive settles whole UTC
days. Here a day of 15 s polls (--smoke: two hours) of simnet's asx200bx (the FORE simulator) and
ipsw48 (48-port IP switch) is derived by Cellar and written as the poller writes it
(benchmarks/gen.py), once with realistic traffic (figure 5's: daily cycle, lognormal noise, idle
ports) and once with every counter at a constant rate (simnet.swarm's counters, base + rate x t: the
deltas vary only with the poll clock's jitter), plus one poll of the next day so that the day's last
row is not the switch's newest. Each switch's day is then settled by Cellar's own
collector/archive/settle.settle_switch_day, what `cellar.settle` does once the day is
CELLAR_SETTLE_AFTER_HOURS old.

Cellar: the bytes the settled tables gained (hypertable_size of traffic_settled_poll and
traffic_settled_series: heap, TOAST, indexes, every page), over the readings that left
traffic_sample (every element of the settled rows' raw arrays, discontinuity times included).
Reference: those readings as rows in traffic_sample before settling (hypertable_size, VACUUMed), per
reading. Goals (issue 32): <= 1.5 bytes a reading on realistic traffic, <= 1 on the swarm's.
"""
from __future__ import annotations

import statistics
from datetime import UTC, datetime

from benchmarks import db, gen
from benchmarks.core import Context, Measure

START = 1_767_225_600.0 + 86400 * 30      # 2026-01-31 00:00 UTC
GOALS = {"realistic": 1.5, "constant": 1.0}
SWITCHES = (("bench-day-fore", "asx200bx"), ("bench-day-ip48", "ipsw48"))
TABLES = ("traffic_settled_poll", "traffic_settled_series")


def _bytes(tables) -> int:
    from django.db import connection

    with connection.cursor() as cur:
        return sum(_one(cur, t) for t in tables)


def _one(cur, table: str) -> int:
    cur.execute("SELECT hypertable_size(%s)", [table])
    return int(cur.fetchone()[0] or 0)


def _day(ctx: Context, traffic: str, seed: int, hours: float) -> dict:
    from django.db import connection

    from collector.archive import settle, writer
    from collector.inventory.models import Switch

    db.empty_traffic(ctx)
    polls = int(hours * 3600 / 15) + 1
    ids = []
    for name, simnet_name in SWITCHES:
        Switch.objects.filter(name=name).delete()
        g = gen.generator(name, simnet_name, START, seed=seed + len(name), traffic=traffic)
        batch = []
        for _ in range(polls):
            batch.append(g.next_row())
            if len(batch) >= 500:
                writer.write_samples(batch)
                batch = []
        writer.write_samples(batch)
        ids.append(g.switch.id)
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE traffic_sample")
    rows_bytes = _bytes(("traffic_sample",))
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(sum(cardinality(raw)), 0) FROM traffic_sample")
        all_readings = int(cur.fetchone()[0])
    before = _bytes(TABLES)
    report = settle.SettleReport()
    day = datetime.fromtimestamp(START, tz=UTC)
    for sid in ids:
        settle.settle_switch_day(sid, day, report)
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE traffic_settled_poll")
        cur.execute("VACUUM ANALYZE traffic_settled_series")
    after = _bytes(TABLES)
    if report.readings <= 0 or report.switch_days != len(ids):
        raise RuntimeError(f"20: settled {report.switch_days} switch-days, {report.readings} readings")
    return {"disk": (after - before) / report.readings, "blocks": report.bytes / report.readings,
            "rows": rows_bytes / all_readings, "readings": report.readings, "polls": polls - 1,
            "day": day.isoformat()}


def run(ctx: Context) -> list[Measure]:
    hours = ctx.size(0.5, 24)
    out = []
    for key, traffic in (("20a", "realistic"), ("20b", "constant")):
        got = [_day(ctx, traffic, seed, hours) for seed in range(ctx.runs)]
        for r, g in enumerate(got):
            ctx.log(f"  {key} run {r + 1}: {g}")
        disk = [g["disk"] for g in got]
        rows = [g["rows"] for g in got]
        goal = GOALS[traffic]
        m = Measure(key, f"Settled raw readings on disk over a whole day, {traffic} traffic: {hours} h of 15 s polls "
                         f"of asx200bx and ipsw48 ({got[0]['readings']:,} readings), both settled tables' every page",
                    "bytes / reading", disk, rows, "the same readings as rows of traffic_sample",
                    [d / r for d, r in zip(disk, rows, strict=True)], "settled / rows", f"≤ {goal:g} B",
                    met=statistics.median(disk) <= goal, higher_is_better=False)
        m.notes.append(f"the blocks alone: {statistics.median([g['blocks'] for g in got]):.3f} bytes a reading")
        out.append(m)
        ctx.info[key] = got[0]
    return out
