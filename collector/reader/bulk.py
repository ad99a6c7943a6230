"""Many series over a window, batch by batch, as typed numpy columns: what bulk exports (CSV, wide
CSV, Parquet: collector/exports) read, whatever their size, in bounded memory.

A plan (`plan`) fixes the series (collector/reader/bulkscope.py), the window and the resolution:
raw samples or one rollup tier ('auto': what the plot page would draw). `batches` then reads it in
pieces of at most BATCH_ROWS rows, one statement each, and hands each over as a `Batch`:

- order "switch" (long exports): switches in the scope's order, a few whole switches per piece, a
  big one alone and cut in time; rows by switch, then time, then series (scope order).
- order "time" (wide exports): the whole scope at once over consecutive pieces of the window, at
  most WIDE_CELLS times x series per piece (the wide table of a piece); rows by time, then series.

Raw rows: every stored sample of a wanted series (sample rows, and the blocks of settled days:
collector/archive/settled_read.py, read for the piece's switches that have any), with its counter
reading (unsigned, exact: a Counter64 stored as two's complement comes back as the uint64 it was),
delta, flag bits and interval; its rate (units/s) only where it is drawn as traffic (collector/archive/rollup.py
drawn_sql: a delta, a positive interval, not OVER_CAPACITY), as on the plot and in the plot's CSV.
Tier rows: the buckets the plot reads (the tier up to its watermark, then its live tail summed
from finer tiers and raw samples: queries.send_bucket_rows): drawn delta, drawn seconds, average,
peak and lowest rate, samples and flagged samples.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from collector.archive import settled_read
from collector.archive.prepared import read_one, statement_timeout
from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIER
from collector.core.facts import NOT_DRAWN
from collector.core.isotime import iso
from collector.reader import pgbinary, queries, resolution, selection
from collector.reader.catalog import SeriesInfo
from collector.reader.selection import BadRequest

BATCH_ROWS = 200_000        # rows one statement reads: ~16 MB of columns, a Parquet row group
WIDE_CELLS = 4_000_000      # times x series of one piece of a wide export (its table in memory)
US = 1_000_000
PG_EPOCH_US = pgbinary.PG_EPOCH_S * US

RAW_FIELDS = ("counter", "delta", "rate", "interval_s", "flags")
TIER_FIELDS = ("delta", "rate", "peak_rate", "min_rate", "drawn_s", "samples", "flagged")

# One piece of raw samples: each sample row's arrays unnested (one pass per row, whatever the
# number of series), the wanted series kept by a hash join on their ids. Only non-NULL values
# travel as binary arrays (pgbinary): `has` says which of counter (1) and delta (2) exist.
_DRAWN = drawn_sql("u.d", "u.f", "s.interval_ms")
RAW_SQL = f"""
SELECT s.time AS t, u.sid AS sid, coalesce(u.r, 0) AS counter, coalesce(u.d, 0) AS delta, u.f::int4 AS flags,
       coalesce(s.interval_ms, -1) AS ms,
       CASE WHEN u.r IS NULL THEN 0 ELSE 1 END + CASE WHEN u.d IS NULL THEN 0 ELSE 2 END AS has,
       CASE WHEN {_DRAWN} THEN u.d::float8 * 1000 / s.interval_ms ELSE 'NaN'::float8 END AS rate
  FROM traffic_sample s
  JOIN traffic_layout l ON l.id = s.layout_id
 CROSS JOIN LATERAL unnest(l.series_ids, s.raw, s.delta, s.flags) AS u(sid, r, d, f)
  JOIN (SELECT DISTINCT unnest(%(ids)s::int4[]) AS sid) w ON w.sid = u.sid
 WHERE s.switch_id = ANY(%(sw)s) AND s.time >= %(lo)s AND s.time < %(hi)s"""
RAW_COLUMNS = (("t", "timestamptz"), ("sid", "int4"), ("counter", "int8"), ("delta", "int8"), ("flags", "int4"),
               ("ms", "int4"), ("has", "int4"), ("rate", "float8"))


DEFAULT_SPAN = timedelta(hours=24)
_RELATIVE = re.compile(r"^(\d+)([mhdwy])$")


def window(start: str, end: str, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) from the CLI's or the web's words: ISO 8601 (UTC without an offset), or a span
    back like the pages' ranges (90m, 24h, 7d, 2w, 1y): start that long before end, end that long
    before now. Defaults: end now, start 24 h before end. BadRequest for anything else."""
    def when(name: str, text: str, before: datetime) -> datetime:
        m = _RELATIVE.match(text.strip().lower())
        if m:
            return before - timedelta(seconds=int(m.group(1)) * selection.COMPARE_UNITS[m.group(2)])
        try:
            return selection.parse_time(name, text)
        except BadRequest as exc:
            raise BadRequest(f"{exc}, or a span back such as 90m, 24h, 7d, 1y") from None
    hi = when("end", end, now) if end.strip() else now
    lo = when("start", start, hi) if start.strip() else hi - DEFAULT_SPAN
    return lo, hi


