"""The SQL behind plots and exports: raw samples, rollup tiers with their live tail, poll outcomes.

Reads only; the arithmetic that defines a bucket (what is drawn, how it is summed) is the one
of collector/archive/rollup.py, reused here for the part of a range the rollup has not reached yet
(in SQL for p95, talkers and the CSV: tail_sql; for plots the same sums in numpy: _summed).
Raw samples are read by array position: each wanted series' position in each layout of its
switch is looked up once, so a sample row yields just the wanted elements.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import psycopg
from django.conf import settings
from django.db import connection, transaction

from collector.archive import rollup, settled_read, tier_read
from collector.archive.positions import Positions, layout_positions, position_expr
from collector.archive.prepared import Send, read_one
from collector.archive.rollup import DRAWN, flagged_sql
from collector.archive.rollup_plan import cutoffs
from collector.archive.tiers import TIER, TIERS
from collector.core import tierblocks
from collector.events import read as events
from collector.reader import catalog, pgbinary
from collector.reader.catalog import SeriesInfo
from collector.reader.points import Columns, bucket_columns, empty, raw_columns
from collector.reader.resolution import Segment
from numerics.summary import percentile_cont

FETCH = 5000
MAX_RUNS = 50          # a plot shades at most this many runs (the most recent that overlap it)


def _every_tier(found: dict[str, datetime]) -> dict[str, datetime | None]:
    """Watermarks as read, with None for a tier the rollup has not started."""
    return {t.name: found.get(t.name) for t in TIERS}


def now_and_watermarks() -> tuple[datetime, dict[str, datetime | None]]:
    """The database clock and the rollup watermarks, in one round trip."""
    with connection.cursor() as cur:
        cur.execute("SELECT now(), tier, done_until FROM (SELECT 1) one "
                    "LEFT JOIN traffic_rollup_watermark ON true")
        rows = cur.fetchall()
    return rows[0][0], _every_tier({tier: done for _, tier, done in rows if tier})


# The plot's series (catalog.ROW_SQL) with the database clock, the rollup watermarks, the
# experiment runs that may overlap the range and, for a plot that draws them, the events that
# touch its series: every plot, API and CSV request needs the first three before it can choose its
# tiers, and the plot shades the runs and marks the events, so they come in one prepared statement
# (one round trip, no planning after the first on a connection). Runs: at most runbands.MAX_RUNS,
# the most recent, of those overlapping [lo or now() - span, hi or now() + 1 day]. Events
# (collector/events/read.py TOUCHING_JSON): over that window widened by a day on each side (the
# plan aligns the range to its buckets, a day at most), narrowed to the plan's range afterwards
# (events.within); NULL unless asked for.
_WIDER = "interval '1 day'"
_SERIES_AND_CLOCK = f"""
SELECT k.now, k.tiers, k.marks, k.runs, k.events, k.lo, k.hi, c.*
  FROM (SELECT now() AS now,
               array(SELECT tier::text FROM traffic_rollup_watermark ORDER BY tier) AS tiers,
               array(SELECT done_until FROM traffic_rollup_watermark ORDER BY tier) AS marks,
               (SELECT coalesce(json_agg(json_build_array(r.id, r.name, extract(epoch FROM r.start),
                                                          extract(epoch FROM r."end")) ORDER BY r.start), '[]')
                  FROM (SELECT id, name, start, "end" FROM studies_run
                         WHERE start < coalesce(%(hi)s::timestamptz, now() + interval '1 day')
                           AND ("end" IS NULL OR "end" > coalesce(%(lo)s::timestamptz, now() - %(span)s::interval,
                                                                  '-infinity'::timestamptz))
                         ORDER BY start DESC LIMIT {MAX_RUNS}) r) AS runs,
               CASE WHEN %(events)s THEN {events.TOUCHING_JSON.replace("%(start)s", "w.lo").replace("%(end)s", "w.hi")}
               END AS events, extract(epoch FROM w.lo)::float8 AS lo, extract(epoch FROM w.hi)::float8 AS hi
          FROM (SELECT coalesce(%(lo)s::timestamptz, now() - %(span)s::interval, '-infinity'::timestamptz)
                       - {_WIDER} AS lo,
                       coalesce(%(hi)s::timestamptz, now()) + {_WIDER} AS hi) w) k
  LEFT JOIN ({catalog.ROW_SQL.replace("%s", "%(ids)s")}) c ON true"""


@dataclass(frozen=True)
class RunBand:
    """An experiment run as a plot shades it (collector/studies owns the table)."""
    id: int
    name: str
    start: datetime
    end: datetime | None


@dataclass(frozen=True)
class Clocked:
    """What series_and_clock reads."""
    series: list[SeriesInfo]
    now: datetime
    done: dict[str, datetime | None]
    runs: list[RunBand]
    events: list[events.Mark] | None     # touching the series in [events_lo, events_hi], oldest first
    events_lo: float                     # epoch seconds (-inf for a range back to the first data)
    events_hi: float


def series_and_clock(ids: list[int], lo: datetime | None = None, hi: datetime | None = None,
                     span: timedelta | None = None, with_events: bool = False) -> Clocked:
    """catalog.load_series(ids), now_and_watermarks(), the runs that may overlap [lo or now - span,
    hi or now] and (with_events) the events touching the series around it, in one round trip."""
    return read_one(send_series_and_clock(ids, lo, hi, span, with_events))


def send_series_and_clock(ids: list[int], lo: datetime | None = None, hi: datetime | None = None,
                          span: timedelta | None = None, with_events: bool = False) -> Send:
    """series_and_clock as a statement to send with others (prepared.together)."""
    args = {"hi": hi, "lo": lo, "span": span, "ids": list(ids), "events": with_events}

    def send(cur: psycopg.Cursor) -> Callable[[], Clocked]:
        # binary: the clock columns repeat on every row, and Django's text loader of timestamptz
        # (Python) took 2 of 3 ms for 48 series; psycopg's binary one is C.
        cur.execute(_SERIES_AND_CLOCK, args, prepare=True, binary=True)
        return lambda: _clocked(ids, cur.fetchall())
    return send


def _clocked(ids: list[int], rows: list[tuple]) -> Clocked:
    now, tiers, marks, runs, marked, elo, ehi = rows[0][:7]
    now = now.astimezone(UTC)          # binary timestamptz comes in the session's zone
    found = {row[7]: catalog.from_row(row[7:]) for row in rows if row[7] is not None}
    bands = [RunBand(i, name, datetime.fromtimestamp(float(a), UTC),
                     None if z is None else datetime.fromtimestamp(float(z), UTC)) for i, name, a, z in runs]
    return Clocked(catalog.in_order(ids, found), now, _every_tier(dict(zip(tiers, marks))), bands,
                   None if marked is None else events.from_json(marked), elo, ehi)


def retention_cutoffs(now: datetime) -> dict[str, datetime | None]:
    return cutoffs(now, rollup.retention_days())


def first_data(series: Sequence[SeriesInfo]) -> datetime | None:
    """The oldest data of these series, in a handful of cheap queries: the first bucket of the
    coarsest tier that has any (kept longest), narrowed down tier by tier to the first raw
    sample when it is still there. Without any rollup yet: the first raw sample."""
    ids = [s.id for s in series]
    switches = sorted({s.switch_id for s in series})
    lo: datetime | None = None
    width: timedelta | None = None          # the bucket width of the tier lo comes from (set with lo)
    with connection.cursor() as cur:
        for tier in reversed(TIERS):
            if lo is None or width is None:
                cur.execute(f"SELECT min(bucket) FROM {tier.table} WHERE series_id = ANY(%s)", [ids])
            else:
                cur.execute(f"SELECT min(bucket) FROM {tier.table} WHERE series_id = ANY(%s) AND bucket >= %s "
                            "AND bucket < %s", [ids, lo, lo + width])
            (first,) = cur.fetchone()
            settled = tier_read.first_bucket(cur, tier, [(s.id, s.switch_id) for s in series])
            if settled is not None and (lo is None or width is None or lo <= settled < lo + width):
                first = settled if first is None else min(first, settled)
            if first is not None:
                lo, width = first, tier.width
        found = []
        for switch_id in switches:
            if lo is None or width is None:
                cur.execute("SELECT time FROM traffic_sample WHERE switch_id = %s ORDER BY time LIMIT 1", [switch_id])
            else:
                cur.execute("SELECT time FROM traffic_sample WHERE switch_id = %s AND time >= %s AND time < %s "
                            "ORDER BY time LIMIT 1", [switch_id, lo, lo + width])
            row = cur.fetchone()
            if row:
                found.append(row[0])
            # a settled day's first poll (collector/archive/settle.py) is older than any row kept
            cur.execute("SELECT first_time FROM traffic_settled_poll WHERE switch_id = %s ORDER BY lo LIMIT 1",
                        [switch_id])
            row = cur.fetchone()
            if row:
                found.append(row[0])
    return min(found) if found else lo


# --- raw samples ----------------------------------------------------------------------------

def raw_rows_sql(series: Sequence[SeriesInfo], positions: Positions) -> str:
    """One switch's sample rows in [lo, hi) with (delta, flags) of each wanted series."""
    cols = []
    for s in series:
        e = position_expr(positions, s.id)
        cols.append(f"s.delta[{e}], s.flags[{e}]")
    layouts = ",".join(str(int(lay)) for lay in sorted(positions)) or "NULL"
    return (f"SELECT extract(epoch FROM s.time)::float8, s.interval_ms, {', '.join(cols)} FROM traffic_sample s "
            f"WHERE s.switch_id = %(switch)s AND s.time >= %(lo)s AND s.time < %(hi)s "
            f"AND s.layout_id IN ({layouts}) ORDER BY s.time")


