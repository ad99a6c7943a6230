"""The settled-tier codec: a switch's rollup buckets of one tier over a period as compressed blocks.

Pure (numpy, pcodec, zstandard through collector/core/blockparts.py; no Django). A switch's buckets
of a period become one *spine* block (which buckets exist; per bucket the interval and sample count
most of its series share, and the intervals its series' extreme rates were found at) and one
*column* block per series (its sum_delta, its residuals from the spine, flagged, and its peak and
floor rates). Every value of every bucket row comes back exactly, the float rates bit for bit.

Why the rates are stored as integers: a bucket's max_rate is the rate of one sample, computed by
the rollup as `delta::float8 * 1000 / interval_ms` (collector/archive/rollup.py), and a coarser
tier's is the max of those. So every stored rate is the IEEE double of some integer pair (delta,
interval). The encoder finds such a pair, checking in float64 as PostgreSQL computes it that the
pair gives the very same bits; any pair that does is exact. The interval is looked for first among
the bucket's candidates in the spine (the switch's polls are the same for all its series, so a few
intervals serve them all: an index of two bits), then near the bucket's mean interval (an offset
of a few ms), then among the rate's closest fractions (a sample after missed polls: a larger
offset). The delta is stored as its difference from what the bucket's mean rate predicts at that
interval. As float64, the rates were two thirds of a block (docs/benchmarks.md "Rollup tiers"). A
rate no pair gives (none is known to occur in the archive) is kept as its float64 bits.

Why per series: as for raw blocks (collector/core/settled.py), a plot or a CSV reads a few
series of a switch, and a column block decodes alone.
"""
from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from collector.core.blockparts import CodecError, Reader, header, ints, mask, open_block, section_bytes, unints, unmask
from collector.core.ratepairs import Pairs, mean_interval, other_guesses, pairs, predict, rate_of, to_pairs

MAGIC_SPINE = b"TS1"
MAGIC_COLUMN = b"TC1"
# Intervals a spine keeps per bucket: a 1-minute bucket of 15 s polls has four.
CANDIDATES = 4


@dataclass
class TierSpine:
    """The buckets of one switch in a block, oldest first, and what its series share."""
    offsets: np.ndarray        # int64, the bucket's start - the block's start, in bucket widths
    interval_ms: np.ndarray    # int64, the sum_interval_ms most series have in the bucket
    samples: np.ndarray        # int64, the samples most series have in the bucket
    candidates: np.ndarray     # int64 (buckets, CANDIDATES): intervals of extreme rates, most used first; 0: none

    def __len__(self) -> int:
        return len(self.offsets)


@dataclass
class TierColumn:
    """One series over the buckets of a spine: its values where `present`."""
    present: np.ndarray        # bool
    sum_delta: np.ndarray      # int64, 0 where absent
    sum_interval_ms: np.ndarray
    samples: np.ndarray
    flagged: np.ndarray
    max_rate: np.ndarray       # float64, 0 where NULL or absent
    max_null: np.ndarray       # bool
    min_rate: np.ndarray
    min_null: np.ndarray

    def __len__(self) -> int:
        return len(self.present)


def _rates_bytes(rate: np.ndarray, null: np.ndarray, guess: np.ndarray, cand: np.ndarray,
                 sum_delta: np.ndarray, sum_interval: np.ndarray, others: list[tuple[np.ndarray, int]]) -> bytes:
    live = ~null
    got, iv = pairs(rate[live], guess[live], cand[live], [(g[live], r) for g, r in others])
    with np.errstate(over="ignore"):
        residual = got.delta - predict(sum_delta[live], sum_interval[live], iv)
    bits = rate[live][got.unpaired].view(np.int64)
    return (section_bytes(mask(null)) + section_bytes(ints(got.index)) + section_bytes(ints(residual))
            + section_bytes(ints(got.offset)) + struct.pack("<I", len(got.unpaired))
            + section_bytes(ints(got.unpaired)) + section_bytes(ints(bits)))


