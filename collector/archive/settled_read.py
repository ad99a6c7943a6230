"""Reading settled raw samples: the blocks of a switch's settled days (collector/archive/settle.py)
decoded for the series asked, the one path by which settled readings are read.

Two ways, the same rows:
- `read`: numpy columns of a switch's settled polls in a range, for Python readers (the plots' raw
  reads, collector/reader/queries.fetch_raw);
- `stage`: the same rows put, for one statement, into a temporary table shaped as traffic_sample
  (`SOURCE` reads both), their arrays holding just the series asked in a synthetic layout
  (`STAGED_LAYOUT`, its positions by `with_staged`), so that a statement written for
  traffic_sample (the raw CSV's COPY, a bill's samples, a window's accounting) reads settled days
  exactly as it read their rows. The temporary table lives in the reading connection only and
  holds the asked series of the asked range: never a second copy of the archive. `Piece`s say
  what to stage; a statement that needs none reads traffic_sample alone (`source`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection

from collector.archive.positions import Positions
from collector.core import settled

STAGED_LAYOUT = -1          # the layout id of staged rows: their arrays hold the piece's series, in order
STAGE_TABLE = "pg_temp.cellar_settled_sample"
SOURCE = f"(SELECT * FROM traffic_sample UNION ALL SELECT * FROM {STAGE_TABLE})"
PIECES_PARAM = "settled_pieces"     # the statement parameter that carries what to stage (stored with export jobs)
DAY = timedelta(days=1)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Piece:
    """Settled rows of these series of a switch with times in [lo, hi] (both ends: the statement bounds them)."""
    switch_id: int
    series_ids: tuple[int, ...]
    lo: datetime
    hi: datetime


@dataclass
class Settled:
    """A switch's settled polls in a range, oldest first, and the asked series' columns over them."""
    time_us: np.ndarray
    interval_ms: np.ndarray
    interval_null: np.ndarray
    uptime_cs: np.ndarray
    uptime_null: np.ndarray
    columns: dict[int, settled.Column]

    def __len__(self) -> int:
        return len(self.time_us)


def settled_switches(switch_ids: Sequence[int], lo: datetime, hi: datetime) -> set[int]:
    """The switches with settled polls in [lo, hi] (one index probe each)."""
    if not switch_ids:
        return set()
    with connection.cursor() as cur:
        cur.execute("SELECT DISTINCT switch_id FROM traffic_settled_poll WHERE switch_id = ANY(%s) "
                    "AND lo > %s AND lo <= %s AND last_time >= %s AND first_time <= %s",
                    [list(switch_ids), lo - DAY, hi, lo, hi])
        return {r[0] for r in cur.fetchall()}


def pieces_for(series: Sequence[tuple[int, int]], lo: datetime, hi: datetime) -> list[Piece]:
    """(series id, switch id) pairs -> the pieces of their switches that have settled polls in [lo, hi]."""
    by_switch: dict[int, list[int]] = {}
    for sid, sw in series:
        by_switch.setdefault(sw, []).append(sid)
    found = settled_switches(sorted(by_switch), lo, hi)
    return [Piece(sw, tuple(dict.fromkeys(ids)), lo, hi) for sw, ids in sorted(by_switch.items()) if sw in found]


def read(switch_id: int, series_ids: Sequence[int], lo: datetime, hi: datetime) -> Settled:
    """Decode the switch's settled days overlapping [lo, hi]: its polls there and the series' columns."""
    lo_us, hi_us = to_us(lo), to_us(hi)
    with connection.cursor() as cur:
        cur.execute("SELECT lo, block FROM traffic_settled_poll WHERE switch_id = %s AND lo > %s AND lo <= %s "
                    "AND last_time >= %s AND first_time <= %s ORDER BY lo", [switch_id, lo - DAY, hi, lo, hi])
        spines = {day: settled.decode_spine(bytes(b)) for day, b in cur.fetchall()}
        cols: dict[datetime, dict[int, settled.Column]] = {day: {} for day in spines}
        if spines and series_ids:
            cur.execute("SELECT lo, series_id, block FROM traffic_settled_series WHERE switch_id = %s "
                        "AND lo = ANY(%s) AND series_id = ANY(%s)", [switch_id, list(spines), list(series_ids)])
            for day, sid, b in cur.fetchall():
                cols[day][sid] = settled.decode_column(bytes(b), spines[day])
    parts = []
    for day, sp in sorted(spines.items()):
        keep = (sp.time_us >= lo_us) & (sp.time_us <= hi_us)
        parts.append((sp, keep, cols[day]))
    return _concat(parts, series_ids)


def _absent(n: int) -> settled.Column:
    z = np.zeros(n, dtype=np.int64)
    return settled.Column(np.zeros(n, bool), z, np.ones(n, bool), z.copy(), np.ones(n, bool), z.copy())


def _concat(parts: list, series_ids: Sequence[int]) -> Settled:
    def cat(arrays: list[np.ndarray], dtype) -> np.ndarray:
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)
    out_cols = {}
    for sid in series_ids:
        pieces = [(c.get(sid) or _absent(len(sp))) for sp, _, c in parts]
        keeps = [k for _, k, _ in parts]
        out_cols[sid] = settled.Column(*(cat([getattr(p, f)[k] for p, k in zip(pieces, keeps)], dt) for f, dt in
                                         (("present", bool), ("raw", np.int64), ("raw_null", bool),
                                          ("delta", np.int64), ("delta_null", bool), ("flags", np.int64))))
    return Settled(cat([sp.time_us[k] for sp, k, _ in parts], np.int64),
                   cat([sp.interval_ms[k] for sp, k, _ in parts], np.int64),
                   cat([sp.interval_null[k] for sp, k, _ in parts], bool),
                   cat([sp.uptime_cs[k] for sp, k, _ in parts], np.int64),
                   cat([sp.uptime_null[k] for sp, k, _ in parts], bool), out_cols)


def to_us(t: datetime) -> int:
    """A timestamptz as integer microseconds since the epoch (exact: no float)."""
    return (t - EPOCH) // timedelta(microseconds=1)


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=int(us))


def with_staged(positions: dict[int, Positions], pieces: Sequence[Piece]) -> dict[int, Positions]:
    """Positions (switch -> layout -> series -> position) with each piece's staged layout added."""
    out = {sw: dict(p) for sw, p in positions.items()}
    for piece in pieces:
        out.setdefault(piece.switch_id, {})[STAGED_LAYOUT] = {sid: i + 1 for i, sid in enumerate(piece.series_ids)}
    return out


