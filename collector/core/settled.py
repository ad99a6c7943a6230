"""The settled-data codec: a switch's raw sample rows over a time range as compressed blocks.

Pure (numpy, pcodec, zstandard; no Django). A switch's polls of a range become one *spine* block
(each poll's time to the microsecond, layout, uptime, interval) and one *column* block per series
(its raw value, delta and flags in every poll of the spine, and in which polls its layout had
it). Every value comes back exactly: NULLs, Counter32 and Counter64 wraps (a Counter64 is stored
as the int64 of the same bits, collector/core/facts.py to_i64), reboots and resets, every flag.

Why per series and not per switch: a plot, a CSV or a bill reads a few series of a switch; a
column block is decoded alone (a series-day of 15 s polls: 5,760 readings, ~6 kB).

How a column is encoded (measured on figure 5's data, docs/benchmarks.md "Settled samples"):
- delta: pcodec, NULLs as 0 and a mask apart (deltas of live traffic are the information);
- raw: the residual raw[i] - raw[i-1] - delta[i] (wrapping int64; NULL raws carry the previous
  value), which is 0 but at wraps (-2^32), reboots, resets, gaps and the first reading: almost
  free after pcodec, so raw costs nearly nothing beyond the deltas;
- flags: pcodec (mostly zeros); masks: packed bits and zstd, or one byte when all alike.
Times (µs) go to pcodec as they are: its delta encoding makes a regular poll clock almost free.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from collector.core.blockparts import CodecError, header, ints, mask, open_block, section_bytes, unints, unmask

MAGIC_SPINE = b"CS1"
MAGIC_COLUMN = b"CC1"

@dataclass
class Spine:
    """The polls of one switch in a block, oldest first."""
    time_us: np.ndarray        # int64, microseconds since the epoch (timestamptz precision)
    layout_id: np.ndarray      # int64
    uptime_cs: np.ndarray      # int64, 0 where NULL
    uptime_null: np.ndarray    # bool
    interval_ms: np.ndarray    # int64, 0 where NULL
    interval_null: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.time_us)


@dataclass
class Column:
    """One series over the polls of a spine: its values where `present` (its layout had it)."""
    present: np.ndarray        # bool, one per spine row
    raw: np.ndarray            # int64 (two's complement of a Counter64), 0 where NULL or absent
    raw_null: np.ndarray       # bool
    delta: np.ndarray          # int64, 0 where NULL or absent
    delta_null: np.ndarray     # bool
    flags: np.ndarray          # int64 (smallint in the archive), 0 where absent

    def __len__(self) -> int:
        return len(self.present)


# --- blocks --------------------------------------------------------------------------------

def encode_spine(s: Spine) -> bytes:
    n = len(s)
    for name in ("layout_id", "uptime_cs", "uptime_null", "interval_ms", "interval_null"):
        if len(getattr(s, name)) != n:
            raise CodecError(f"spine: {name} has {len(getattr(s, name))} values, time {n}")
    return (header(MAGIC_SPINE, n) + section_bytes(ints(s.time_us)) + section_bytes(ints(s.layout_id))
            + section_bytes(ints(np.where(s.uptime_null, 0, s.uptime_cs))) + section_bytes(mask(s.uptime_null))
            + section_bytes(ints(np.where(s.interval_null, 0, s.interval_ms))) + section_bytes(mask(s.interval_null)))


def decode_spine(data: bytes) -> Spine:
    r, n = open_block(data, MAGIC_SPINE, "spine")
    out = Spine(unints(r.section(), n), unints(r.section(), n), unints(r.section(), n),
                unmask(r.section(), n), unints(r.section(), n), unmask(r.section(), n))
    r.done()
    return out


def _residual(raw: np.ndarray, raw_null: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """raw[i] - raw[i-1] - delta[i] in wrapping int64, NULL raws carrying the previous value."""
    idx = np.where(raw_null, -1, np.arange(len(raw)))
    np.maximum.accumulate(idx, out=idx)
    carried = np.where(idx >= 0, raw[np.maximum(idx, 0)], 0)
    prev = np.concatenate([np.zeros(1, dtype=np.int64), carried[:-1]])
    with np.errstate(over="ignore"):
        return carried - prev - delta


def encode_column(c: Column) -> bytes:
    n = len(c)
    for name in ("raw", "raw_null", "delta", "delta_null", "flags"):
        if len(getattr(c, name)) != n:
            raise CodecError(f"column: {name} has {len(getattr(c, name))} values, present {n}")
    p = np.asarray(c.present, dtype=bool)
    raw = np.asarray(c.raw, dtype=np.int64)[p]
    raw_null = np.asarray(c.raw_null, dtype=bool)[p]
    delta = np.where(c.delta_null, 0, c.delta).astype(np.int64)[p]
    raw = np.where(raw_null, 0, raw)
    return (header(MAGIC_COLUMN, n) + section_bytes(mask(p)) + section_bytes(ints(delta))
            + section_bytes(mask(np.asarray(c.delta_null, dtype=bool)[p]))
            + section_bytes(ints(_residual(raw, raw_null, delta))) + section_bytes(mask(raw_null))
            + section_bytes(ints(np.asarray(c.flags, dtype=np.int64)[p])))


def decode_column(data: bytes) -> Column:
    r, n = open_block(data, MAGIC_COLUMN, "column")
    present = unmask(r.section(), n)
    m = int(present.sum())
    delta = unints(r.section(), m)
    delta_null = unmask(r.section(), m)
    residual = unints(r.section(), m)
    raw_null = unmask(r.section(), m)
    flags = unints(r.section(), m)
    r.done()
    with np.errstate(over="ignore"):
        carried = np.cumsum(residual + delta, dtype=np.int64)
    raw = np.where(raw_null, 0, carried)

    def spread(a: np.ndarray, fill: int | bool) -> np.ndarray:
        out = np.full(n, fill, dtype=a.dtype)
        out[present] = a
        return out
    return Column(present, spread(raw, 0), spread(raw_null, True), spread(delta, 0),
                  spread(delta_null, True), spread(flags, 0))


# --- sample rows <-> blocks ----------------------------------------------------------------

# A sample row as traffic_sample holds it: (time in µs, layout id, uptime_cs, interval_ms,
# raw[], delta[], flags[]), the arrays in the order of the layout's series ids.
Row = tuple[int, int, int | None, int | None, Sequence[int | None], Sequence[int | None], Sequence[int | None]]


def _nullable(values: Iterable[int | None], n: int) -> tuple[np.ndarray, np.ndarray]:
    vals = list(values)
    null = np.fromiter((v is None for v in vals), dtype=bool, count=n)
    out = np.fromiter((0 if v is None else v for v in vals), dtype=np.int64, count=n)
    return out, null


def split(rows: Sequence[Row], layouts: Mapping[int, Sequence[int]]) -> tuple[Spine, dict[int, Column]]:
    """One switch's rows (oldest first) as a spine and a column per series of their layouts."""
    n = len(rows)
    times = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
    if n > 1 and not (np.diff(times) > 0).all():
        raise CodecError("rows are not in strictly increasing time order")
    uptime, uptime_null = _nullable((r[2] for r in rows), n)
    interval, interval_null = _nullable((r[3] for r in rows), n)
    spine = Spine(times, np.fromiter((r[1] for r in rows), dtype=np.int64, count=n), uptime, uptime_null,
                  interval, interval_null)
    by_layout: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        by_layout.setdefault(r[1], []).append(i)
    columns: dict[int, Column] = {}
    for layout_id, idx in by_layout.items():
        ids = layouts.get(layout_id)
        if ids is None:
            raise CodecError(f"layout {layout_id} is not known")
        sel = np.asarray(idx)
        k = len(ids)
        mats = {}
        for name, arrays in (("raw", [rows[i][4] for i in idx]), ("delta", [rows[i][5] for i in idx]),
                             ("flags", [rows[i][6] for i in idx])):
            for i, a in zip(idx, arrays):
                if len(a) != k:
                    raise CodecError(f"row {i}: {name} has {len(a)} values, layout {layout_id} {k}")
            cells = [v for a in arrays for v in a]
            vals, null = _nullable(cells, len(cells))
            mats[name] = (vals.reshape(len(idx), k), null.reshape(len(idx), k))
        if mats["flags"][1].any():
            raise CodecError("a flag is NULL (flags are never NULL in the archive)")
        for j, sid in enumerate(ids):
            col = columns.get(sid)
            if col is None:
                col = columns[sid] = Column(np.zeros(n, bool), np.zeros(n, np.int64), np.ones(n, bool),
                                            np.zeros(n, np.int64), np.ones(n, bool), np.zeros(n, np.int64))
            elif col.present[sel].any():
                raise CodecError(f"series {sid} twice in layout {layout_id}")
            col.present[sel] = True
            col.raw[sel], col.raw_null[sel] = mats["raw"][0][:, j], mats["raw"][1][:, j]
            col.delta[sel], col.delta_null[sel] = mats["delta"][0][:, j], mats["delta"][1][:, j]
            col.flags[sel] = mats["flags"][0][:, j]
    return spine, columns