def fetch_raw(series: Sequence[SeriesInfo], lo: datetime, hi: datetime) -> dict[int, Columns]:
    """Each series' raw samples in [lo, hi), oldest first (a plot asks for 2,000 per series at most)."""
    rows: dict[int, list] = {s.id: [] for s in series}
    by_switch = _by_switch(series)
    positions = layout_positions(list(by_switch), {s.id for s in series})
    with_settled = settled_read.settled_switches(list(by_switch), lo, hi)
    with connection.cursor() as cur:
        for switch_id, group in by_switch.items():
            if switch_id in with_settled:
                _settled_rows(switch_id, group, lo, hi, rows)
            cur.execute(raw_rows_sql(group, positions.get(switch_id, {})), {"switch": switch_id, "lo": lo, "hi": hi})
            for row in cur.fetchall():
                t, interval_ms = row[0], row[1]
                for i, s in enumerate(group):
                    f = row[3 + 2 * i]
                    if f is not None:           # None: the series is not in this row's layout
                        rows[s.id].append((t, interval_ms, row[2 + 2 * i], f))
    if with_settled:      # a day reopened for a late poll interleaves rows and blocks no more, but sort once
        for r in rows.values():
            r.sort(key=lambda x: x[0])
    return {sid: raw_columns(r) for sid, r in rows.items()}