def _rates_from(r: Reader, m: int, guess: np.ndarray, cand: np.ndarray, sum_delta: np.ndarray,
                sum_interval: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    null = unmask(r.section(), m)
    live = ~null
    n = int(live.sum())
    index, residual = unints(r.section(), n), unints(r.section(), n)
    if n and (index.min() < 0 or index.max() > CANDIDATES):
        raise CodecError("a rate's interval index is outside the spine's candidates")
    escaped = index == CANDIDATES
    offset = unints(r.section(), int(escaped.sum()))
    k = r.u32()
    at, bits = unints(r.section(), k), unints(r.section(), k)
    if k and (at.min() < 0 or at.max() >= n):
        raise CodecError("an unpaired rate's position is outside the block")
    every = n == m                      # the usual case: a rate in every bucket, no copies
    c = cand if every else cand[live]
    iv = np.take_along_axis(c, np.minimum(index, CANDIDATES - 1)[:, None], axis=1)[:, 0]
    iv[escaped] = (guess if every else guess[live])[escaped] + offset
    if (iv <= 0).any():
        raise CodecError("a rate's interval is not positive")
    with np.errstate(over="ignore"):
        delta = residual + (predict(sum_delta, sum_interval, iv) if every
                            else predict(sum_delta[live], sum_interval[live], iv))
    values = rate_of(delta, iv)
    values[at] = bits.view(np.float64)
    out = np.zeros(m, np.float64)
    out[live] = values
    return out, null


def _skip_rates(r: Reader) -> None:
    """Past one rate's sections (_rates_bytes) without decoding them."""
    for _ in range(4):
        r.skip()
    r.u32()
    r.skip()
    r.skip()


def column_pairs(c: TierColumn, spine: TierSpine) -> tuple[Pairs, Pairs]:
    """How a column's max and min rates are stored (what encode_column finds): for measuring."""
    p = np.asarray(c.present, bool)
    interval, samples = c.sum_interval_ms[p], c.samples[p]
    guess, others = mean_interval(interval, samples), other_guesses(interval, samples)
    out = []
    for rate, null in ((c.max_rate, c.max_null), (c.min_rate, c.min_null)):
        live = ~null[p]
        out.append(pairs(rate[p][live], guess[live], spine.candidates[p][live], [(g[live], r) for g, r in others])[0])
    return out[0], out[1]


# --- blocks --------------------------------------------------------------------------------

def encode_spine(s: TierSpine) -> bytes:
    n = len(s)
    if len(s.interval_ms) != n or len(s.samples) != n or s.candidates.shape != (n, CANDIDATES):
        raise CodecError("spine: its columns differ in length")
    return (header(MAGIC_SPINE, n) + section_bytes(ints(s.offsets))
            + section_bytes(ints(s.interval_ms)) + section_bytes(ints(s.samples))
            + section_bytes(ints(s.candidates.T.ravel())))


def decode_spine(data: bytes) -> TierSpine:
    r, n = open_block(data, MAGIC_SPINE, "tier spine")
    out = TierSpine(unints(r.section(), n), unints(r.section(), n), unints(r.section(), n),
                    unints(r.section(), n * CANDIDATES).reshape(CANDIDATES, n).T.copy())
    r.done()
    if n > 1 and not (np.diff(out.offsets) > 0).all():
        raise CodecError("tier spine: buckets not in increasing order")
    return out


def encode_column(c: TierColumn, spine: TierSpine) -> bytes:
    n = len(spine)
    for name in ("present", "sum_delta", "sum_interval_ms", "samples", "flagged", "max_rate", "max_null",
                 "min_rate", "min_null"):
        if len(getattr(c, name)) != n:
            raise CodecError(f"tier column: {name} has {len(getattr(c, name))} values, the spine {n}")
    p = np.asarray(c.present, bool)
    sum_delta = np.asarray(c.sum_delta, np.int64)[p]
    interval = np.asarray(c.sum_interval_ms, np.int64)[p]
    samples = np.asarray(c.samples, np.int64)[p]
    guess = mean_interval(interval, samples)
    others = other_guesses(interval, samples)
    cand = spine.candidates[p]
    return (header(MAGIC_COLUMN, n) + section_bytes(mask(p)) + section_bytes(ints(sum_delta))
            + section_bytes(ints(interval - spine.interval_ms[p]))
            + section_bytes(ints(samples - spine.samples[p]))
            + section_bytes(ints(np.asarray(c.flagged, np.int64)[p]))
            + _rates_bytes(np.asarray(c.max_rate, np.float64)[p], np.asarray(c.max_null, bool)[p], guess, cand,
                           sum_delta, interval, others)
            + _rates_bytes(np.asarray(c.min_rate, np.float64)[p], np.asarray(c.min_null, bool)[p], guess, cand,
                           sum_delta, interval, others))


RATES = ("max", "min")


def decode_column(data: bytes, spine: TierSpine, rates: tuple[str, ...] = RATES) -> TierColumn:
    """A column block back; `rates`: which extreme rates to decode (the others come back NULL: a
    reader of sums alone skips two thirds of the work)."""
    r, n = open_block(data, MAGIC_COLUMN, "tier column")
    if n != len(spine):
        raise CodecError(f"tier column of {n} buckets, its spine {len(spine)}")
    present = unmask(r.section(), n)
    m = int(present.sum())
    full = m == n                       # every bucket of the spine: its columns as they are
    sum_delta = unints(r.section(), m)
    interval = unints(r.section(), m) + (spine.interval_ms if full else spine.interval_ms[present])
    samples = unints(r.section(), m) + (spine.samples if full else spine.samples[present])
    flagged = unints(r.section(), m)
    guess = mean_interval(interval, samples)
    cand = spine.candidates if full else spine.candidates[present]
    got = {}
    for name in RATES:
        if name in rates:
            got[name] = _rates_from(r, m, guess, cand, sum_delta, interval)
        else:
            _skip_rates(r)
            got[name] = (np.zeros(m, np.float64), np.ones(m, bool))
    (max_rate, max_null), (min_rate, min_null) = got["max"], got["min"]
    r.done()

    def spread(a: np.ndarray, fill) -> np.ndarray:
        if full:
            return a
        out = np.full(n, fill, dtype=a.dtype)
        out[present] = a
        return out
    return TierColumn(present, spread(sum_delta, 0), spread(interval, 0), spread(samples, 0), spread(flagged, 0),
                      spread(max_rate, 0.0), spread(max_null, True), spread(min_rate, 0.0), spread(min_null, True))


I64 = 2 ** 63


def totals(c: TierColumn) -> tuple[int | None, int | None, float | None, float | None, int | None, int | None]:
    """A column's buckets summed (sum_delta, sum_interval_ms), its highest peak and lowest floor rate
    (None: none), and its samples and flagged summed: what a reader that sums a series over a range
    wholly holding the block takes instead of its buckets. All None when a sum leaves a bigint."""
    p = c.present
    sums = [sum(a[p].tolist()) for a in (c.sum_delta, c.sum_interval_ms, c.samples, c.flagged)]   # exact
    if any(not -I64 <= v < I64 for v in sums):
        return (None,) * 6
    peak = c.max_rate[p & ~c.max_null]
    floor = c.min_rate[p & ~c.min_null]
    return (sums[0], sums[1], float(peak.max()) if len(peak) else None, float(floor.min()) if len(floor) else None,
            sums[2], sums[3])


# --- bucket rows <-> blocks ----------------------------------------------------------------

# A bucket row as a tier table holds it: (series id, bucket start in seconds since the epoch,
# sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged); rates None when NULL.
BucketRow = tuple[int, int, int, int, float | None, float | None, int, int]


def _most_common(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Per row of a (series x buckets) matrix's columns: the most frequent value where `where`."""
    out = np.zeros(values.shape[1], np.int64)
    for j in range(values.shape[1]):
        v = values[where[:, j], j]
        if len(v):
            uniq, counts = np.unique(v, return_counts=True)
            out[j] = uniq[np.argmax(counts)]
    return out


def _candidates(found: list[tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, int]], np.ndarray]], n: int
                ) -> np.ndarray:
    """Per bucket, the intervals most of the switch's extreme rates are found at (rates, their
    guesses, their bucket positions), CANDIDATES at most, most used first; 0 where none."""
    pos_all, iv_all = [], []
    for rate, guess, others, pos in found:
        d, off, unpaired = to_pairs(rate, guess, others)
        use = (d != 0) & ~unpaired            # a zero rate pairs with any interval: it says nothing
        pos_all.append(pos[use])
        iv_all.append((guess + off)[use])
    out = np.zeros((n, CANDIDATES), np.int64)
    pos, iv = np.concatenate(pos_all), np.concatenate(iv_all)
    if not len(pos):
        return out
    used, counts = np.unique(np.stack([pos, iv], axis=1), axis=0, return_counts=True)    # (bucket, interval)
    used = used[np.lexsort((used[:, 1], -counts, used[:, 0]))]
    rank = np.arange(len(used)) - np.searchsorted(used[:, 0], used[:, 0])   # from each bucket's first
    keep = rank < CANDIDATES
    out[used[keep, 0], rank[keep]] = used[keep, 1]
    return out


