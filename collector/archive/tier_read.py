"""Reading settled rollup buckets: the blocks of a switch's settled tier spans
(collector/archive/tier_settle.py) decoded, the one path by which settled buckets are read.

Readers of the tiers are SQL statements (sums, groups, the plots' unions), so settled buckets are
read the way settled raw days are (collector/archive/settled_read.py): `stage` decodes the blocks a
statement's series and range need into a temporary table shaped as the tier's table and returns
the statement's source, the tier's rows and the staged ones as one FROM item (`source`), or the
tier's table alone when nothing there is settled (one index probe). The temporary table lives in
the reading transaction only (ON COMMIT DELETE ROWS: call `stage` inside transaction.atomic) and
holds the asked series of the asked range: never a second copy of the archive. The plots'
pipelined statement cannot be preceded by a COPY: `columns` decodes their buckets beside it. A
statement stored to run later (a CSV export job) names what to stage (`sources_for`), staged when
it runs.

Staged buckets are written in COPY's binary format (`copy_binary`): every double as its 8 bytes, so
every rate is exact. Reopening a block (tier_settle.reopen) puts its buckets back through the same
staging (`put_back`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import numpy as np

from collector.archive import prepared
from collector.archive.tiers import SETTLED_TIERS, TIER, TIER_COLUMNS, Tier
from collector.core import tierblocks
from collector.core.isotime import PG_EPOCH_S

STAGED = {t.name: f"pg_temp.cellar_settled_{t.name}" for t in SETTLED_TIERS}
# A block's span overlaps [lo, hi) when its start is after lo - span; ranges without an end use these.
NEVER = datetime(1900, 1, 1, tzinfo=UTC)
FOREVER = datetime(9999, 12, 30, tzinfo=UTC)

Block = tuple[int, datetime, tierblocks.TierSpine, dict[int, tierblocks.TierColumn]]   # switch, lo, spine, columns


# One round trip: the spines (series NULL), then the columns of the blocks they start. Prepared (the
# plan of this CTE over two hypertables cost ~10 times its run: 3.7 against 0.25 ms) and read in
# binary (a block as its bytes, not hex); one text per combination of the two optional filters.
_OVERLAPPING = ("FROM traffic_settled_tier WHERE tier = %(tier)s AND lo > %(start)s AND lo < %(hi)s "
                "AND last_bucket >= %(lo)s AND first_bucket < %(hi)s{where}")
_THEIR_COLUMNS = ("FROM traffic_settled_tier_series c JOIN s ON c.switch_id = s.switch_id AND c.lo = s.lo "
                  "WHERE c.tier = %(tier)s{sel}")
_BLOCKS_SQL = (f"WITH s AS MATERIALIZED (SELECT switch_id, lo, block {_OVERLAPPING}) "
               "SELECT switch_id, lo, NULL::int, block FROM s UNION ALL "
               f"SELECT c.switch_id, c.lo, c.series_id, c.block {_THEIR_COLUMNS}")
# The summed readers' statement: a column of a block wholly inside the range as its totals
# (migration 0011) and no block; the others' blocks to decode, and only their blocks' spines.
_SUMMED_SQL = (f"WITH s AS MATERIALIZED (SELECT switch_id, lo, first_bucket, block, first_bucket >= %(lo)s "
               f"AND last_bucket < %(hi)s AS whole {_OVERLAPPING}) "
               "SELECT switch_id, lo, NULL::int, CASE WHEN whole AND NOT EXISTS (SELECT FROM "
               "traffic_settled_tier_series n WHERE n.tier = %(tier)s AND n.switch_id = s.switch_id "
               "AND n.lo = s.lo AND n.total_delta IS NULL) THEN NULL ELSE block END, first_bucket, "
               "NULL::int8, NULL::int8, NULL::float8, NULL::float8, NULL::int8, NULL::int8 FROM s UNION ALL "
               "SELECT c.switch_id, c.lo, c.series_id, CASE WHEN s.whole AND c.total_delta IS NOT NULL THEN NULL "
               "ELSE c.block END, s.first_bucket, c.total_delta, c.total_interval_ms, c.peak_rate, c.floor_rate, "
               f"c.total_samples, c.total_flagged {_THEIR_COLUMNS}")


def _fetch(template: str, tier: Tier, switch_ids: Sequence[int] | None, series_ids: Sequence[int] | None,
           lo: datetime, hi: datetime) -> list[tuple]:
    sql = template.format(where="" if switch_ids is None else " AND switch_id = ANY(%(switches)s::int[])",
                          sel="" if series_ids is None else " AND c.series_id = ANY(%(series)s::int[])")
    params = {"tier": tier.name, "lo": lo, "hi": hi, "start": max(lo, NEVER) - tier.block,
              "switches": list(switch_ids or ()), "series": list(series_ids or ())}

    def send(cur) -> Callable[[], list[tuple]]:
        cur.execute(sql, params, binary=True, prepare=True)
        return cur.fetchall
    return prepared.read_one(send)


def blocks(tier: Tier, switch_ids: Sequence[int] | None, series_ids: Sequence[int] | None,
           lo: datetime | None, hi: datetime | None, rates: tuple[str, ...] = tierblocks.RATES) -> list[Block]:
    """The tier's settled blocks overlapping [lo, hi) of these switches (None: every switch), decoded
    for these series (None: every series of the block), oldest first per switch; `rates`: the
    extreme rates the reader needs (tierblocks.decode_column: the others come back NULL). Read on
    Django's connection, so in the caller's transaction, under its statement limit."""
    got = _fetch(_BLOCKS_SQL, tier, switch_ids, series_ids, lo or NEVER, hi or FOREVER)
    spines = {(sw, at): tierblocks.decode_spine(b) for sw, at, sid, b in got if sid is None}
    keys = sorted(spines)
    cols: dict[tuple[int, datetime], dict[int, tierblocks.TierColumn]] = {k: {} for k in keys}
    for sw, at, sid, b in got:
        if sid is not None:
            cols[(sw, at)][sid] = tierblocks.decode_column(b, spines[(sw, at)], rates)
    return [(sw, at, spines[(sw, at)], cols[(sw, at)]) for sw, at in keys]


def _summed(tier: Tier, series: Sequence[tuple[int, int]] | None, lo: datetime | None, hi: datetime | None,
            rates: tuple[str, ...]) -> dict[str, np.ndarray]:
    """columns_of(summed=True) of the blocks overlapping [lo, hi), a block wholly inside the range
    taken from its totals without decoding it (a day's talkers over daily blocks: no block decoded)."""
    lo, hi = lo or NEVER, hi or FOREVER
    got = _fetch(_SUMMED_SQL, tier, None if series is None else sorted({sw for _, sw in series}),
                 None if series is None else sorted({sid for sid, _ in series}), lo, hi)
    spines = {(sw, at): tierblocks.decode_spine(b) for sw, at, sid, b, *_ in got if sid is None and b is not None}
    decoded: dict[tuple[int, datetime], dict[int, tierblocks.TierColumn]] = {}
    whole: list[tuple] = []
    for sw, at, sid, b, first, *tot in got:
        if sid is None:
            continue
        if b is None:
            whole.append((sid, first, *tot))
        else:
            decoded.setdefault((sw, at), {})[sid] = tierblocks.decode_column(b, spines[(sw, at)], rates)
    cut = columns_of(tier, [(sw, at, spines[(sw, at)], cols) for (sw, at), cols in decoded.items()], lo, hi, True)
    if not whole:
        return cut
    sid, first, d, ms, mx, mn, n, f = zip(*whole, strict=True)
    rate = lambda v, name: [np.nan if x is None or name not in rates else x for x in v]  # noqa: E731
    rows = {"sid": sid, "t": [(epoch_s(t) - PG_EPOCH_S) * 1_000_000 for t in first], "d": d, "ms": ms,
            "mx": rate(mx, "max"), "mn": rate(mn, "min"), "n": n, "f": f}
    return {k: np.concatenate([cut[k], np.array(rows[k], _DTYPES[k])]) for k in _DTYPES}


def epoch_s(t: datetime) -> int:
    return int(t.timestamp())


def stage(cur, tier: Tier, series: Sequence[tuple[int, int]] | None, lo: datetime | None,
          hi: datetime | None, rates: tuple[str, ...] = tierblocks.RATES, summed: bool = False) -> str:
    """Inside the reading transaction: the settled buckets of these (series id, switch id) pairs (None:
    every series) in [lo, hi) into the tier's staging table; returns the statement's source for the
    tier: its table alone when none of them is settled there. rates: the extreme rates the statement
    reads (max_rate, min_rate: "max", "min"); the others are staged NULL. summed: a row per series
    and block (columns_of), for a statement that only sums each series over [lo, hi)."""
    if tier.name not in STAGED or (series is not None and not series):
        return tier.table
    cols = _summed(tier, series, lo, hi, rates) if summed else columns_of(tier, _found(tier, series, lo, hi, rates),
                                                                            lo, hi)
    if not len(cols["sid"]):
        return tier.table
    _put(cur, tier, cols)
    return source(tier)


def stage_ranges(cur, tier: Tier, series: Sequence[tuple[int, int]] | None,
                 ranges: Sequence[tuple[datetime, datetime]], rates: tuple[str, ...] = tierblocks.RATES) -> str:
    """stage, for several ranges at once (their blocks whole: the statement bounds what it reads)."""
    if tier.name not in STAGED or not ranges or (series is not None and not series):
        return tier.table
    merged: list[list[datetime]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    found: dict[tuple[int, datetime], Block] = {}
    for lo, hi in merged:
        found.update({(b[0], b[1]): b for b in _found(tier, series, lo, hi, rates)})
    if not found:
        return tier.table
    _put(cur, tier, columns_of(tier, list(found.values()), None, None))
    return source(tier)


def _found(tier: Tier, series: Sequence[tuple[int, int]] | None, lo: datetime | None,
           hi: datetime | None, rates: tuple[str, ...] = tierblocks.RATES) -> list[Block]:
    if series is None:
        return blocks(tier, None, None, lo, hi, rates)
    return blocks(tier, sorted({sw for _, sw in series}), sorted({sid for sid, _ in series}), lo, hi, rates)


def _put(cur, tier: Tier, cols: dict[str, np.ndarray]) -> None:
    table = STAGED[tier.name]
    # one round trip; DELETE, not TRUNCATE: the table is empty but for a second staging in one
    # transaction, and TRUNCATE makes a new file each time
    cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table.split('.')[1]} "
                f"(LIKE {tier.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS; DELETE FROM {table}")
    data = copy_binary(cols)
    if data:
        with cur.copy(f"COPY {table} ({TIER_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(data)


# COPY's binary format, every row the same size: staged rates are NaN where they do not exist (`source`
# reads them back as NULL; a stored rate is finite), so a row is a fixed record numpy writes at once
# (text, each float spelled out, cost ~2 us a bucket; this ~0.05 us).
_ROW = np.dtype([("fields", ">i2"), ("l0", ">i4"), ("bucket", ">i8"), ("l1", ">i4"), ("series_id", ">i4"),
                 ("l2", ">i4"), ("sum_delta", ">i8"), ("l3", ">i4"), ("sum_interval_ms", ">i8"), ("l4", ">i4"),
                 ("max_rate", ">f8"), ("l5", ">i4"), ("min_rate", ">f8"), ("l6", ">i4"), ("samples", ">i4"),
                 ("l7", ">i4"), ("flagged", ">i4")])
_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
_TRAILER = (-1).to_bytes(2, "big", signed=True)


# A bucket without drawn samples, written with its rates NULL (`copy_binary(null_rates=True)`).
_RATE_FIELDS = ("max_rate", "min_rate")
_ROW_NO_RATES = np.dtype([(name, _ROW[name]) for name in _ROW.names or () if name not in _RATE_FIELDS])


def copy_binary(cols: dict[str, np.ndarray], null_rates: bool = False) -> bytes:
    """The columns (`columns_of`) as COPY binary data in TIER_COLUMNS order, in their order (null_rates:
    the buckets with rates first); b"" when there are none. null_rates: NaN rates as NULL (rows of a
    tier's table: collector/archive/rollup_raw.py), else as NaN (staged)."""
    n = len(cols["sid"])
    if not n:
        return b""
    if not null_rates:
        return _HEADER + _records(cols, np.ones(n, bool), _ROW).tobytes() + _TRAILER
    none = np.isnan(cols["mx"])
    if (none != np.isnan(cols["mn"])).any():
        raise ValueError("a bucket with one extreme rate and not the other")
    if not none.any():
        return _HEADER + _records(cols, ~none, _ROW).tobytes() + _TRAILER
    return _HEADER + _records(cols, ~none, _ROW).tobytes() + _records(cols, none, _ROW_NO_RATES).tobytes() + _TRAILER


def _records(cols: dict[str, np.ndarray], which: np.ndarray, dtype: np.dtype) -> np.ndarray:
    rows = np.empty(int(which.sum()), dtype)
    fields: tuple[str, ...] = dtype.names or ()
    rates = "max_rate" in fields
    rows["fields"] = 8
    for k, size in enumerate((8, 4, 8, 8, 8, 8, 4, 4)):
        rows[f"l{k}"] = size if rates or k not in (4, 5) else -1      # -1: NULL, no value follows
    for name, key in (("bucket", "t"), ("series_id", "sid"), ("sum_delta", "d"), ("sum_interval_ms", "ms"),
                      ("max_rate", "mx"), ("min_rate", "mn"), ("samples", "n"), ("flagged", "f")):
        if name in fields:
            rows[name] = cols[key][which]
    return rows


# A statement stored to run later (a CSV export job: collector/archive/export.py stream_copy) names
# what to stage in its parameters: [tier, [[series id, switch id], ...], lo, hi] per tier read, and
# reads every settled tier through `source`; staged when it runs, so that spans settled meanwhile
# are read from their blocks.
PIECES_PARAM = "settled_tier_pieces"


def sources_for(segments: Sequence[tuple[str, Sequence[tuple[int, int]], datetime, datetime]],
                params: dict) -> dict[str, str]:
    """The FROM item of each tier a stored statement reads, with what to stage added to params."""
    pieces = [[name, [list(p) for p in pairs], lo, hi] for name, pairs, lo, hi in segments if name in STAGED]
    if pieces:
        params[PIECES_PARAM] = pieces
    return {name: source(TIER[name]) if name in STAGED else TIER[name].table for name, _, _, _ in segments}


def stage_pieces(cur, pieces: Sequence) -> None:
    """Stage what `sources_for` named (merged per tier: every series over the range holding them all)."""
    merged: dict[str, tuple[set[tuple[int, int]], list[datetime]]] = {}
    for name, pairs, lo, hi in pieces:
        got = merged.setdefault(name, (set(), []))
        got[0].update((int(a), int(b)) for a, b in pairs)
        got[1].extend([_time(lo), _time(hi)])
    for name, (pairs, times) in merged.items():
        tier = TIER[name]
        lo, hi = min(times), max(times)
        _put(cur, tier, columns_of(tier, _found(tier, sorted(pairs), lo, hi), lo, hi))


def _time(value) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def put_back(cur, tier: Tier, found: Sequence[Block]) -> int:
    """The blocks' buckets inserted into the tier's table as they were (through the staging table);
    returns how many."""
    _put(cur, tier, columns_of(tier, found, None, None))
    cur.execute(f"INSERT INTO {tier.table} ({TIER_COLUMNS}) SELECT bucket, series_id, sum_delta, sum_interval_ms, "
                f"nullif(max_rate, 'NaN'), nullif(min_rate, 'NaN'), samples, flagged FROM {STAGED[tier.name]}")
    return cur.rowcount


def source(tier: Tier) -> str:
    """The tier's rows and its staged settled buckets, as one FROM item with the table's columns."""
    return (f"(SELECT {TIER_COLUMNS} FROM {tier.table} UNION ALL SELECT bucket, series_id, sum_delta, sum_interval_ms, "
            f"nullif(max_rate, 'NaN'), nullif(min_rate, 'NaN'), samples, flagged FROM {STAGED[tier.name]})")


# --- as numpy columns (the plots) ------------------------------------------------------------

def columns(tier: Tier, series: Sequence[tuple[int, int]], lo: datetime, hi: datetime,
            rates: tuple[str, ...] = tierblocks.RATES) -> dict[str, np.ndarray]:
    """The settled buckets of these (series id, switch id) pairs in [lo, hi) as the plots' flat
    columns (`columns_of`). The plots read their rows in a pipelined statement (no COPY there, so
    nothing is staged): these are decoded beside it."""
    if tier.name not in STAGED or not series:
        return columns_of(tier, [], lo, hi)
    return columns_of(tier, _found(tier, series, lo, hi, rates), lo, hi)


def columns_of(tier: Tier, found: Sequence[Block], lo: datetime | None, hi: datetime | None,
               summed: bool = False) -> dict[str, np.ndarray]:
    """The blocks' buckets in [lo, hi) as flat columns (collector/reader/queries.py _BUCKET_COLUMNS:
    sid, t in microseconds since 2000-01-01, d, ms, mx, mn, n, f; NaN for a rate that does not
    exist), unsorted. summed: one row per series and block instead, at its first bucket in the
    range, with the sums, the highest peak and the lowest floor of its buckets there (for a statement
    that only sums each series over the range: top talkers; stage(summed=True) reads a block wholly
    inside the range from its totals instead)."""
    out: dict[str, list[np.ndarray]] = {k: [] for k in _DTYPES}
    for _, at, spine, cols in found:
        starts = epoch_s(at) + spine.offsets * tier.seconds
        inside = np.ones(len(starts), bool)
        if lo is not None:
            inside &= starts >= epoch_s(lo)
        if hi is not None:
            inside &= starts < epoch_s(hi)
        for sid, c in cols.items():
            idx = np.flatnonzero(c.present & inside)
            mx = np.where(c.max_null[idx], np.nan, c.max_rate[idx])
            mn = np.where(c.min_null[idx], np.nan, c.min_rate[idx])
            parts: tuple[np.ndarray, ...] = (
                np.full(len(idx), sid, np.int32), (starts[idx] - PG_EPOCH_S) * 1_000_000, c.sum_delta[idx],
                c.sum_interval_ms[idx], mx, mn, c.samples[idx], c.flagged[idx])
            if summed:
                if not len(idx):
                    continue
                parts = tuple(np.array([v]) for v in (
                    sid, parts[1][0], parts[2].sum(), parts[3].sum(), np.fmax.reduce(mx), np.fmin.reduce(mn),
                    parts[6].sum(), parts[7].sum()))
            for key, values in zip(_DTYPES, parts, strict=True):
                out[key].append(values)
    return {k: np.concatenate(v).astype(_DTYPES[k]) if v else np.zeros(0, _DTYPES[k]) for k, v in out.items()}


_DTYPES = {"sid": np.int32, "t": np.int64, "d": np.int64, "ms": np.int64, "mx": np.float64, "mn": np.float64,
           "n": np.int32, "f": np.int32}


def added(rows: dict[str, np.ndarray], settled: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A statement's bucket columns and the settled ones read after it, each (series, bucket) once: a
    span settled between the two is in both, the same buckets (its rows moved, unchanged)."""
    if not len(settled["sid"]):
        return rows
    if not len(rows["sid"]):
        return {k: settled[k].astype(rows[k].dtype) for k in rows}
    have = set(zip(rows["sid"].tolist(), rows["t"].tolist()))
    keep = np.fromiter(((s, t) not in have for s, t in zip(settled["sid"].tolist(), settled["t"].tolist())), bool,
                       len(settled["sid"]))
    return {k: np.concatenate([rows[k], settled[k][keep].astype(rows[k].dtype)]) for k in rows}


def first_bucket(cur, tier: Tier, series: Sequence[tuple[int, int]]) -> datetime | None:
    """The oldest settled bucket of any of these series in the tier (the oldest block holding one,
    decoded)."""
    if tier.name not in STAGED or not series:
        return None
    ids = sorted({sid for sid, _ in series})
    cur.execute("SELECT c.switch_id, c.lo FROM traffic_settled_tier_series c WHERE c.switch_id = ANY(%s) "
                "AND c.tier = %s AND c.series_id = ANY(%s) ORDER BY c.lo LIMIT 1",
                [sorted({sw for _, sw in series}), tier.name, ids])
    got = cur.fetchone()
    if got is None:
        return None
    found = blocks(tier, [got[0]], ids, got[1], got[1] + tier.block)
    firsts = [int(spine.offsets[np.flatnonzero(c.present)[0]]) for _, at, spine, cols in found if at == got[1]
              for c in cols.values() if c.present.any()]
    return got[1] + min(firsts) * tier.width if firsts else None