def _settled_rows(switch_id: int, group: Sequence[SeriesInfo], lo: datetime, hi: datetime,
                  rows: dict[int, list]) -> None:
    """The settled polls of [lo, hi) as fetch_raw's rows (time as extract(epoch)::float8 gives it)."""
    got = settled_read.read(switch_id, [s.id for s in group], lo, hi)
    inside = got.time_us < settled_read.to_us(hi)
    t = (got.time_us / 1e6).tolist()
    iv = [None if n else v for v, n in zip(got.interval_ms.tolist(), got.interval_null.tolist())]
    for s in group:
        c = got.columns[s.id]
        keep = np.flatnonzero(c.present & inside).tolist()
        d, dn, f = c.delta.tolist(), c.delta_null.tolist(), c.flags.tolist()
        rows[s.id].extend((t[i], iv[i], None if dn[i] else d[i], f[i]) for i in keep)


def _by_switch(series: Sequence[SeriesInfo]) -> dict[int, list[SeriesInfo]]:
    groups: dict[int, list[SeriesInfo]] = defaultdict(list)
    for s in series:
        groups[s.switch_id].append(s)
    return dict(groups)


# --- rollup tiers and their tail ------------------------------------------------------------

# At most this many wanted series: each sample row's arrays are subscripted where they lie, once per
# series (positions found by `m`); more, and each row's arrays are decompressed once into plain
# copies first (`[:]`, kept apart by OFFSET 0). Measured on 12 rows of 432 values (docs/benchmarks.md,
# 3a): 2 series 0.04 ms subscripted against 0.13 ms copied, 8 about even, 32 0.46 against 0.17.
FEW_SERIES = 4


