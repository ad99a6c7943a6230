"""The SQL of top talkers: the series of a scope, the tier plan, and one aggregate per series.

Rankings read the rollup tiers, never raw samples in bulk: the window is cut to whole buckets
of the finest tier whose rows for the scope fit MAX_ROWS (30 days of 100,000 series: the 1-day
tier, 3,000,000 rows), [floor(start), floor(end)). That tier is read up to its watermark; after
it, for scopes of at most TAIL_MAX_SERIES series, the finer tiers and the raw samples the rollup
has not reached yet (webapp/traffic/tiers.segments, the plots' tail, summed the same way); a
larger scope stops at the watermark (the last bucket the rollup finished). Sums of sums and
maxima of maxima: the totals and peaks are exactly the archived deltas' (collector/archive/rollup).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction

from collector.archive.tiers import TIERS, Tier, floor_time
from collector.core.facts import CELL_BYTES
from collector.groups.rules import ENTITY_SQL, TRAFFIC_SQL
from collector.reader import queries as traffic_queries
from collector.reader import resolution as traffic_tiers
from webapp.talkers.params import TalkersRequest

MAX_ROWS = 4_000_000          # tier rows one ranking may aggregate
TAIL_MAX_SERIES = 2_000       # scopes up to this size also read the minutes the rollup has not reached
WORK_MEM = "64MB"             # the per-series aggregate of 100,000 series stays in memory
METRIC_SQL = {"traffic": TRAFFIC_SQL, "packets": "s.metric = 'ucast_pkts'", "errors": "s.metric = 'errors'",
              "discards": "s.metric = 'discards'"}
# What a unit/s becomes in the ranking's unit: bits/s on the wire (a cell is 53 bytes), packets/s.
RATE_FACTOR = f"CASE s.unit WHEN 'cells' THEN {CELL_BYTES * 8} WHEN 'octets' THEN 8 ELSE 1 END"
PCT_FACTOR = "CASE WHEN s.capacity_per_s > 0 THEN 100.0 / s.capacity_per_s END"
BYTES_FACTOR = f"CASE s.unit WHEN 'cells' THEN {CELL_BYTES} WHEN 'octets' THEN 1 END"


def selection(req: TalkersRequest, group_ids: list[int] | None) -> tuple[str, dict]:
    """The scope's series as SQL over traffic_series s and its switch, port, VP and VC."""
    conds = ["s.kind = 'counter'", ENTITY_SQL[req.entity], METRIC_SQL[req.metric]]
    params: dict = {}
    if req.switch:
        conds.append("sw.name = %(switch)s")
        params["switch"] = req.switch
    if req.poller_group:
        conds.append("sw.poller_group = %(pg)s")
        params["pg"] = req.poller_group
    if group_ids is not None:
        conds.append("s.id = ANY(%(gids)s)")
        params["gids"] = group_ids
    if req.direction != "both":
        conds.append("s.direction = %(dir)s")
        params["dir"] = req.direction
    factor = PCT_FACTOR if req.unit == "pct" else RATE_FACTOR
    sql = f"""SELECT s.id, s.switch_id, {factor} AS k, {BYTES_FACTOR} AS kb
  FROM traffic_series s JOIN inventory_switch sw ON sw.id = s.switch_id
  LEFT JOIN inventory_port p ON p.id = s.port_id LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
  LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id
 WHERE {' AND '.join(conds)}"""
    return sql, params


def counts(sel: str, params: dict) -> tuple[int, int, int]:
    """(series in the scope, of them without a capacity for %, counter series in the archive)."""
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*), count(*) FILTER (WHERE k IS NULL), "
                    f"(SELECT count(*) FROM traffic_series WHERE kind = 'counter') FROM ({sel}) x", params)
        n, no_k, total = cur.fetchone()
    return int(n), int(no_k), int(total)


@dataclass(frozen=True)
class Plan:
    tier: Tier
    start: datetime
    end: datetime
    main: traffic_tiers.Segment | None
    tail: list[traffic_tiers.Segment]

    @property
    def text(self) -> str:
        parts = ([f"{self.main[0]} to {self.main[2]:%Y-%m-%d %H:%M}"] if self.main else []) + [
            f"{src} {lo:%H:%M}-{hi:%H:%M}" for src, lo, hi in self.tail]
        return " + ".join(parts) or "none"


def plan(lo: datetime, hi: datetime, n_series: int, cut: dict[str, datetime | None],
         done: dict[str, datetime | None]) -> Plan:
    """The tier and the segments a ranking of n_series over [lo, hi) reads."""
    chosen = TIERS[-1]
    for tier in TIERS:
        c = cut.get(tier.name)
        if n_series * (hi - lo).total_seconds() / tier.seconds <= MAX_ROWS and (c is None or c <= lo):
            chosen = tier
            break
    start, end = floor_time(lo, chosen.seconds), floor_time(hi, chosen.seconds)
    if end <= start:
        end = start + timedelta(seconds=chosen.seconds)
    if n_series > TAIL_MAX_SERIES:
        mark = done.get(chosen.name)
        end = min(end, mark) if mark is not None else start
        if end <= start:
            return Plan(chosen, start, start, None, [])
    main, tail = traffic_tiers.segments(chosen.name, start, end, done)
    return Plan(chosen, start, end, main, tail)


