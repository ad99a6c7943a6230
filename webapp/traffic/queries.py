"""The SQL behind plots and exports: raw samples, rollup tiers with their live tail, poll outcomes.

Reads only; the arithmetic that defines a bucket (what is drawn, how it is summed) is the one
of collector/rollup.py, reused here for the part of a range the rollup has not reached yet.
Raw samples are read by array position: each wanted series' position in each layout of its
switch is looked up once, so a sample row yields just the wanted elements.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import Iterator, Sequence

from django.conf import settings
from django.db import connection

from collector import rollup
from collector.rollup import DRAWN, FLAG_WRAP, TIER
from webapp.traffic.catalog import SeriesInfo
from webapp.traffic.points import Point, bucket_point, raw_point
from webapp.traffic.tiers import Segment

FETCH = 5000
UTC = timezone.utc


def _t(epoch: float) -> datetime:
    # Times travel as float8 epochs: converting them is ~30x cheaper than parsing timestamptz text.
    return datetime.fromtimestamp(epoch, UTC)


def no_jit(cur) -> None:
    """Inside a transaction: no JIT for its queries. With hundreds of chunks in a plan, LLVM
    compiles for seconds before the first row (measured: 23 s for a year of raw samples)."""
    cur.execute("SET LOCAL jit = off")


def streaming_plan(cur) -> None:
    """Inside a transaction: plans that stream rows in time order from the indexes (merging
    ordered chunk scans) instead of sorting everything before the first row."""
    no_jit(cur)
    cur.execute("SET LOCAL enable_sort = off")
    cur.execute("SET LOCAL max_parallel_workers_per_gather = 0")


class reading:
    """Context manager for the queries of one request: one transaction, no JIT."""

    def __enter__(self) -> None:
        from django.db import transaction

        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        with connection.cursor() as cur:
            no_jit(cur)

    def __exit__(self, *exc) -> None:
        self._atomic.__exit__(*exc)


def db_now() -> datetime:
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        return cur.fetchone()[0]


def now_and_watermarks() -> tuple[datetime, dict[str, datetime | None]]:
    """The database clock and the rollup watermarks, in one round trip."""
    with connection.cursor() as cur:
        cur.execute("SELECT now(), tier, done_until FROM (SELECT 1) one "
                    "LEFT JOIN traffic_rollup_watermark ON true")
        rows = cur.fetchall()
    found = {tier: done for _, tier, done in rows if tier}
    return rows[0][0], {t.name: found.get(t.name) for t in rollup.TIERS}


def retention_cutoffs(now: datetime) -> dict[str, datetime | None]:
    return rollup.cutoffs(now, rollup._settings_days())


def watermarks() -> dict[str, datetime | None]:
    return rollup.watermarks()


def first_data(series: Sequence[SeriesInfo]) -> datetime | None:
    """The oldest data of these series, in a handful of cheap queries: the first bucket of the
    coarsest tier that has any (kept longest), narrowed down tier by tier to the first raw
    sample when it is still there. Without any rollup yet: the first raw sample."""
    ids = [s.id for s in series]
    switches = sorted({s.switch_id for s in series})
    lo: datetime | None = None
    width = None
    with connection.cursor() as cur:
        for tier in reversed(rollup.TIERS):
            if lo is None:
                cur.execute(f"SELECT min(bucket) FROM {tier.table} WHERE series_id = ANY(%s)", [ids])
            else:
                cur.execute(f"SELECT min(bucket) FROM {tier.table} WHERE series_id = ANY(%s) AND bucket >= %s "
                            "AND bucket < %s", [ids, lo, lo + width])
            (first,) = cur.fetchone()
            if first is not None:
                lo, width = first, tier.width
        found = []
        for switch_id in switches:
            if lo is None:
                cur.execute("SELECT time FROM traffic_sample WHERE switch_id = %s ORDER BY time LIMIT 1", [switch_id])
            else:
                cur.execute("SELECT time FROM traffic_sample WHERE switch_id = %s AND time >= %s AND time < %s "
                            "ORDER BY time LIMIT 1", [switch_id, lo, lo + width])
            row = cur.fetchone()
            if row:
                found.append(row[0])
    return min(found) if found else lo


# --- raw samples ----------------------------------------------------------------------------

Positions = dict[int, dict[int, int]]   # layout id -> series id -> 1-based array position


def layout_positions(switch_ids: Sequence[int], wanted: set[int]) -> dict[int, Positions]:
    """switch id -> layout id -> {series id: position} for the wanted series."""
    out: dict[int, Positions] = defaultdict(dict)
    with connection.cursor() as cur:
        cur.execute("SELECT id, switch_id, series_ids FROM traffic_layout WHERE switch_id = ANY(%s)", [list(switch_ids)])
        for layout_id, switch_id, ids in cur.fetchall():
            hits = {sid: i + 1 for i, sid in enumerate(ids) if sid in wanted}
            if hits:
                out[switch_id][layout_id] = hits
    return out


def _position_expr(positions: Positions, series_id: int) -> str:
    whens = " ".join(f"WHEN {int(lay)} THEN {int(pos[series_id])}"
                     for lay, pos in sorted(positions.items()) if series_id in pos)
    return f"(CASE s.layout_id {whens} END)" if whens else "NULL::int"


def raw_rows_sql(series: Sequence[SeriesInfo], positions: Positions) -> str:
    """One switch's sample rows in [lo, hi) with (delta, flags) of each wanted series."""
    cols = []
    for s in series:
        e = _position_expr(positions, s.id)
        cols.append(f"s.delta[{e}], s.flags[{e}]")
    layouts = ",".join(str(int(lay)) for lay in sorted(positions)) or "NULL"
    return (f"SELECT extract(epoch FROM s.time)::float8, s.interval_ms, {', '.join(cols)} FROM traffic_sample s "
            f"WHERE s.switch_id = %(switch)s AND s.time >= %(lo)s AND s.time < %(hi)s "
            f"AND s.layout_id IN ({layouts}) ORDER BY s.time")