@dataclass(frozen=True)
class BulkPlan:
    series: tuple[SeriesInfo, ...]      # in export order (bulkscope.order_key)
    res: str                            # raw | 1m | 15m | 1h | 1d
    start: datetime                     # aligned to res: whole buckets
    end: datetime
    done: Mapping[str, datetime | None]     # rollup watermarks when planned
    notes: tuple[str, ...] = ()

    @property
    def expected_rows(self) -> int:
        return sum(_points(self, s) for s in self.series)

    def step_s(self, s: SeriesInfo) -> float:
        return resolution.seconds(self.res, s.poll_interval_s)


def _points(p: BulkPlan, s: SeriesInfo) -> int:
    return max(1, math.ceil((p.end - p.start).total_seconds() / p.step_s(s)))


def plan(series: Sequence[SeriesInfo], start: datetime, end: datetime, res: str, *, max_rows: int,
         now: datetime | None = None) -> BulkPlan:
    """The export of `series` over [start, end) at `res` (raw, a tier, or auto); BadRequest for a
    bad window (selection.resolve_range's checks) or more than max_rows rows (both numbers named)."""
    if not series:
        raise BadRequest("no series to export")
    if res not in resolution.CHOICES:
        raise BadRequest(f"unknown resolution {res!r}; use one of {', '.join(resolution.CHOICES)}")
    clock, done = queries.now_and_watermarks()
    now = now or clock
    start, end = selection.resolve_range(selection.PlotRequest((), "custom", start, end), now, None)
    cut = queries.retention_cutoffs(now)
    poll = float(min(s.poll_interval_s for s in series))
    notes: list[str] = []
    if res == "auto":
        res = resolution.choose(start, end, poll, cut, queries.max_plot_points())
    elif not resolution.available(res, start, cut):
        notes.append(f"{resolution.RES_LABEL[res]} are kept only since {iso(cut[res])}; "      # type: ignore[arg-type]
                     "older parts of the window are empty at this resolution")
    start, end = resolution.align(res, start, end)
    p = BulkPlan(tuple(series), res, start, end, dict(done), tuple(notes))
    rows = p.expected_rows
    if rows > max_rows:
        raise BadRequest(f"{len(series):,} series x {(end - start).total_seconds() / 86400:.3g} days of "
                         f"{resolution.RES_LABEL[res]} = about {rows:,} rows; a bulk export holds at most "
                         f"{max_rows:,} (CELLAR_BULK_EXPORT_MAX_ROWS): choose a shorter window, a coarser "
                         "resolution or fewer series")
    return p


@dataclass
class Batch:
    """Rows of one piece: t (int64 Unix microseconds, UTC), sid (int32 series id), rank (int32: the
    series' place in the plan's series), and the value columns of RAW_FIELDS or TIER_FIELDS; `valid`
    masks the columns that may be empty (counter and delta of raw rows; rates and interval_s are NaN
    where they do not exist)."""
    t: np.ndarray
    sid: np.ndarray
    values: dict[str, np.ndarray]
    valid: dict[str, np.ndarray]
    rank: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.t)