def encode_pieces(pieces: Sequence[Piece]) -> list:
    """Pieces as a statement parameter (lists, datetimes: what export jobs store as JSON)."""
    return [[p.switch_id, list(p.series_ids), p.lo, p.hi] for p in pieces]


def decode_pieces(value) -> list[Piece]:
    return [Piece(int(sw), tuple(int(s) for s in ids), lo, hi) for sw, ids, lo, hi in value or ()]


def stage(cur, pieces: Sequence[Piece]) -> int:
    """Inside the reading transaction: the pieces' settled rows into STAGE_TABLE (emptied first);
    returns the rows staged. A row where none of a piece's series is present is left out."""
    cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {STAGE_TABLE.split('.')[1]} "
                "(LIKE traffic_sample INCLUDING DEFAULTS) ON COMMIT DELETE ROWS")
    cur.execute(f"TRUNCATE {STAGE_TABLE}")
    n = 0
    decoded = [(piece, read(piece.switch_id, piece.series_ids, piece.lo, piece.hi)) for piece in pieces]
    with cur.copy(f"COPY {STAGE_TABLE} (switch_id, time, layout_id, uptime_cs, interval_ms, raw, delta, flags) "
                  "FROM STDIN") as copy:
        for piece, got in decoded:
            rows, text = copy_text(piece, got)
            if rows:
                copy.write(text)
                n += rows
    return n


NULL = "\\N"       # COPY text format's NULL; inside an array literal NULL is spelled out


def copy_text(piece: Piece, got: Settled) -> tuple[int, str]:
    """The piece's rows as COPY text lines (switch_id, time, layout, uptime, interval, raw[], delta[],
    flags[]), built column-wise with numpy: psycopg's per-row array dumping cost 20 us a row."""
    cols = [got.columns[sid] for sid in piece.series_ids]
    keep = np.zeros(len(got), bool)
    for c in cols:
        keep |= c.present
    idx = np.flatnonzero(keep)
    if not len(idx):
        return 0, ""

    def text(values: np.ndarray, null: np.ndarray, token: str) -> np.ndarray:
        out = values[idx].astype(str).astype(object)
        out[null[idx]] = token
        return out

    def array(parts: list[np.ndarray]) -> np.ndarray:
        out = "{" + parts[0]
        for part in parts[1:]:
            out = out + "," + part
        return out + "}"

    raw = array([text(c.raw, ~c.present | c.raw_null, "NULL") for c in cols])
    delta = array([text(c.delta, ~c.present | c.delta_null, "NULL") for c in cols])
    flags = array([text(c.flags, ~c.present, "NULL") for c in cols])
    times = np.datetime_as_string(got.time_us[idx].astype("datetime64[us]"), unit="us").astype(object) + "Z"
    lines = (f"{piece.switch_id}\t" + times + f"\t{STAGED_LAYOUT}\t" + text(got.uptime_cs, got.uptime_null, NULL)
             + "\t" + text(got.interval_ms, got.interval_null, NULL) + "\t" + raw + "\t" + delta + "\t" + flags)
    return len(idx), "\n".join(lines.tolist()) + "\n"