def iter_raw(cur, switch_id: int, series: Sequence[SeriesInfo], positions: Positions,
             lo: datetime, hi: datetime) -> Iterator[tuple[datetime, list[Point | None]]]:
    """(time, [Point or None per series]) for one switch, oldest first, fetched in chunks."""
    cur.execute(raw_rows_sql(series, positions), {"switch": switch_id, "lo": lo, "hi": hi})
    n = len(series)
    while rows := cur.fetchmany(FETCH):
        for row in rows:
            t, interval_ms = _t(row[0]), row[1]
            pts: list[Point | None] = []
            for i in range(n):
                f = row[3 + 2 * i]
                pts.append(None if f is None else raw_point(t, interval_ms, row[2 + 2 * i], f))
            yield t, pts


def fetch_raw(series: Sequence[SeriesInfo], lo: datetime, hi: datetime) -> dict[int, list[Point]]:
    out: dict[int, list[Point]] = {s.id: [] for s in series}
    by_switch = _by_switch(series)
    positions = layout_positions(list(by_switch), {s.id for s in series})
    with connection.cursor() as cur:
        for switch_id, group in by_switch.items():
            for _, pts in iter_raw(cur, switch_id, group, positions.get(switch_id, {}), lo, hi):
                for s, p in zip(group, pts):
                    if p is not None:
                        out[s.id].append(p)
    return out


def _by_switch(series: Sequence[SeriesInfo]) -> dict[int, list[SeriesInfo]]:
    groups: dict[int, list[SeriesInfo]] = defaultdict(list)
    for s in series:
        groups[s.switch_id].append(s)
    return dict(groups)


# --- rollup tiers and their tail ------------------------------------------------------------

BUCKET_COLUMNS = "extract(epoch FROM bucket)::float8, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged"


def _raw_segment_sql(i: int) -> str:
    rate = "u.d::float8 * 1000 / s.interval_ms"
    return f"""SELECT m.sid AS series_id, s.time AS b,
       CASE WHEN {DRAWN} THEN u.d ELSE 0 END AS sd,
       CASE WHEN {DRAWN} THEN s.interval_ms ELSE 0 END AS si,
       CASE WHEN {DRAWN} THEN {rate} END AS mx, CASE WHEN {DRAWN} THEN {rate} END AS mn,
       1 AS n, CASE WHEN (u.f & ~{FLAG_WRAP}) <> 0 THEN 1 ELSE 0 END AS fl
  FROM traffic_sample s
  JOIN unnest(%(lay)s::int[], %(sid)s::int[], %(pos)s::int[]) AS m(layout_id, sid, pos) ON m.layout_id = s.layout_id
  CROSS JOIN LATERAL (SELECT s.delta[m.pos] AS d, s.flags[m.pos] AS f) u
  WHERE s.switch_id = ANY(%(sw)s) AND s.time >= %(lo{i})s AND s.time < %(hi{i})s"""