def join(spine: Spine, columns: Mapping[int, Column], layouts: Mapping[int, Sequence[int]]) -> list[Row]:
    """The rows again, every array in its layout's order (every series of each layout needed)."""
    n = len(spine)
    out: list[Row] = []
    lists = {sid: (c.raw.tolist(), c.raw_null.tolist(), c.delta.tolist(), c.delta_null.tolist(), c.flags.tolist(),
                   c.present.tolist()) for sid, c in columns.items()}
    times, lays = spine.time_us.tolist(), spine.layout_id.tolist()
    up, upn = spine.uptime_cs.tolist(), spine.uptime_null.tolist()
    iv, ivn = spine.interval_ms.tolist(), spine.interval_null.tolist()
    for i in range(n):
        ids = layouts.get(lays[i])
        if ids is None:
            raise CodecError(f"layout {lays[i]} is not known")
        raw: list[int | None] = []
        delta: list[int | None] = []
        flags: list[int | None] = []
        for sid in ids:
            c = lists.get(sid)
            if c is None or not c[5][i]:
                raise CodecError(f"series {sid} of layout {lays[i]} has no value in row {i}")
            raw.append(None if c[1][i] else c[0][i])
            delta.append(None if c[3][i] else c[2][i])
            flags.append(c[4][i])
        out.append((times[i], lays[i], None if upn[i] else up[i], None if ivn[i] else iv[i], raw, delta, flags))
    return out