def _raw_segment_sql(i: int, few: bool = False, staged: bool = False) -> str:
    # `few` (FEW_SERIES): each wanted value is taken out of the stored (compressed) array once, in a
    # lateral subquery kept apart (OFFSET 0: flattened, every use of u.d and u.f in the CASEs below
    # decompressed the array again). Else from plain copies of the row's arrays made once per row
    # (subscripting the stored arrays once per series, 48 series took 7 ms instead of 1.4 for 12
    # rows), where a subscript is cheap and the lateral is left to be flattened.
    # The wanted series' array positions are found in the layouts of their switches (a handful:
    # one more per change of what a switch answers), in the same statement (a round trip less than
    # looking them up first; reading which layouts the segment's rows use planned the segment's
    # chunks a second time).
    rate = "u.d::float8 * 1000 / s.interval_ms"
    # staged: settled days too, staged with every wanted series in order (stage_raw)
    table = f"{settled_read.SOURCE} r" if staged else "traffic_sample"
    rows = f"FROM {table} WHERE switch_id = ANY(%(sw)s) AND time >= %(lo{i})s AND time < %(hi{i})s"
    layouts = "traffic_layout l CROSS JOIN unnest(%(ids)s::int[]) AS w(sid) WHERE l.switch_id = ANY(%(sw)s)"
    if staged:
        layouts += (f" UNION ALL SELECT {settled_read.STAGED_LAYOUT}, w.sid, w.pos::int "
                    "FROM unnest(%(ids)s::int[]) WITH ORDINALITY AS w(sid, pos)")
    source = (f"(SELECT * {rows}) s" if few else
              f"(SELECT time, interval_ms, layout_id, delta[:] AS delta, flags[:] AS flags {rows} OFFSET 0) s")
    apart = "OFFSET 0" if few else ""
    return f"""SELECT m.sid AS series_id, s.time AS b,
       CASE WHEN {DRAWN} THEN u.d ELSE 0 END AS sd,
       CASE WHEN {DRAWN} THEN s.interval_ms ELSE 0 END AS si,
       CASE WHEN {DRAWN} THEN {rate} END AS mx, CASE WHEN {DRAWN} THEN {rate} END AS mn,
       1 AS n, CASE WHEN {flagged_sql("u.f")} THEN 1 ELSE 0 END AS fl
  FROM {source}
  JOIN (SELECT l.id AS layout_id, w.sid, array_position(l.series_ids, w.sid) AS pos
          FROM {layouts} OFFSET 0) m ON m.layout_id = s.layout_id AND m.pos IS NOT NULL
  CROSS JOIN LATERAL (SELECT s.delta[m.pos] AS d, s.flags[m.pos] AS f {apart}) u"""


def tail_sql(res: str, tail: Sequence[Segment], few: bool = False, sources: dict[str, str] | None = None) -> str:
    """Buckets of width `res` over the tail segments, summed like the rollup (no ORDER BY).
    few: at most FEW_SERIES series are read. sources: a tier's FROM item where it is not its table
    (its settled buckets staged: stage_tail)."""
    parts = []
    for i, (source, _, _) in enumerate(tail):
        if source == "raw":
            parts.append(_raw_segment_sql(i, few))
        else:
            table = (sources or {}).get(source, TIER[source].table)
            parts.append(f"SELECT series_id, bucket AS b, sum_delta AS sd, sum_interval_ms AS si, max_rate AS mx, "
                         f"min_rate AS mn, samples AS n, flagged AS fl FROM {table} t "
                         f"WHERE series_id = ANY(%(ids)s) AND bucket >= %(lo{i})s AND bucket < %(hi{i})s")
    return (f"SELECT series_id, time_bucket(interval '{TIER[res].seconds} seconds', b) AS bucket, "
            f"coalesce(sum(sd), 0)::bigint AS sum_delta, coalesce(sum(si), 0)::bigint AS sum_interval_ms, "
            f"max(mx) AS max_rate, min(mn) AS min_rate, sum(n)::int AS samples, sum(fl)::int AS flagged "
            f"FROM ({' UNION ALL '.join(parts)}) x GROUP BY 1, 2")