def flat_positions(series: Sequence[SeriesInfo]) -> dict:
    """Parameters lay/sid/pos (parallel arrays) and sw for the raw part of tail_sql."""
    by_switch = _by_switch(series)
    positions = layout_positions(list(by_switch), {s.id for s in series})
    lay, sid, pos = [], [], []
    for per_switch in positions.values():
        for layout_id, hits in per_switch.items():
            for series_id, p in hits.items():
                lay.append(layout_id)
                sid.append(series_id)
                pos.append(p)
    return {"lay": lay, "sid": sid, "pos": pos, "sw": list(by_switch)}


def tail_sql(res: str, tail: Sequence[Segment]) -> str:
    """Buckets of width `res` over the tail segments, summed like the rollup (no ORDER BY)."""
    parts = []
    for i, (source, _, _) in enumerate(tail):
        if source == "raw":
            parts.append(_raw_segment_sql(i))
        else:
            parts.append(f"SELECT series_id, bucket AS b, sum_delta AS sd, sum_interval_ms AS si, max_rate AS mx, "
                         f"min_rate AS mn, samples AS n, flagged AS fl FROM {TIER[source].table} "
                         f"WHERE series_id = ANY(%(ids)s) AND bucket >= %(lo{i})s AND bucket < %(hi{i})s")
    return (f"SELECT series_id, time_bucket(interval '{TIER[res].seconds} seconds', b) AS bucket, "
            f"coalesce(sum(sd), 0)::bigint AS sum_delta, coalesce(sum(si), 0)::bigint AS sum_interval_ms, "
            f"max(mx) AS max_rate, min(mn) AS min_rate, sum(n)::int AS samples, sum(fl)::int AS flagged "
            f"FROM ({' UNION ALL '.join(parts)}) x GROUP BY 1, 2")


def tail_params(series: Sequence[SeriesInfo], tail: Sequence[Segment], flat: dict | None = None) -> dict:
    params: dict = {"ids": [s.id for s in series]}
    if any(src == "raw" for src, _, _ in tail):
        params.update(flat if flat is not None else flat_positions(series))
    for i, (_, lo, hi) in enumerate(tail):
        params[f"lo{i}"], params[f"hi{i}"] = lo, hi
    return params


def tail_points(series: Sequence[SeriesInfo], res: str, tail: Sequence[Segment],
                flat: dict | None = None) -> dict[int, list[Point]]:
    out: dict[int, list[Point]] = {s.id: [] for s in series}
    if not tail:
        return out
    width = float(TIER[res].seconds)
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id, extract(epoch FROM bucket)::float8, sum_delta, sum_interval_ms, max_rate, "
                    f"min_rate, samples, flagged FROM ({tail_sql(res, tail)}) t ORDER BY 1, 2",
                    tail_params(series, tail, flat))
        for sid, *cols in cur.fetchall():
            out[sid].append(bucket_point(_t(cols[0]), width, *cols[1:]))
    return out


def iter_main(cur, series_id: int, res: str, lo: datetime, hi: datetime) -> Iterator[Point]:
    """One series' rows of tier `res` in [lo, hi), oldest first, fetched in chunks."""
    width = float(TIER[res].seconds)
    cur.execute(f"SELECT {BUCKET_COLUMNS} FROM {TIER[res].table} "
                "WHERE series_id = %s AND bucket >= %s AND bucket < %s ORDER BY bucket", [series_id, lo, hi])
    while rows := cur.fetchmany(FETCH):
        for row in rows:
            yield bucket_point(_t(row[0]), width, *row[1:])


def fetch_buckets(series: Sequence[SeriesInfo], res: str, main: Segment | None,
                  tail: Sequence[Segment], flat: dict | None = None) -> dict[int, list[Point]]:
    out: dict[int, list[Point]] = {s.id: [] for s in series}
    width = float(TIER[res].seconds)
    if main is not None:
        _, lo, hi = main
        with connection.cursor() as cur:
            cur.execute(f"SELECT series_id, {BUCKET_COLUMNS} FROM {TIER[res].table} "
                        "WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s ORDER BY series_id, bucket",
                        [[s.id for s in series], lo, hi])
            for sid, *cols in cur.fetchall():
                out[sid].append(bucket_point(_t(cols[0]), width, *cols[1:]))
    for sid, pts in tail_points(series, res, tail, flat).items():
        out[sid].extend(pts)
    return out