def batches(p: BulkPlan, order: str = "switch", *, timeout_ms: int | None = None) -> Iterator[Batch]:
    """The plan's rows piece by piece (see the module's docstring for the two orders); each piece
    one statement, under timeout_ms when given (a web request's budget)."""
    rank = _Ranks(p.series)
    pieces = _by_switch(p) if order == "switch" else _by_time(p)
    for group, lo, hi in pieces:
        if timeout_ms is None:
            cols = _read(p, group, lo, hi)
        else:
            with statement_timeout(timeout_ms):
                cols = _read(p, group, lo, hi)
        if len(cols.t):
            yield rank.sorted(cols, by_switch=order == "switch")


Piece = tuple[list[SeriesInfo], datetime, datetime]


def _by_switch(p: BulkPlan) -> Iterator[Piece]:
    """Consecutive whole switches up to BATCH_ROWS rows; a switch above it alone, cut in time."""
    group: list[SeriesInfo] = []
    rows = 0
    for switch in _switches(p.series):
        n = sum(_points(p, s) for s in switch)
        if group and rows + n > BATCH_ROWS:
            yield group, p.start, p.end
            group, rows = [], 0
        if n <= BATCH_ROWS:
            group, rows = group + switch, rows + n
            continue
        yield from _cut(p, switch, sum(1 / p.step_s(s) for s in switch), None)
    if group:
        yield group, p.start, p.end


def _by_time(p: BulkPlan) -> Iterator[Piece]:
    """The whole scope over consecutive pieces of the window."""
    series = list(p.series)
    rows_per_s = sum(1 / p.step_s(s) for s in series)
    # distinct times per second: each switch's polls (raw), or the tier's buckets
    times_per_s = (sum(1 / p.step_s(sw[0]) for sw in _switches(series)) if p.res == "raw"
                   else 1 / TIER[p.res].seconds)
    yield from _cut(p, series, rows_per_s, times_per_s * len(series))


