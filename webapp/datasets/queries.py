"""The data inventory from the rollup tiers, never from raw samples: one aggregate per series.

Range [lo, hi) is read from the finest tier whose rows for all series fit MAX_ROWS (a year of
10,000 series: the 1-day tier), plus, past that tier's watermark, each finer tier up to its own
watermark (the tail a coarse tier has not reached yet). The first and last bucket are refined
through the finer tiers (a bounded number of buckets per series), so they are known to the
minute where the 1-minute tier still holds them. Bursts come from the stored scan
(collector/bursts/scan.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection, transaction

from collector.archive import tier_read
from collector.archive.rollup import db_now, retention_days, watermarks
from collector.archive.rollup_plan import cutoffs
from collector.archive.tiers import TIERS, Tier, ceil_time, floor_time
from collector.reader import queries as traffic_queries

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


def _union(segments: list[Segment], columns: str, where: str,
           sources: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The segments' buckets; sources: each tier's FROM item (its settled buckets staged)."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    for i, s in enumerate(segments):
        parts.append(f"SELECT {columns} FROM {sources[s.tier.name]} t "
                     f"WHERE bucket >= %(lo{i})s AND bucket < %(hi{i})s {where}")
        params |= {f"lo{i}": s.lo, f"hi{i}": s.hi}
    return " UNION ALL ".join(parts), params


# The edge buckets whose finer settled blocks are staged for the refinement: beyond this many distinct
# first and last buckets (series that started and stopped on that many different days or hours), the
# edges are refined from the finer tiers' rows only, to the finest tier that still holds them as rows.
MAX_EDGE_BUCKETS = 200


def _refined(edge: str, finer: Sequence[Tier], coarse: Tier, last: bool, sources: dict[str, str]) -> str:
    """The edge bucket to the finest tier that holds it, as ARRAY[epoch, tier seconds] (NULL when
    no finer tier does): each finer tier, finest first, is searched only inside the coarse bucket
    found, and COALESCE stops at the first that answers (one or two index probes per series).
    sources: each finer tier's FROM item, its settled blocks around the edges staged."""
    agg = "max" if last else "min"
    upper = (f"least({edge} + interval '{coarse.seconds} seconds', %(hi)s)" if last
             else f"{edge} + interval '{coarse.seconds} seconds'")
    probes = [f"(SELECT ARRAY[extract(epoch FROM {agg}(bucket))::float8, {t.seconds}] FROM {sources[t.name]} f "
              f"WHERE series_id = a.series_id AND bucket >= {edge} AND bucket < {upper} "
              f"HAVING {agg}(bucket) IS NOT NULL)"
              for t in finer]
    return f"coalesce({', '.join(probes)})" if probes else "NULL::float8[]"