# --- 95th percentile ------------------------------------------------------------------------

def p95(series: Sequence[SeriesInfo], basis: str, main: Segment | None, tail: Sequence[Segment],
        flat: dict | None = None) -> dict[int, float | None]:
    """95th percentile of the rates at `basis` resolution (raw samples or bucket averages).

    One query per series: each sorts only its own rates (in memory), no sort by series first.
    """
    out: dict[int, float | None] = {s.id: None for s in series}
    if basis == "raw":
        assert main is not None
        sql = (f"SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY sd::float8 * 1000 / si) "
               f"FROM ({_raw_segment_sql(0)}) x WHERE si > 0 AND series_id = %(one)s")
        base = {**(flat if flat is not None else flat_positions(series)), "lo0": main[1], "hi0": main[2]}
    else:
        parts = []
        base = tail_params(series, tail, flat)
        if main is not None:
            parts.append(f"SELECT sum_delta, sum_interval_ms FROM {TIER[basis].table} "
                         "WHERE series_id = %(one)s AND bucket >= %(mlo)s AND bucket < %(mhi)s")
            base["mlo"], base["mhi"] = main[1], main[2]
        if tail:
            parts.append(f"SELECT sum_delta, sum_interval_ms FROM ({tail_sql(basis, tail)}) t WHERE series_id = %(one)s")
        if not parts:
            return out
        sql = (f"SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY sum_delta::float8 * 1000 / sum_interval_ms) "
               f"FROM ({' UNION ALL '.join(parts)}) x WHERE sum_interval_ms > 0")
    with connection.cursor() as cur:
        for s in series:
            cur.execute(sql, {**base, "one": s.id})
            out[s.id] = cur.fetchone()[0]
    return out


# --- poll log -------------------------------------------------------------------------------

def failures_in(switch_id: int, ranges: Sequence[tuple[datetime, datetime]]) -> list[dict[str, tuple[int, str]]]:
    """For each [lo, hi): failed poll outcomes inside it, {status: (count, an error text)}."""
    out: list[dict[str, tuple[int, str]]] = [{} for _ in ranges]
    if not ranges:
        return out
    with connection.cursor() as cur:
        cur.execute(
            "SELECT g.i, p.status, count(*), min(p.error) "
            "FROM unnest(%s::timestamptz[], %s::timestamptz[]) WITH ORDINALITY AS g(lo, hi, i) "
            "JOIN traffic_poll_log p ON p.switch_id = %s AND p.time >= g.lo AND p.time < g.hi "
            "AND p.status NOT IN ('ok', 'partial') GROUP BY 1, 2",
            [[r[0] for r in ranges], [r[1] for r in ranges], switch_id])
        for i, status, count, error in cur.fetchall():
            out[i - 1][status] = (count, error or "")
    return out


def iter_failures(cur, switch_id: int, lo: datetime, hi: datetime,
                  bucket_s: int | None) -> Iterator[tuple[datetime, str]]:
    """Failed polls of a switch in [lo, hi), oldest first: one per poll, or counted per bucket."""
    if bucket_s is None:
        cur.execute("SELECT time, status, error FROM traffic_poll_log WHERE switch_id = %s AND time >= %s "
                    "AND time < %s AND status NOT IN ('ok', 'partial') ORDER BY time", [switch_id, lo, hi])
        while rows := cur.fetchmany(FETCH):
            for t, status, error in rows:
                yield t, f"poll {status}" + (f" ({error[:120]})" if error else "")
    else:
        cur.execute(f"SELECT time_bucket(interval '{int(bucket_s)} seconds', time) AS b, status, count(*) "
                    "FROM traffic_poll_log WHERE switch_id = %s AND time >= %s AND time < %s "
                    "AND status NOT IN ('ok', 'partial') GROUP BY 1, 2 ORDER BY 1, 2", [switch_id, lo, hi])
        while rows := cur.fetchmany(FETCH):
            for t, status, count in rows:
                yield t, f"{count} poll{'s' if count != 1 else ''} {status}"


def max_plot_points() -> int:
    return settings.CELLAR_PLOT_MAX_POINTS