def stage_segments(cur, pairs: Sequence[tuple[int, int]] | None, segments: Sequence[Segment],
                   rates: tuple[str, ...] = ("max", "min"), summed: bool = False) -> dict[str, str]:
    """Inside the reading transaction: the settled buckets of these (series id, switch id) pairs (None:
    every series) that the segments' tiers hold staged (collector/archive/tier_read.py), with the
    extreme rates the statement reads (summed: tier_read.stage); the FROM item of each tier read (raw
    segments are read elsewhere)."""
    return {name: tier_read.stage(cur, TIER[name], pairs, lo, hi, rates, summed)
            for name, lo, hi in segments if name != "raw"}


def stage_tail(cur, series: Sequence[SeriesInfo], tail: Sequence[Segment], main: Segment | None = None,
               rates: tuple[str, ...] = ("max", "min")) -> dict[str, str]:
    """stage_segments for these series, the main segment (if any) and the tail."""
    return stage_segments(cur, [(s.id, s.switch_id) for s in series], ([main] if main else []) + list(tail), rates)


def stage_raw(cur, series: Sequence[SeriesInfo], lo: datetime, hi: datetime) -> bool:
    """Inside the reading transaction: the settled days of these series' switches in [lo, hi] staged,
    every series in each switch's staged arrays in the order of the `ids` parameter (for
    _raw_segment_sql(staged=True)); False when none is settled there."""
    ids = tuple(s.id for s in series)
    pieces = [settled_read.Piece(p.switch_id, ids, p.lo, p.hi)
              for p in settled_read.pieces_for([(s.id, s.switch_id) for s in series], lo, hi)]
    if pieces:
        settled_read.stage(cur, pieces)
    return bool(pieces)


def tail_params(series: Sequence[SeriesInfo], tail: Sequence[Segment]) -> dict:
    """ids (the series), sw (their switches) and lo<i>/hi<i> of each segment."""
    params: dict = {"ids": [s.id for s in series], "sw": sorted({s.switch_id for s in series})}
    for i, (_, lo, hi) in enumerate(tail):
        params[f"lo{i}"], params[f"hi{i}"] = lo, hi
    return params


# A bucket as the plot reads it: (name, type) of each column, never NULL (a missing rate is NaN),
# so that each column arrives as one binary array and becomes a numpy column (pgbinary).
_BUCKET_COLUMNS = (("sid", "int4"), ("t", "timestamptz"), ("d", "int8"), ("ms", "int8"), ("mx", "float8"),
                   ("mn", "float8"), ("n", "int4"), ("f", "int4"))
# Stored columns as they are (times and milliseconds converted by numpy, not per row in SQL: a
# quarter of the aggregation's time); only the rates that may be missing are coalesced.
_BUCKET_VALUES = ("series_id AS sid, bucket AS t, sum_delta AS d, sum_interval_ms AS ms, "
                  "coalesce(max_rate, 'NaN') AS mx, coalesce(min_rate, 'NaN') AS mn, samples AS n, flagged AS f")


def buckets_sql(res: str, main: Segment | None, tail: Sequence[Segment], few: bool = False) -> str:
    """The plot's rows (_BUCKET_VALUES) in no particular order: the main tier's buckets, then the
    tail's rows as they are (buckets of the finer tiers, single raw samples), which _summed
    sums into buckets of width `res` (the rollup's sums: sum, max, min). Neither sorted nor
    grouped here: sorted in the statement, PostgreSQL sorted the tier's rows, slower than numpy
    sorts them afterwards; grouped (tail_sql), the tail's GROUP BY cost more to plan and run
    than numpy's sums of its few dozen rows (docs/benchmarks.md, 3a). few: FEW_SERIES."""
    parts = []
    if main is not None:
        parts.append(f"SELECT {_BUCKET_VALUES} FROM {TIER[res].table} "
                     "WHERE series_id = ANY(%(ids)s) AND bucket >= %(mlo)s AND bucket < %(mhi)s")
    for i, (source, _, _) in enumerate(tail):
        if source == "raw":
            parts.append("SELECT series_id AS sid, b AS t, sd AS d, si AS ms, coalesce(mx, 'NaN') AS mx, "
                         f"coalesce(mn, 'NaN') AS mn, n, fl AS f FROM ({_raw_segment_sql(i, few)}) r")
        else:
            parts.append(f"SELECT {_BUCKET_VALUES} FROM {TIER[source].table} "
                         f"WHERE series_id = ANY(%(ids)s) AND bucket >= %(lo{i})s AND bucket < %(hi{i})s")
    return " UNION ALL ".join(parts)


