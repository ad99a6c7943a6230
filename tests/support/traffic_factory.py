"""Test data for the traffic tests, written through the real schema (no fixtures files).

Small cases are tables of rows (time offset, interval, deltas, flags) inserted as the collector's
writer would; big ones (a year of 15 s samples) are generated inside PostgreSQL with
generate_series, with a daily traffic shape so plots look like traffic.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from django.db import connection

from collector.archive.models import Layout, Series
from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath

OC3_CELLS = 353_207
# Midnight UTC ten days ago: inside every default retention, old enough to be final.
T0 = (datetime.now(UTC) - timedelta(days=10)).replace(hour=0, minute=0, second=0, microsecond=0)


def switch(name: str = "asx-test", poll: int = 15, profile: str = "fore-asx") -> Switch:
    return Switch.objects.create(name=name, address="127.0.0.1", community="public", profile=profile,
                                 detected_profile=profile if profile != "auto" else "", poll_interval_s=poll)


def port(sw: Switch, name: str = "A1", *, is_atm: bool = True, capacity_cells: int | None = OC3_CELLS,
         speed_bps: int | None = 155_520_000, label: str = "", key: str | None = None,
         port_type: str | None = None) -> Port:
    return Port.objects.create(switch=sw, key=key or name, name=name, label=label, is_atm=is_atm,
                               port_type=port_type or ("OC3" if is_atm else "ethernet"), capacity_cells=capacity_cells,
                               speed_bps=speed_bps, oper_status="up")


def vc(p: Port, vpi: int, vci: int) -> VirtualChannel:
    VirtualPath.objects.get_or_create(switch=p.switch, port=p, vpi=vpi)
    return VirtualChannel.objects.create(switch=p.switch, port=p, vpi=vpi, vci=vci, service_category="UBR")


def series(p: Port, direction: str = "in", *, metric: str = "cells", unit: str = "cells",
           channel: VirtualChannel | None = None, path: VirtualPath | None = None, width: int = 32,
           capacity: int | None = OC3_CELLS, object_name: str | None = None) -> Series:
    if object_name is None:
        object_name = {("in", "cells"): "portReceivedCells", ("out", "cells"): "portTransmittedCells",
                       ("in", "octets"): "ifHCInOctets", ("out", "octets"): "ifHCOutOctets"}.get(
            (direction, metric), f"{metric}_{direction}")
        if channel is not None:
            object_name = "chanCells" if direction == "in" else "vcShmem2TransmittedCells"
    index = p.key if channel is None else f"{p.key}.{channel.vpi}.{channel.vci}"
    if path is not None:
        index = f"{p.key}.{path.vpi}"
        object_name = "pathCells"
    return Series.objects.create(switch=p.switch, object_name=object_name, index=index, kind="counter", port=p,
                                 vc=channel, vp=path, direction=direction, metric=metric, unit=unit, width=width,
                                 capacity_per_s=capacity)


def layout(sw: Switch, members: Sequence[Series]) -> Layout:
    ids = [s.id for s in members]
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()
    return Layout.objects.create(switch=sw, series_ids=ids, digest=digest)


Row = tuple[float, int | None, Sequence[int | None], Sequence[int]]   # (seconds after t0, interval_ms, deltas, flags)


def insert(sw: Switch, lay: Layout, rows: Sequence[Row], t0: datetime = T0) -> None:
    """Sample rows as the writer stores them; raw readings are the running sums of the deltas."""
    n = len(lay.series_ids)
    raw = [1_000_000] * n
    values = []
    for offset, interval_ms, deltas, flags in rows:
        assert len(deltas) == n and len(flags) == n
        raw = [r + (d or 0) for r, d in zip(raw, deltas)]
        values.append([t0 + timedelta(seconds=offset), int(offset * 100), sw.id, lay.id, interval_ms,
                       [r % (1 << 32) for r in raw], list(deltas), list(flags)])
    with connection.cursor() as cur:
        cur.executemany("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                        "flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", values)


def poll_log(sw: Switch, offset: float, status: str, error: str = "", t0: datetime = T0) -> None:
    with connection.cursor() as cur:
        cur.execute("INSERT INTO traffic_poll_log (time, switch_id, status, error) VALUES (%s, %s, %s, %s)",
                    [t0 + timedelta(seconds=offset), sw.id, status, error])


def generate(sw: Switch, lay: Layout, start: datetime, end: datetime, step_s: int, rates: Sequence[int]) -> int:
    """Rows every step_s from start (inclusive) to end (exclusive), in SQL; returns the row count.

    Series i carries about rates[i] units/s with a daily shape (low at night UTC, high in the
    afternoon) and a deterministic ripple; deltas are exact integers. `raw` repeats the delta
    (plots and rollups never read raw readings).
    """
    n = len(rates)
    steps_per_day = 86400 // step_s
    deltas = ", ".join(
        f"(({r} * {step_s}) * (0.55 + 0.4 * sin(2 * pi() * mod(g, {steps_per_day}) / {steps_per_day} - pi() / 2 "
        f"- pi() / 3)) * (0.9 + 0.2 * mod(g * 7919 + {i * 31}, 101) / 100.0))::bigint"
        for i, r in enumerate(rates))
    sql = f"""
INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags)
SELECT %(start)s::timestamptz + make_interval(secs => g * {step_s}), g::bigint * {step_s} * 100, %(switch)s, %(layout)s,
       {step_s * 1000}, d, d, array_fill(0::smallint, ARRAY[{n}])
FROM generate_series(0::bigint, %(count)s - 1) AS g, LATERAL (SELECT ARRAY[{deltas}] AS d) x
"""
    count = int((end - start).total_seconds() // step_s)
    with connection.cursor() as cur:
        cur.execute(sql, {"start": start, "switch": sw.id, "layout": lay.id, "count": count})
    return count


def reset_rollups() -> None:
    """Empty the tables Django's flush does not know (tiers, watermarks, late-data log)."""
    with connection.cursor() as cur:
        cur.execute("TRUNCATE traffic_rollup_1m, traffic_rollup_15m, traffic_rollup_1h, traffic_rollup_1d, "
                    "traffic_rollup_watermark, traffic_rollup_invalidation, traffic_series_total")


def constant(sw: Switch, lay: Layout, start: datetime, count: int, step_s: int, rates: Sequence[int]) -> None:
    """A FIRST row at `start`, then `count` rows every step_s carrying exactly rates[i] x step_s (in SQL)."""
    n = len(rates)
    with connection.cursor() as cur:
        cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                    "flags) VALUES (%s, 0, %s, %s, NULL, %s, %s, %s)",
                    [start, sw.id, lay.id, [0] * n, [None] * n, [32] * n])
        deltas = [r * step_s for r in rates]
        cur.execute(
            "INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags) "
            "SELECT %(start)s::timestamptz + make_interval(secs => g * %(step)s), g * %(step)s * 100, %(sw)s, %(lay)s, "
            "%(ms)s, (SELECT array_agg((d * g) %% 4294967296) FROM unnest(%(d)s::bigint[]) AS d), %(d)s::bigint[], "
            "array_fill(0::smallint, ARRAY[%(n)s]) FROM generate_series(1::bigint, %(count)s) AS g",
            {"start": start, "step": step_s, "sw": sw.id, "lay": lay.id, "ms": step_s * 1000, "d": deltas, "n": n,
             "count": count})


def decode(spec: dict) -> list[float | None]:
    """A Plotly typed array of the figure ({"dtype": "f8" | "f4" | "u1", "bdata": base64}) as a list,
    NaN as None (how plotly.js reads it)."""
    import base64

    import numpy as np

    values = np.frombuffer(base64.b64decode(spec["bdata"]), {"f8": "<f8", "f4": "<f4", "u1": "u1"}[spec["dtype"]])
    return [None if v != v else v for v in values.tolist()]


W32 = 1 << 32
# Polls of one Counter32 that give every flag a poll can: (seconds after the first poll, uptime in s or
# None for 'as the clock', value or None: not answered).
EVERY_FLAG_POLLS = [
    (0, None, W32 - 2_000_000), (15, None, W32 - 500_000), (30, None, 1_000_000),        # a wrap
    (45, 5, 400_000), (60, 20, 1_900_000),                                                 # a reboot
    (105, 65, 2_500_000),                                                                  # missed polls
    (120, 80, None), (135, 95, 3_100_000),                                                 # not answered
    (150, 110, 3_100_000 + 15 * OC3_CELLS * 2), (165, 125, 3_100_000 + 15 * OC3_CELLS * 2 + 9_000)]  # over capacity


def derived_archive(name: str, t0: datetime, series_count: int = 2, shift: int = 0):
    """A switch whose series 0 follows EVERY_FLAG_POLLS and the others count steadily (1000 + 100 i per
    second, from `shift`), each row derived by the collector's own counter math (collector/core/counters);
    (switch, series, truth rows (time in Unix microseconds, series id, raw, delta, flags, interval_ms))."""
    from collector.core.counters import CounterSpec, Reading, derive

    sw = switch(name)
    p = port(sw)
    members = [series(p, "in"), series(p, "out")] + [
        series(p, "in", metric=f"m{i}", unit="cells") for i in range(series_count - 2)]
    lay = layout(sw, members)
    spec, prev = CounterSpec(32, OC3_CELLS), [None] * len(members)
    truth: list[tuple] = []
    prev_t = None
    for t, up, value in EVERY_FLAG_POLLS:
        at = t0 + timedelta(seconds=t)
        uptime_cs = int(((1000 + t) if up is None else up) * 100)
        values = [value] + [shift + (1000 + 100 * i) * t for i in range(1, len(members))]
        raw, deltas, flags = [], [], []
        interval = None if prev_t is None else (t - prev_t) * 1000      # since the switch's previous poll
        prev_t = t
        for i, v in enumerate(values):
            cur = Reading(at.timestamp(), uptime_cs, v)
            d = derive(prev[i], cur, spec, 15.0)
            raw.append(v)
            deltas.append(d.delta)
            flags.append(int(d.flags))
            if v is not None:
                prev[i] = cur
        with connection.cursor() as c:
            c.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                      "flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                      [at, uptime_cs, sw.id, lay.id, interval, raw, deltas, flags])
        for i, s in enumerate(members):
            truth.append((int(at.timestamp() * 1_000_000), s.id, raw[i], deltas[i], flags[i], interval))
    return sw, members, truth
