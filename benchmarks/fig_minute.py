"""Figure 19: the 1-minute rollup step of one minute of polls at 100,000 ports, the step the beat
runs every minute (rollup.execute of a forward step: read the minute's sample rows, reduce each
switch's polls, write the buckets), against writing those same buckets with psql's COPY.

Data, made in SQL: ports / 48 IP switches of 48 ports, each port with the 9 counters of Cellar's
if-mib profile and its discontinuity time (a series of another kind, left out of the tiers), polled
4 times in the minute at 15 s with a phase per switch and jittered intervals, deltas random
(CELLAR_BENCH_MINUTE_PORTS, default 100,000; --smoke 2,400). Per run the tier's rows of the minute
are deleted and the 1-minute watermark put back to the minute's start, so each run is the same
forward step.

Reference: `psql -c "\\copy traffic_rollup_1m ... FROM file (FORMAT binary)"` of the rows the step
wrote (exported once, sorted by series), into the emptied table: what putting these buckets into the
tier costs at least. The ratio is the step's wall time over the COPY's. Goal (issue 32): the step
under 10 % of the minute, 6 s, at 100,000 ports on a loaded machine; this figure runs it alone, so
its time is a floor of figure 6g's (the poller beside it takes a core).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import time
from datetime import UTC, datetime, timedelta

from benchmarks import db
from benchmarks.core import Context, Measure

GOAL_S = 6.0
COUNTERS = ("ifHCInOctets", "ifHCOutOctets", "ifHCInUcastPkts", "ifHCOutUcastPkts", "ifInDiscards",
            "ifOutDiscards", "ifInErrors", "ifOutErrors", "ifInUnknownProtos")
MINUTE = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OTHER_KIND = "discontinuity"      # a port's discontinuity time: not a counter, no tier row


def _make(ctx: Context, ports: int) -> dict:
    from django.db import connection

    from collector.inventory.models import Switch

    switches = max(1, ports // 48)
    t0 = time.monotonic()
    db.empty_traffic(ctx)
    with connection.cursor() as cur:
        _remove(cur)
    # through the model: its secrets are stored encrypted, as every later reader expects
    Switch.objects.bulk_create([Switch(name=f"bench-minute-{i}", address="127.0.0.1", community="bench",
                                       profile="if-mib", poll_interval_s=15, enabled=False)
                                for i in range(1, switches + 1)], batch_size=2000)
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO traffic_series (object_name, index, kind, direction, metric, unit, width, first_seen, "
            "switch_id) SELECT o.name, p::text, CASE WHEN o.k = 1 THEN %s ELSE 'counter' END, "
            "'in', 'octets', 'octets', 64, now(), s.id FROM inventory_switch s, generate_series(1, 48) p, "
            "unnest(%s::text[]) WITH ORDINALITY o(name, k) "
            "WHERE s.name LIKE 'bench-minute-%%' ORDER BY s.id, p, o.k",
            [OTHER_KIND, ["ifCounterDiscontinuityTime", *COUNTERS]])
        cur.execute("INSERT INTO traffic_layout (series_ids, digest, created_at, switch_id) "
                    "SELECT array_agg(se.id ORDER BY se.id), md5(se.switch_id::text), now(), se.switch_id "
                    "FROM traffic_series se JOIN inventory_switch s ON s.id = se.switch_id "
                    "WHERE s.name LIKE 'bench-minute-%%' GROUP BY se.switch_id")
        cur.execute(
            "INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags) "
            "SELECT %s::timestamptz + make_interval(secs => k * 15 + (l.switch_id %% 15) + random()), 1000, "
            "l.switch_id, l.id, 15000 + (random() * 400)::int - 200, "
            "(SELECT array_agg((random() * 1e12)::bigint) FROM unnest(l.series_ids)), "
            "(SELECT array_agg((random() * random() * 1e9)::bigint) FROM unnest(l.series_ids)), "
            "array_fill(0::smallint, ARRAY[cardinality(l.series_ids)]) "
            "FROM traffic_layout l JOIN inventory_switch s ON s.id = l.switch_id, generate_series(0, 3) k "
            "WHERE s.name LIKE 'bench-minute-%%'", [MINUTE])
        cur.execute("ANALYZE traffic_sample")
        cur.execute("ANALYZE traffic_series")
        cur.execute("SELECT count(*), sum(cardinality(delta)) FROM traffic_sample")
        rows, values = cur.fetchone()
    info = {"switches": switches, "ports": switches * 48, "sample_rows": rows, "values": int(values),
            "counters": switches * 48 * len(COUNTERS), "made_s": round(time.monotonic() - t0, 1)}
    ctx.log(f"  19: {info}")
    return info


def _step() -> float:
    from django.db import connection

    from collector.archive import rollup
    from collector.archive.rollup_plan import Step

    with connection.cursor() as cur:
        cur.execute("DELETE FROM traffic_rollup_1m WHERE bucket >= %s", [MINUTE])
        cur.execute("DELETE FROM traffic_rollup_watermark WHERE tier = '1m'")
        cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES ('1m', %s, now())",
                    [MINUTE])
    t0 = time.perf_counter()
    rollup.execute(Step("1m", MINUTE, MINUTE + timedelta(minutes=1)))
    return time.perf_counter() - t0


def _copy_reference(ctx: Context, path: str) -> float:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("DELETE FROM traffic_rollup_1m WHERE bucket >= %s", [MINUTE])
    cols = "bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged"
    t0 = time.perf_counter()
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", ctx.db_url, "-c",
                    f"\\copy traffic_rollup_1m ({cols}) FROM '{path}' (FORMAT binary)"], check=True, timeout=600)
    return time.perf_counter() - t0


def run(ctx: Context) -> list[Measure]:
    from django.db import connection

    ports = int(os.environ.get("CELLAR_BENCH_MINUTE_PORTS") or ctx.size(2400, 100_000))
    info = _make(ctx, ports)
    try:
        return _measure(ctx, info)
    finally:                    # a million series are no later figure's network
        db.empty_traffic(ctx)
        with connection.cursor() as cur:
            _remove(cur)


def _remove(cur) -> None:
    for table in ("traffic_layout", "traffic_series"):
        cur.execute(f"DELETE FROM {table} WHERE switch_id IN (SELECT id FROM inventory_switch "
                    "WHERE name LIKE 'bench-minute-%%')")
    cur.execute("DELETE FROM inventory_switch WHERE name LIKE 'bench-minute-%%'")


def _measure(ctx: Context, info: dict) -> list[Measure]:
    from django.db import connection

    steps, copies = [], []
    path = str(ctx.work / "minute.bin")
    for r in range(ctx.runs):
        steps.append(_step())
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM traffic_rollup_1m WHERE bucket >= %s", [MINUTE])
            written = cur.fetchone()[0]
        if written != info["counters"]:
            raise RuntimeError(f"19: the step wrote {written} buckets, {info['counters']} counters were polled")
        if r == 0:
            with open(path, "wb") as f, connection.cursor() as cur:
                with cur.copy("COPY (SELECT bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, "
                              "samples, flagged FROM traffic_rollup_1m WHERE bucket >= %s ORDER BY series_id) "
                              "TO STDOUT (FORMAT binary)", [MINUTE]) as copy:
                    for chunk in copy:
                        f.write(chunk)
        copies.append(_copy_reference(ctx, path))
        ctx.log(f"  19 run {r + 1}: step {steps[-1]:.2f} s, COPY of its {written:,} buckets {copies[-1]:.2f} s")
    ratio = [s / c for s, c in zip(steps, copies, strict=True)]
    m = Measure("19", f"1-minute rollup step of one minute at {info['ports']:,} ports ({info['switches']:,} switches, "
                      f"{info['sample_rows']:,} sample rows, {info['values']:,} values; {info['counters']:,} "
                      "counter buckets written)", "s", steps, copies, "psql \\copy of the same buckets (binary)",
                ratio, "step / COPY", f"< {GOAL_S:g} s (10 % of the minute)",
                met=statistics.median(steps) < GOAL_S, higher_is_better=False)
    m.notes.append(f"data made in {info['made_s']} s; the step runs alone here (figure 6g: beside the poller)")
    ctx.info["19"] = info
    return [m]