def send_buckets(series: Sequence[SeriesInfo], res: str, main: Segment | None,
                 tail: Sequence[Segment]) -> Send | None:
    """Each series' buckets of width `res` over [main, tail), oldest first, in one statement (so
    one snapshot: a rollup committing meanwhile cannot make a bucket appear twice or not at all),
    to send alone (prepared.read_one) or with others (prepared.together); None when the plan
    reads nothing (every series then has no points)."""
    send = send_bucket_rows(series, res, main, tail)
    if send is None:
        return None
    ids = [s.id for s in series]

    def sent(cur) -> Callable[[], dict[int, Columns]]:
        read = send(cur)
        return lambda: _by_series(ids, res, read())
    return sent


def send_bucket_rows(series: Sequence[SeriesInfo], res: str, main: Segment | None,
                     tail: Sequence[Segment], rates: tuple[str, ...] = tierblocks.RATES) -> Send | None:
    """The buckets of send_buckets as flat columns of every series together, sorted by (series, time)
    and summed (sid, t: microseconds since 2000-01-01 UTC, d, ms, mx, mn, n, f; NaN for a rate that
    does not exist): what a bulk export reads (collector/reader/bulk.py), without a Columns per series.
    rates: the extreme rates the reader needs from settled buckets (the others NaN there: p95 reads
    sums only)."""
    if main is None and not tail:
        return None
    params = tail_params(series, tail)
    if main is not None:
        params["mlo"], params["mhi"] = main[1], main[2]
    send = pgbinary.send_columns(buckets_sql(res, main, tail, len(series) <= FEW_SERIES), params, _BUCKET_COLUMNS)
    width_us = TIER[res].seconds * 1_000_000
    segments = ([(res, main[1], main[2])] if main is not None else []) + [s for s in tail if s[0] != "raw"]
    pairs = [(s.id, s.switch_id) for s in series]

    def sent(cur) -> Callable[[], dict[str, np.ndarray]]:
        read = send(cur)

        def done() -> dict[str, np.ndarray]:
            rows = read()
            for name, lo, hi in segments:       # after the statement: see tier_read.added
                rows = tier_read.added(rows, tier_read.columns(TIER[name], pairs, lo, hi, rates))
            return _summed(rows, width_us)
        return done
    return sent


def _by_series(ids: list[int], res: str, col: dict[str, np.ndarray]) -> dict[int, Columns]:
    """The statement's rows, summed and sorted by (series, time) (send_bucket_rows), as each
    series' buckets of width `res`, oldest first."""
    out = {sid: empty() for sid in ids}
    sids = col["sid"]
    width = float(TIER[res].seconds)
    for sid in out:
        lo, hi = np.searchsorted(sids, [sid, sid + 1])
        if lo == hi:
            continue
        part = {name: values[lo:hi] for name, values in col.items()}
        out[sid] = bucket_columns(width, pgbinary.epoch_seconds(part["t"]), part["d"], part["ms"] / 1000,
                                  part["mx"], part["mn"], part["n"], part["f"])
    return out


def _summed(col: dict[str, np.ndarray], width_us: int) -> dict[str, np.ndarray]:
    """Rows sorted by (series, time) and summed per bucket of width_us (microseconds; times are
    microseconds since 2000-01-01 UTC, a midnight, so buckets of a day or less fall where the
    rollup's do): the sums of the rollup (collector/archive/rollup.py TIER_AGGREGATES), with NaN
    for a rate that does not exist (fmax/fmin skip it as max/min skip NULL)."""
    order = np.lexsort((col["t"], col["sid"]))
    sid = col["sid"][order].astype(np.int64)
    t = col["t"][order].astype(np.int64)
    t -= t % width_us
    first = np.ones(len(t), bool)
    first[1:] = (t[1:] != t[:-1]) | (sid[1:] != sid[:-1])
    starts = np.flatnonzero(first)

    def each(name: str, how: np.ufunc, dtype: type) -> np.ndarray:
        values: np.ndarray = col[name][order].astype(dtype)
        return values if len(starts) == len(t) else how.reduceat(values, starts)
    return {"sid": sid[starts], "t": t[starts], "d": each("d", np.add, np.int64), "ms": each("ms", np.add, np.int64),
            "mx": each("mx", np.fmax, np.float64), "mn": each("mn", np.fmin, np.float64),
            "n": each("n", np.add, np.int64), "f": each("f", np.add, np.int64)}