def _bucket_union(p: Plan, where: str, sources: dict[str, str]) -> tuple[str, dict]:
    """The plan's buckets; sources: each tier's FROM item (its settled buckets staged: tier_read)."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    if p.main is not None:
        parts.append(f"SELECT t.series_id, t.sum_delta, t.sum_interval_ms, t.max_rate, t.samples, t.flagged "
                     f"FROM {sources[p.main[0]]} t {where} t.bucket >= %(mlo)s AND t.bucket < %(mhi)s")
        params |= {"mlo": p.main[1], "mhi": p.main[2]}
    if p.tail:
        parts.append(f"SELECT t.series_id, t.sum_delta, t.sum_interval_ms, t.max_rate, t.samples, t.flagged "
                     f"FROM ({traffic_queries.tail_sql(p.tier.name, p.tail, sources=sources)}) t {where} true")
        for i, (_, lo, hi) in enumerate(p.tail):
            params[f"lo{i}"], params[f"hi{i}"] = lo, hi
    return " UNION ALL ".join(parts), params


@dataclass(frozen=True)
class Aggregate:
    series_id: int
    switch_id: int
    k: float                 # unit factor to the ranking's unit
    kb: int | None           # bytes per unit (traffic) or None
    total: int               # units counted (exact)
    drawn_s: float           # seconds drawn
    peak: float | None       # highest one-sample rate, ranking unit
    average: float | None    # ranking unit
    samples: int
    flagged: int


@dataclass(frozen=True)
class Totals:
    """Over every series of the scope with traffic drawn in the plan."""
    count: int
    average: float           # the summed averages (ranking unit)
    total: int               # units
    total_bytes: int | None  # bytes, when every one counts traffic (cells or octets)


ORDER = {"average": "avg", "peak": "peak"}


def aggregate(p: Plan, sel: str, params: dict, filter_first: bool, order_by: str, descending: bool,
              limit: int | None) -> tuple[list[Aggregate], Totals]:
    """One aggregate per series of the scope with data in the plan: the first `limit` (None: all)
    by `order_by` (average or peak), and the totals over all of them, in one statement (sorted
    and summed in the database: 100,000 rows never travel). filter_first: restrict the tier rows
    to the scope before summing (a small scope); else sum every series and keep the scope's
    afterwards (cheaper when the scope is most of the archive)."""
    if p.main is None and not p.tail:
        return [], Totals(0, 0.0, 0, None)
    where = "JOIN sel ON sel.id = t.series_id WHERE" if filter_first else "WHERE"
    direction = "DESC" if descending else "ASC"
    sql = f"""
WITH sel AS MATERIALIZED ({sel}),
a AS (SELECT series_id, sum(sum_delta)::bigint AS d, sum(sum_interval_ms)::bigint AS i, max(max_rate) AS m,
             sum(samples)::bigint AS n, sum(flagged)::bigint AS f FROM (__UNION__) b GROUP BY series_id),
v AS (SELECT a.series_id, sel.switch_id, sel.k, sel.kb, a.d, a.i, a.m * sel.k AS peak,
             a.d::float8 * 1000 / a.i * sel.k AS avg, a.n, a.f
        FROM a JOIN sel ON sel.id = a.series_id WHERE sel.k IS NOT NULL AND a.i > 0)
SELECT series_id, switch_id, k, kb, d, i, peak, avg, n, f, count(*) OVER (), sum(avg) OVER (), sum(d) OVER (),
       sum(d * kb) OVER (), count(kb) OVER ()
  FROM v ORDER BY {ORDER[order_by]} {direction} NULLS LAST, series_id LIMIT %(limit)s"""
    with transaction.atomic(), connection.cursor() as cur:
        pairs = None            # a small scope stages its own series' settled buckets; else every series'
        tail_ids: list[int] = []
        tail_sw: list[int] = []
        if filter_first or p.tail:
            cur.execute(f"SELECT id, switch_id FROM ({sel}) x", params)
            found = cur.fetchall()
            pairs = found if filter_first else None
            tail_ids, tail_sw = [r[0] for r in found], sorted({r[1] for r in found})
        sources = traffic_queries.stage_segments(cur, pairs, ([p.main] if p.main is not None else []) + list(p.tail),
                                                 rates=("max",), summed=True)
        union, uparams = _bucket_union(p, where, sources)
        all_params = {**params, **uparams, "limit": limit, "ids": tail_ids, "sw": tail_sw}
        cur.execute("SELECT set_config('work_mem', %s, true)", [WORK_MEM])
        cur.execute(sql.replace("__UNION__", union), all_params)
        rows = cur.fetchall()
    if not rows:
        return [], Totals(0, 0.0, 0, None)
    first = rows[0]
    totals = Totals(int(first[10]), float(first[11] or 0.0), int(first[12]),
                    int(first[13]) if first[14] == first[10] else None)
    return [Aggregate(r[0], r[1], float(r[2]), r[3], int(r[4]), r[5] / 1000.0, r[6], r[7], int(r[8]), int(r[9]))
            for r in rows], totals
