"""What figure 6 (benchmarks/fig_scale.py) reads back after a run: polls on time against each
switch's own slot, the rollup's step times and tier lags, and the storage each table takes."""
from __future__ import annotations

import math
import re
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

STEP_RE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/[\w-]+\] rollup step (\w+) \S+ "
                     r"\+(\d+) min: ([\d.]+) s")
DAY_S = 86400


def pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def polls(lo: float, hi: float) -> dict[int, list[tuple[float, str]]]:
    """switch id -> (start time, status) of its polls around [lo, hi), in time order."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT switch_id, extract(epoch FROM time)::float8 - duration_ms / 2000.0, status "
                    "FROM traffic_poll_log WHERE time >= to_timestamp(%s) AND time < to_timestamp(%s) "
                    "ORDER BY switch_id, time", [lo - 60, hi + 60])
        out: dict[int, list] = defaultdict(list)
        for sid, start, status in cur.fetchall():
            out[sid].append((start, status))
    return out


def on_time(periods: dict[int, int], phase_of, starts: dict[int, list[tuple[float, str]]], lo: float, hi: float
            ) -> tuple[int, int, list[float], dict[str, int]]:
    """(slots due in [lo, hi), slots whose poll started before the next slot and succeeded,
    lateness (start - due) of the polls matched, their statuses).

    The due times are each switch's own grid (epoch + phase + k * period), what beat is asked
    to keep: beat's own delay, the queue's and the worker's all count as lateness."""
    total = ok = 0
    late: list[float] = []
    statuses: dict[str, int] = defaultdict(int)
    for sid, period in periods.items():
        phase = phase_of(sid, period)
        got = starts.get(sid, [])
        j = 0
        due = math.ceil((lo - phase) / period) * period + phase
        while due < hi:
            while j < len(got) and got[j][0] < due - 0.05:    # clock rounding of the log (ms)
                j += 1
            total += 1
            if j < len(got) and got[j][0] < due + period:
                statuses[got[j][1]] += 1
                ok += got[j][1] in ("ok", "partial")
                late.append(max(0.0, got[j][0] - due))
                j += 1
            due += period
    return total, ok, late, dict(statuses)


def rollup_steps(log: Path, lo: float, hi: float) -> dict[str, list[tuple[float, int, float]]]:
    """tier -> (logged at, minutes of data, seconds taken) of the rollup steps in [lo, hi)."""
    out: dict[str, list] = defaultdict(list)
    for line in log.read_text(errors="replace").splitlines():
        m = STEP_RE.match(line)
        if m:
            t = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC).timestamp()
            if lo <= t < hi:
                out[m.group(2)].append((t, int(m.group(3)), float(m.group(4))))
    return out


def tier_lags() -> dict[str, float | None]:
    """Seconds between the database's now and each tier's watermark (None before the first run)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT tier, extract(epoch FROM now() - done_until)::float8 FROM traffic_rollup_watermark")
        return dict(cur.fetchall())


def storage(interval_s: float) -> dict[str, dict[str, float]]:
    """Per table: bytes (heap, TOAST, indexes), rows, and for traffic_sample the readings stored."""
    from django.db import connection

    from collector.archive.tiers import TABLE_OF

    out: dict[str, dict[str, float]] = {}
    with connection.cursor() as cur:
        for name, table in TABLE_OF.items():
            cur.execute("SELECT coalesce(sum(total_bytes), 0) FROM hypertable_detailed_size(%s)", [table])
            size = float(cur.fetchone()[0])
            cur.execute(f"SELECT count(*) FROM {table}")
            out[name] = {"bytes": size, "rows": float(cur.fetchone()[0])}
        cur.execute("SELECT coalesce(sum(cardinality(raw)), 0) FROM traffic_sample")
        out["raw"]["readings"] = float(cur.fetchone()[0])
    return out


def daily_bytes(sizes: dict[str, dict[str, float]], series: tuple[int, int], switches: int, interval_s: float
                ) -> dict[str, float]:
    """Bytes a day of each table at this size, from the bytes per row (per reading for raw) measured."""
    from collector.archive.tiers import TIERS

    every, counters = series
    per_day = {"raw": sizes["raw"]["bytes"] / max(1.0, sizes["raw"]["readings"]) * every * DAY_S / interval_s,
               "poll_log": sizes["poll_log"]["bytes"] / max(1.0, sizes["poll_log"]["rows"]) * switches
               * DAY_S / interval_s}
    for tier in TIERS:
        rows = sizes[tier.name]["rows"]
        if rows:
            per_day[tier.name] = sizes[tier.name]["bytes"] / rows * counters * DAY_S / tier.seconds
    return per_day


def series_count() -> tuple[int, int]:
    """(series, counter series): the raw rows store every series (discontinuity times too), the
    tiers only the counters."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*), count(*) FILTER (WHERE kind = 'counter') FROM traffic_series")
        return cur.fetchone()