# --- 95th percentile ------------------------------------------------------------------------

def p95(series: Sequence[SeriesInfo], basis: str, main: Segment | None,
        tail: Sequence[Segment]) -> dict[int, float | None]:
    """95th percentile of the rates at `basis` resolution (raw samples or bucket averages) of every
    series, as PostgreSQL's percentile_cont(0.95) gives it. Over a tier that settles into blocks:
    the plot's bucket statement (send_bucket_rows: one prepared round trip, settled buckets decoded
    beside it, no staging) and the percentile in numpy (numerics.summary.percentile_cont, bit for
    bit the database's); over a tier that stays rows and over raw samples: one SQL statement, the
    grouped aggregate sorting each series' own rates (a year of hourly buckets travelling to numpy
    took 2.4x as long; 48 queries of one series took 1.9x as long)."""
    out: dict[int, float | None] = {s.id: None for s in series}
    if basis in tier_read.STAGED:
        send = send_bucket_rows(series, basis, main, tail, rates=())
        if send is not None:
            out.update(bucket_percentiles(read_one(send), 0.95))
        return out
    with transaction.atomic(), connection.cursor() as cur:
        rates, params = _rates_sql(cur, series, basis, main, tail)
        if rates is None:
            return out
        cur.execute(f"SELECT series_id, percentile_cont(0.95) WITHIN GROUP (ORDER BY rate) FROM ({rates}) r "
                    "GROUP BY series_id", params)
        for sid, value in cur.fetchall():
            out[sid] = value
    return out


def _rates_sql(cur, series: Sequence[SeriesInfo], basis: str, main: Segment | None,
               tail: Sequence[Segment]) -> tuple[str | None, dict]:
    """The statement of every series' rates at `basis` (its settled parts staged), and its parameters;
    None when there is nothing to read."""
    few = len(series) <= FEW_SERIES
    if basis == "raw":
        assert main is not None
        staged = stage_raw(cur, series, main[1], main[2])
        return (f"SELECT series_id, sd::float8 * 1000 / si AS rate FROM ({_raw_segment_sql(0, few, staged)}) x "
                "WHERE si > 0", {**tail_params(series, []), "lo0": main[1], "hi0": main[2]})
    parts = []
    params = tail_params(series, tail)
    sources = stage_tail(cur, series, tail, (basis, main[1], main[2]) if main is not None else None, rates=())
    if main is not None:
        parts.append(f"SELECT series_id, sum_delta, sum_interval_ms FROM {sources[basis]} m "
                     "WHERE series_id = ANY(%(ids)s) AND bucket >= %(mlo)s AND bucket < %(mhi)s")
        params["mlo"], params["mhi"] = main[1], main[2]
    if tail:
        parts.append(f"SELECT series_id, sum_delta, sum_interval_ms FROM ({tail_sql(basis, tail, few, sources)}) t")
    if not parts:
        return None, params
    return (f"SELECT series_id, sum_delta::float8 * 1000 / sum_interval_ms AS rate "
            f"FROM ({' UNION ALL '.join(parts)}) x WHERE sum_interval_ms > 0", params)


def bucket_percentiles(col: dict[str, np.ndarray], fraction: float) -> dict[int, float | None]:
    """Per series of bucket columns (send_bucket_rows: sorted by series), the percentile of its
    buckets' average rates, `sum_delta::float8 * 1000 / sum_interval_ms` where the interval is
    positive, as the database computes both."""
    live = col["ms"] > 0
    sid = col["sid"][live]
    rate = col["d"][live].astype(np.float64) * 1000.0 / col["ms"][live].astype(np.float64)
    if not len(sid):
        return {}
    starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
    ends = np.r_[starts[1:], len(sid)]
    return {int(sid[a]): percentile_cont(np.sort(rate[a:b]), fraction) for a, b in zip(starts, ends, strict=True)}


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