def _cut(p: BulkPlan, series: list[SeriesInfo], rows_per_s: float, cells_per_s: float | None) -> Iterator[Piece]:
    """Pieces of the window of at most BATCH_ROWS rows (and WIDE_CELLS cells), whole buckets each."""
    step = 1.0 if p.res == "raw" else float(TIER[p.res].seconds)
    span = BATCH_ROWS / rows_per_s if cells_per_s is None else min(BATCH_ROWS / rows_per_s, WIDE_CELLS / cells_per_s)
    span = max(step, span // step * step)
    lo = p.start
    while lo < p.end:
        hi = min(p.end, lo + timedelta(seconds=span))
        yield series, lo, hi
        lo = hi


def _switches(series: Sequence[SeriesInfo]) -> list[list[SeriesInfo]]:
    by: dict[int, list[SeriesInfo]] = {}
    for s in series:
        by.setdefault(s.switch_id, []).append(s)
    return list(by.values())


def _read(p: BulkPlan, group: list[SeriesInfo], lo: datetime, hi: datetime) -> Batch:
    if p.res == "raw":
        return _read_raw(group, lo, hi)
    return _read_tier(p, group, lo, hi)


def _read_raw(group: list[SeriesInfo], lo: datetime, hi: datetime) -> Batch:
    """The piece's sample rows, and its switches' settled polls (collector/archive/settled_read.py)."""
    switches = sorted({s.switch_id for s in group})
    params = {"ids": [s.id for s in group], "sw": switches, "lo": lo, "hi": hi}
    c = pgbinary.fetch_columns(RAW_SQL, params, RAW_COLUMNS)
    ms = c["ms"].astype(np.float64)
    has = c["has"]
    values = {"counter": c["counter"].astype(np.int64).view(np.uint64), "delta": c["delta"].astype(np.int64),
              "rate": c["rate"].astype(np.float64), "interval_s": np.where(ms >= 0, ms / 1000, np.nan),
              "flags": c["flags"].astype(np.int32)}
    valid = {"counter": (has & 1) > 0, "delta": (has & 2) > 0}
    parts = [Batch(c["t"].astype(np.int64) + PG_EPOCH_US, c["sid"].astype(np.int32), values, valid)]
    for switch_id in sorted(settled_read.settled_switches(switches, lo, hi)):
        parts.append(_read_settled(switch_id, [s.id for s in group if s.switch_id == switch_id], lo, hi))
    return parts[0] if len(parts) == 1 else _joined(parts)


def _read_settled(switch_id: int, ids: list[int], lo: datetime, hi: datetime) -> Batch:
    """A switch's settled polls in [lo, hi) as raw rows: the values their sample rows held, the rate
    by the same rule and arithmetic as RAW_SQL's (a float8 delta x 1000 / the interval)."""
    got = settled_read.read(switch_id, ids, lo, hi)
    inside = (got.time_us >= settled_read.to_us(lo)) & (got.time_us < settled_read.to_us(hi))
    ms = np.where(got.interval_null, -1, got.interval_ms).astype(np.float64)
    parts = []
    for sid in ids:
        col = got.columns[sid]
        k = np.flatnonzero(col.present & inside)
        delta, flags, interval = col.delta[k], col.flags[k], ms[k]
        drawn = ~col.delta_null[k] & ((flags & int(NOT_DRAWN)) == 0) & (interval > 0)
        rate = np.full(len(k), np.nan)
        np.divide(delta.astype(np.float64) * 1000, interval, out=rate, where=drawn)
        values = {"counter": col.raw[k].astype(np.int64).view(np.uint64), "delta": delta.astype(np.int64),
                  "rate": rate, "interval_s": np.where(interval >= 0, interval / 1000, np.nan),
                  "flags": flags.astype(np.int32)}
        parts.append(Batch(got.time_us[k].astype(np.int64), np.full(len(k), sid, np.int32), values,
                           {"counter": ~col.raw_null[k], "delta": ~col.delta_null[k]}))
    return _joined(parts) if parts else _empty()


def _joined(parts: list[Batch]) -> Batch:
    parts = [b for b in parts if len(b)] or parts[:1]
    return Batch(np.concatenate([b.t for b in parts]), np.concatenate([b.sid for b in parts]),
                 {k: np.concatenate([b.values[k] for b in parts]) for k in parts[0].values},
                 {k: np.concatenate([b.valid[k] for b in parts]) for k in parts[0].valid})


def _read_tier(p: BulkPlan, group: list[SeriesInfo], lo: datetime, hi: datetime) -> Batch:
    main, tail = resolution.segments(p.res, lo, hi, p.done)
    send = queries.send_bucket_rows(group, p.res, main, tail)
    if send is None:
        return _empty()
    c = read_one(send)
    ms = c["ms"].astype(np.float64)
    rate = np.full(len(ms), np.nan)
    np.divide(c["d"] * 1000.0, ms, out=rate, where=ms > 0)
    values = {"delta": c["d"], "rate": rate, "peak_rate": c["mx"], "min_rate": c["mn"], "drawn_s": ms / 1000,
              "samples": c["n"], "flagged": c["f"]}
    return Batch(c["t"] + PG_EPOCH_US, c["sid"].astype(np.int32), values, {})


def _empty() -> Batch:
    return Batch(np.empty(0, np.int64), np.empty(0, np.int32), {}, {})


class _Ranks:
    """Series id -> its rank in the scope (and its switch's), to sort a piece's rows."""

    def __init__(self, series: Sequence[SeriesInfo]):
        ids = np.asarray([s.id for s in series], np.int64)
        switch_rank: dict[int, int] = {}
        sw = np.asarray([switch_rank.setdefault(s.switch_id, len(switch_rank)) for s in series], np.int64)
        self.order = np.argsort(ids)
        self.ids, self.rank, self.switch = ids[self.order], self.order, sw[self.order]

    def sorted(self, b: Batch, *, by_switch: bool) -> Batch:
        at = np.searchsorted(self.ids, b.sid)
        rank, switch = self.rank[at], self.switch[at]
        keys = (rank, b.t, switch) if by_switch else (rank, b.t)
        o = np.lexsort(keys)
        return Batch(b.t[o], b.sid[o], {k: v[o] for k, v in b.values.items()}, {k: v[o] for k, v in b.valid.items()},
                     rank[o].astype(np.int32))