def aggregates(segments: list[Segment], series_ids: list[int] | None) -> dict[int, tuple]:
    """series id -> (first, first tier, last, last tier, total, samples, peak): one statement,
    the edges refined in the database (no per-series round trip, no arrays sent back and forth)."""
    if not segments:
        return {}
    where = "AND series_id = ANY(%(ids)s)" if series_ids is not None else ""
    coarse = segments[0].tier
    finer = TIERS[:TIERS.index(coarse)]                          # finest first: 1m, 15m, 1h under 1d
    with transaction.atomic(), connection.cursor() as cur:
        pairs = None
        if series_ids is not None:
            cur.execute("SELECT id, switch_id FROM traffic_series WHERE id = ANY(%s)", [series_ids])
            pairs = cur.fetchall()
        sources = traffic_queries.stage_segments(cur, pairs, [(s.tier.name, s.lo, s.hi) for s in segments],
                                                 rates=("max",))
        union, params = _union(segments, "series_id, bucket, sum_delta, samples, max_rate", where, sources)
        params |= {"ids": series_ids, "hi": segments[-1].hi}
        cur.execute(f"""
CREATE TEMP TABLE cellar_dataset_edges ON COMMIT DROP AS
SELECT series_id, min(bucket) AS first_b, max(bucket) AS last_b, sum(sum_delta)::bigint AS total,
       sum(samples)::bigint AS samples, max(max_rate) AS peak FROM ({union}) b GROUP BY series_id""", params)
        # the finer tiers' settled blocks around the edges (few distinct: series start and stop together)
        cur.execute("SELECT e FROM (SELECT first_b FROM cellar_dataset_edges UNION SELECT last_b "
                    "FROM cellar_dataset_edges) x(e) LIMIT %s", [MAX_EDGE_BUCKETS + 1])
        edges = [(e, e + coarse.width) for (e,) in cur.fetchall()]
        if len(edges) > MAX_EDGE_BUCKETS:      # refined from the finer tiers' rows only
            edges = []
        probes = {t.name: tier_read.stage_ranges(cur, t, pairs, edges, rates=()) for t in finer}
        cur.execute(f"""
SELECT a.series_id, extract(epoch FROM a.first_b)::float8, extract(epoch FROM a.last_b)::float8, a.total,
       a.samples, a.peak,
       {_refined("a.first_b", finer, coarse, False, probes)}, {_refined("a.last_b", finer, coarse, True, probes)}
FROM cellar_dataset_edges a""", params)
        rows = cur.fetchall()
    by_seconds = {t.seconds: t for t in TIERS}
    out = {}
    for sid, first_s, last_s, total, samples, peak, f_ref, l_ref in rows:
        # epoch seconds, not timestamptz: 20,000 datetimes parsed by psycopg cost ~0.1 s
        first, last = datetime.fromtimestamp(first_s, UTC), datetime.fromtimestamp(last_s, UTC)
        f_t, f_tier = (datetime.fromtimestamp(f_ref[0], UTC), by_seconds[int(f_ref[1])]) if f_ref else (
            first, segment_tier(segments, first))
        l_t, l_tier = (datetime.fromtimestamp(l_ref[0], UTC), by_seconds[int(l_ref[1])]) if l_ref else (
            last, segment_tier(segments, last))
        out[sid] = (f_t, f_tier, l_t, l_tier, total, samples, peak)
    return out


def segment_tier(segments: list[Segment], t: datetime) -> Tier:
    """The tier a bucket time was read from."""
    for s in segments:
        if s.lo <= t < s.hi:
            return s.tier
    return segments[-1].tier


def burst_counts(series_ids: list[int] | None, lo: datetime, hi: datetime) -> dict[int, tuple[int, datetime, datetime]]:
    """series id -> (stored bursts in [lo, hi), first burst start, last burst end). A burst across
    midnight is two rows; the second (continues) counts only when the first is outside the range."""
    where = "AND series_id = ANY(%(ids)s)" if series_ids is not None else ""
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id, count(*) FILTER (WHERE NOT continues OR start <= %(lo)s), min(start), "
                    f"max(\"end\") FROM studies_burst "
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


_META = """
SELECT s.id, sw.name, coalesce(p.name, ''), coalesce(vc.vpi, vp.vpi), vc.vci, s.direction, s.metric, s.unit,
       s.capacity_per_s, sw.poll_interval_s, s.index
FROM traffic_series s JOIN inventory_switch sw ON sw.id = s.switch_id
LEFT JOIN inventory_port p ON p.id = s.port_id LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id"""


def series_ids(switch: str = "", port: str = "") -> list[int] | None:
    """Ids of the counter series of one switch (and port), by name; None when not filtered (all)."""
    if not switch and not port:
        return None
    where, params = ["s.kind = 'counter'"], {}
    if switch:
        where.append("sw.name = %(switch)s")
        params["switch"] = switch
    if port:
        where.append("p.name = %(port)s")
        params["port"] = port
    with connection.cursor() as cur:
        cur.execute(f"SELECT s.id FROM traffic_series s JOIN inventory_switch sw ON sw.id = s.switch_id "
                    f"LEFT JOIN inventory_port p ON p.id = s.port_id WHERE {' AND '.join(where)}", params)
        return [row[0] for row in cur.fetchall()]


def series_count() -> int:
    """Counter series in the archive (the tier plan's budget counts them all, with data or not)."""
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_series WHERE kind = 'counter'")
        return int(cur.fetchone()[0])


def series_meta(ids: list[int]) -> list[SeriesMeta]:
    """What the inventory shows of the series that have data (read after the aggregate: an archive
    holds many more series than a range has data for)."""
    with connection.cursor() as cur:
        cur.execute(_META + " WHERE s.id = ANY(%s)", [ids])
        return [SeriesMeta(*row) for row in cur.fetchall()]


def cutoffs_now() -> tuple[datetime, dict[str, datetime | None]]:
    """Database now() and, per tier, the oldest time retention keeps (None: kept forever)."""
    now = db_now()
    return now, cutoffs(now, retention_days())
