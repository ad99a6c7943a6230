"""The data inventory from the rollup tiers, never from raw samples: one aggregate per series.

Range [lo, hi) is read from the finest tier whose rows for all series fit MAX_ROWS (a year of
10,000 series: the 1-day tier), plus, past that tier's watermark, each finer tier up to its own
watermark (the tail a coarse tier has not reached yet). The first and last bucket are refined
through the finer tiers (a bounded number of buckets per series), so they are known to the
minute where the 1-minute tier still holds them. Bursts come from the stored scan
(collector/studies/bursts.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection

from collector.archive.rollup import retention_days, watermarks
from collector.archive.tiers import TIERS, Tier, ceil_time, floor_time

MAX_ROWS = 4_000_000        # tier rows one inventory may aggregate (bounded work)


@dataclass(frozen=True)
class Segment:
    tier: Tier
    lo: datetime
    hi: datetime


def plan(lo: datetime, hi: datetime, n_series: int, cutoffs: dict[str, datetime | None]) -> list[Segment]:
    """The tiers to read: the finest that fits MAX_ROWS and still holds `lo`, then the finer
    tiers' tails past its watermark."""
    done = watermarks()
    chosen = TIERS[-1]
    for tier in TIERS:
        rows = n_series * (hi - lo).total_seconds() / tier.seconds
        cut = cutoffs.get(tier.name)
        if rows <= MAX_ROWS and (cut is None or cut <= lo):
            chosen = tier
            break
    lo, hi = floor_time(lo, chosen.seconds), ceil_time(hi, chosen.seconds)
    out, at = [], lo
    for tier in TIERS[TIERS.index(chosen)::-1]:          # chosen, then each finer tier
        until = min(hi, done.get(tier.name) or at)
        if until > at:
            out.append(Segment(tier, at, until))
            at = until
    return out


def _union(segments: list[Segment], columns: str, where: str) -> tuple[str, dict]:
    parts, params = [], {}
    for i, s in enumerate(segments):
        parts.append(f"SELECT {columns} FROM {s.tier.table} WHERE bucket >= %(lo{i})s AND bucket < %(hi{i})s {where}")
        params |= {f"lo{i}": s.lo, f"hi{i}": s.hi}
    return " UNION ALL ".join(parts), params


def aggregates(segments: list[Segment], series_ids: list[int] | None) -> dict[int, tuple]:
    """series id -> (first bucket, last bucket, total, samples, peak rate, seconds measured)."""
    if not segments:
        return {}
    where = "AND series_id = ANY(%(ids)s)" if series_ids is not None else ""
    union, params = _union(segments, "series_id, bucket, sum_delta, samples, max_rate, sum_interval_ms", where)
    params["ids"] = series_ids
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id, min(bucket), max(bucket), sum(sum_delta)::bigint, sum(samples)::bigint, "
                    f"max(max_rate), sum(sum_interval_ms)::bigint / 1000.0 FROM ({union}) b GROUP BY series_id",
                    params)
        return {row[0]: row[1:] for row in cur.fetchall()}


def segment_tier(segments: list[Segment], t: datetime) -> Tier:
    """The tier a bucket time was read from."""
    for s in segments:
        if s.lo <= t < s.hi:
            return s.tier
    return segments[-1].tier


def refine(edges: dict[int, datetime], tiers: dict[int, Tier], last: bool, lo: datetime,
           hi: datetime) -> dict[int, tuple[datetime, Tier]]:
    """The first (or last) bucket of each series to the finest tier that holds it: one finer tier
    at a time, reading only the buckets inside the coarser bucket found (bounded per series)."""
    out = {sid: (t, tiers[sid]) for sid, t in edges.items()}
    for finer in reversed(TIERS[:-1]):                     # 1h, 15m, 1m
        parent = TIERS[TIERS.index(finer) + 1]
        ids = [sid for sid, (_, tier) in out.items() if tier is parent]
        if not ids:
            continue
        agg, bound = ("max", "least(q.t + %(w)s, %(hi)s)") if last else ("min", "q.t + %(w)s")
        floor = "q.t" if last else "greatest(q.t, %(lo)s)"
        with connection.cursor() as cur:
            cur.execute(f"SELECT q.sid, (SELECT {agg}(f.bucket) FROM {finer.table} f WHERE f.series_id = q.sid "
                        f"AND f.bucket >= {floor} AND f.bucket < {bound}) "
                        f"FROM unnest(%(ids)s::int[], %(ts)s::timestamptz[]) AS q(sid, t)",
                        {"ids": ids, "ts": [out[sid][0] for sid in ids], "w": parent.width, "lo": lo, "hi": hi})
            for sid, t in cur.fetchall():
                if t is not None:
                    out[sid] = (t, finer)
    return out


def burst_counts(series_ids: list[int] | None, lo: datetime, hi: datetime) -> dict[int, tuple[int, datetime, datetime]]:
    """series id -> (stored bursts in [lo, hi), first burst start, last burst end)."""
    where = "AND series_id = ANY(%(ids)s)" if series_ids is not None else ""
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id, count(*), min(start), max(\"end\") FROM studies_burst "
                    f"WHERE start < %(hi)s AND \"end\" > %(lo)s {where} GROUP BY series_id",
                    {"lo": lo, "hi": hi, "ids": series_ids})
        return {sid: (n, a, b) for sid, n, a, b in cur.fetchall()}


def scanned_until() -> datetime | None:
    """When the burst scan last stored a day (it covers the 1-minute tier as it was then)."""
    with connection.cursor() as cur:
        cur.execute("SELECT max(scanned_at) FROM studies_burst_scan")
        return cur.fetchone()[0]


@dataclass(frozen=True)
class SeriesMeta:
    id: int
    switch: str
    port: str
    vpi: int | None
    vci: int | None
    direction: str
    metric: str
    unit: str
    capacity_per_s: int | None
    poll_interval_s: int
    index: str


def series_meta(switch: str = "", port: str = "") -> list[SeriesMeta]:
    """Counter series, optionally of one switch (name) and one port (name): no data read yet."""
    where, params = ["s.kind = 'counter'"], {}
    if switch:
        where.append("sw.name = %(switch)s")
        params["switch"] = switch
    if port:
        where.append("p.name = %(port)s")
        params["port"] = port
    with connection.cursor() as cur:
        cur.execute(f"""
SELECT s.id, sw.name, coalesce(p.name, ''), coalesce(vc.vpi, vp.vpi), vc.vci, s.direction, s.metric, s.unit,
       s.capacity_per_s, sw.poll_interval_s, s.index
FROM traffic_series s JOIN inventory_switch sw ON sw.id = s.switch_id
LEFT JOIN inventory_port p ON p.id = s.port_id LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id
WHERE {' AND '.join(where)}""", params)
        return [SeriesMeta(*row) for row in cur.fetchall()]


def cutoffs_now() -> tuple[datetime, dict[str, datetime | None]]:
    """Database now() and, per tier, the oldest time retention keeps (None: kept forever)."""
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        (now,) = cur.fetchone()
    return now, {name: (now - timedelta(days=days) if days else None) for name, days in retention_days().items()}
