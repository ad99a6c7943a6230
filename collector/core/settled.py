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

A column whose deltas follow the poll clock (a counter at a steady rate: its delta is the rate times
the time since the poll before, which the spine holds) is stored instead as its deltas' residuals
from that prediction, the rate (one float64) in the block (format CC2: a column block then decodes
with its spine). The encoder keeps whichever of the two is smaller: for steady rates the residual
is the rounding of the counter and the poll clock's jitter, a few bits, where the delta itself
took 1-3 bytes; for live traffic the prediction gains nothing and CC1 stays.
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from collector.core.blockparts import CodecError, header, ints, mask, open_block, section_bytes, unints, unmask

MAGIC_SPINE = b"CS1"
MAGIC_COLUMN = b"CC1"
MAGIC_COLUMN_RATE = b"CC2"
LIMIT = 2.0 ** 62          # a predicted delta is clipped here: inside int64 on every platform

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


def poll_gaps_us(spine: Spine) -> np.ndarray:
    """Per poll, the microseconds since the poll before (the first: its interval; 0 where unknown)."""
    gaps = np.diff(spine.time_us, prepend=spine.time_us[:1])
    if len(gaps):
        gaps[0] = 0 if spine.interval_null[0] else spine.interval_ms[0] * 1000
    return np.maximum(gaps, 0)


def _predicted(gaps_us: np.ndarray, rate: float) -> np.ndarray:
    """The deltas a steady rate (units per µs) gives over these gaps, as every decoder computes them."""
    return np.clip(np.rint(gaps_us.astype(np.float64) * rate), -LIMIT, LIMIT).astype(np.int64)


def encode_column(c: Column, spine: Spine | None = None) -> bytes:
    """A column block; with its spine, the smaller of its deltas as they are (CC1) and their
    residuals from the series' steady rate over the poll clock (CC2)."""
    n = len(c)
    for name in ("raw", "raw_null", "delta", "delta_null", "flags"):
        if len(getattr(c, name)) != n:
            raise CodecError(f"column: {name} has {len(getattr(c, name))} values, present {n}")
    if spine is not None and len(spine) != n:
        raise CodecError(f"column of {n} polls, its spine {len(spine)}")
    p = np.asarray(c.present, dtype=bool)
    raw = np.asarray(c.raw, dtype=np.int64)[p]
    raw_null = np.asarray(c.raw_null, dtype=bool)[p]
    delta_null = np.asarray(c.delta_null, dtype=bool)[p]
    delta = np.where(c.delta_null, 0, c.delta).astype(np.int64)[p]
    raw = np.where(raw_null, 0, raw)
    rest = (section_bytes(mask(delta_null)) + section_bytes(ints(_residual(raw, raw_null, delta)))
            + section_bytes(mask(raw_null)) + section_bytes(ints(np.asarray(c.flags, dtype=np.int64)[p])))
    plain = header(MAGIC_COLUMN, n) + section_bytes(mask(p)) + section_bytes(ints(delta)) + rest
    if spine is None:
        return plain
    gaps = poll_gaps_us(spine)[p]
    live = ~delta_null & (gaps > 0)
    if not live.any() or not delta[live].any():
        return plain
    rate = float(np.median(delta[live] / gaps[live]))
    if not np.isfinite(rate):
        return plain
    with np.errstate(over="ignore"):
        residual = np.where(delta_null, 0, delta - _predicted(gaps, rate))
    steady = (header(MAGIC_COLUMN_RATE, n) + section_bytes(mask(p)) + struct.pack("<d", rate)
              + section_bytes(ints(residual)) + rest)
    return steady if len(steady) < len(plain) else plain


def decode_column(data: bytes, spine: Spine | None = None) -> Column:
    """A column block back (a CC2 block needs its spine: CodecError without it)."""
    steady = data[:len(MAGIC_COLUMN_RATE)] == MAGIC_COLUMN_RATE
    r, n = open_block(data, MAGIC_COLUMN_RATE if steady else MAGIC_COLUMN, "column")
    present = unmask(r.section(), n)
    m = int(present.sum())
    if steady:
        if spine is None or len(spine) != n:
            raise CodecError("a steady-rate column block is decoded with its spine")
        (rate,) = struct.unpack("<d", r.take(8))
        residual_d = unints(r.section(), m)
        with np.errstate(over="ignore"):
            delta = residual_d + _predicted(poll_gaps_us(spine)[present], rate)
    else:
        delta = unints(r.section(), m)
    delta_null = unmask(r.section(), m)
    if steady:
        delta = np.where(delta_null, 0, delta)
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