def split(rows: Sequence[BucketRow], lo_s: int, width_s: int) -> tuple[TierSpine, dict[int, TierColumn]]:
    """One switch's bucket rows of one tier, in a block starting at lo_s, as a spine and a column
    per series."""
    if not rows:
        raise CodecError("no bucket rows")
    sids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    starts = np.fromiter((r[1] for r in rows), np.int64, len(rows))
    if ((starts - lo_s) % width_s).any() or (starts < lo_s).any():
        raise CodecError(f"a bucket does not start on a {width_s} s boundary at or after the block's start")
    offsets = np.unique((starts - lo_s) // width_s)
    where = np.searchsorted(offsets, (starts - lo_s) // width_s)
    series = np.unique(sids)
    row_of = np.searchsorted(series, sids)
    if len(np.unique(row_of * len(offsets) + where)) != len(rows):
        raise CodecError("a series has two rows for one bucket")
    shape = (len(series), len(offsets))
    present = np.zeros(shape, bool)
    present[row_of, where] = True
    mats: dict[str, np.ndarray] = {}
    for k, name in ((2, "sum_delta"), (3, "sum_interval_ms"), (6, "samples"), (7, "flagged")):
        m = np.zeros(shape, np.int64)
        m[row_of, where] = np.fromiter((r[k] for r in rows), np.int64, len(rows))
        mats[name] = m
    rates: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for k, name in ((4, "max"), (5, "min")):
        vals = [r[k] for r in rows]
        rate = np.zeros(shape, np.float64)
        null = np.ones(shape, bool)
        rate[row_of, where] = np.fromiter((0.0 if v is None else v for v in vals), np.float64, len(rows))
        null[row_of, where] = np.fromiter((v is None for v in vals), bool, len(rows))
        rates[name] = (rate, null)
    interval_ref = _most_common(mats["sum_interval_ms"], present)
    samples_ref = _most_common(mats["samples"], present)
    guess = mean_interval(mats["sum_interval_ms"], mats["samples"])
    found = []
    for rate, null in (rates["max"], rates["min"]):
        for i in range(len(series)):           # the other guesses are a column's own
            live = ~null[i]
            others = other_guesses(mats["sum_interval_ms"][i][live], mats["samples"][i][live])
            found.append((rate[i][live], guess[i][live], others, np.flatnonzero(live)))
    spine = TierSpine(offsets.astype(np.int64), interval_ref, samples_ref, _candidates(found, len(offsets)))
    columns = {int(sid): TierColumn(present[i], mats["sum_delta"][i], mats["sum_interval_ms"][i], mats["samples"][i],
                                    mats["flagged"][i], rates["max"][0][i], rates["max"][1][i], rates["min"][0][i],
                                    rates["min"][1][i])
               for i, sid in enumerate(series)}
    return spine, columns


def join(spine: TierSpine, columns: Mapping[int, TierColumn], lo_s: int, width_s: int) -> list[BucketRow]:
    """The bucket rows again, by series then bucket."""
    out: list[BucketRow] = []
    starts = (lo_s + spine.offsets * width_s).tolist()
    for sid in sorted(columns):
        c = columns[sid]
        cols = [a.tolist() for a in (c.sum_delta, c.sum_interval_ms, c.max_rate, c.max_null, c.min_rate, c.min_null,
                                     c.samples, c.flagged)]
        for j in np.flatnonzero(c.present).tolist():
            out.append((sid, starts[j], cols[0][j], cols[1][j], None if cols[3][j] else cols[2][j],
                        None if cols[5][j] else cols[4][j], cols[6][j], cols[7][j]))
    return out
