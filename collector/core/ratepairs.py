"""A rollup rate as an integer pair: the (delta, interval) whose rate, computed as the rollup
computes it, is the very same float64 (collector/core/tierblocks.py stores rates so). Pure: numpy.

A bucket's max_rate and min_rate are each the rate of one sample, `delta::float8 * 1000 /
interval_ms` in PostgreSQL (collector/archive/rollup.py), or a coarser tier's max/min of those:
the IEEE double of an integer pair. Any pair that gives the same bits is exact, so the search
takes the cheapest to store: an interval the switch's other series used in the bucket (a spine
candidate), else one near the bucket's mean interval, else one from the rate's closest fractions.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# How far from the mean interval the encoder looks for a rate's interval, in ms, each way: the
# extreme sample's interval differs from the bucket's mean by the poll clock's jitter, or by a
# missed poll's double interval (found by the later guesses: the block's typical interval, twice it).
SEARCH_MS = 64
# The denominators fraction_pair tries, smallest first: a reduced delta * 1000 / interval has one
# no larger than the interval (10^8 ms: more than a day).
FRACTION_BOUNDS = (10 ** 5, 10 ** 6, 10 ** 7, 10 ** 8)
LIMIT = 2.0 ** 62         # |delta| and interval stay below this: exact in float64 products' range
# The fraction search is Python, ~60 us a rate: at most this many a call, the rest kept as their
# float64 bits (exact too). Rates the rollup computed pair near the bucket's intervals; a column of
# rates made otherwise (another tool's import, a test's synthetic tier) took a minute a block.
FRACTION_MAX = 256


def rate_of(delta: np.ndarray, interval_ms: np.ndarray) -> np.ndarray:
    """The rollup's rate of a sample, as PostgreSQL computes `delta::float8 * 1000 / interval_ms`."""
    return (delta.astype(np.float64) * 1000.0) / interval_ms.astype(np.float64)


def mean_interval(sum_interval_ms: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Where the encoder starts looking for a rate's interval (integers only: decodes alike)."""
    n = np.maximum(samples, 1)
    return np.maximum((sum_interval_ms + n // 2) // n, 1)


def typical_interval(guess: np.ndarray) -> int:
    return int(np.median(guess)) if len(guess) else 1


def _try(rate: np.ndarray, iv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(delta, ok): the delta that with interval iv gives rate, where one does (iv <= 0: none)."""
    positive = iv > 0
    iv = np.where(positive, iv, 1)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.rint(rate * iv / 1000.0)
    ok = positive & np.isfinite(d) & (np.abs(d) < LIMIT)
    d_int = np.where(ok, d, 0).astype(np.int64)
    ok &= rate_of(d_int, iv) == rate
    return d_int, ok


def to_pairs(rate: np.ndarray, guess: np.ndarray, starts: Sequence[tuple[np.ndarray, int]] = ()
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates -> (delta, interval offset from guess, unpaired) with rate_of(delta, guess + offset) ==
    rate bit for bit wherever `unpaired` is False. Looks around guess (SEARCH_MS each way), then
    around each of `starts` (other guesses, one per rate, each with how far to look), then asks
    fraction_pair (for FRACTION_MAX rates at most)."""
    n = len(rate)
    delta = np.zeros(n, np.int64)
    offset = np.zeros(n, np.int64)
    todo = np.ones(n, bool)
    for start, reach in ((guess, SEARCH_MS), *starts):
        for k in [0] + [s * k for k in range(1, reach + 1) for s in (1, -1)]:
            idx = np.flatnonzero(todo)
            if not len(idx):
                return delta, offset, todo
            iv = start[idx] + k
            d, ok = _try(rate[idx], iv)
            hit = idx[ok]
            delta[hit] = d[ok]
            offset[hit] = iv[ok] - guess[hit]
            todo[hit] = False
    for i in np.flatnonzero(todo)[:FRACTION_MAX].tolist():
        pair = fraction_pair(float(rate[i]))
        if pair is not None:
            delta[i], offset[i], todo[i] = pair[0], pair[1] - guess[i], False
    return delta, offset, todo


def other_guesses(sum_interval_ms: np.ndarray, samples: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Where else to look for a rate's interval, and how far, when the bucket's mean misleads (a
    sample without a delta lowers it, a missed poll doubles one interval): the column's typical
    interval and twice it, SEARCH_MS each way."""
    typical = typical_interval(mean_interval(sum_interval_ms, samples))
    n = len(samples)
    return [(np.full(n, typical, np.int64), SEARCH_MS), (np.full(n, 2 * typical, np.int64), SEARCH_MS)]


def fraction_pair(rate: float) -> tuple[int, int] | None:
    """A (delta, interval) giving this rate, from the rate's closest fractions (the rest of the
    search found none near the bucket's intervals: several missed polls, a sample of another
    clock): delta * 1000 / interval is a fraction whose denominator divides the interval."""
    if not math.isfinite(rate):
        return None
    for bound in FRACTION_BOUNDS:
        f = Fraction(rate).limit_denominator(bound)
        k = 1000 // math.gcd(f.numerator, 1000)
        d, iv = f.numerator * k // 1000, f.denominator * k
        if abs(d) < LIMIT and iv < LIMIT and rate_of(np.array([d]), np.array([iv]))[0] == rate:
            return d, iv
    return None


def predict(sum_delta: np.ndarray, sum_interval_ms: np.ndarray, iv: np.ndarray) -> np.ndarray:
    """The delta the bucket's mean rate gives at interval iv (float64, the same bits on every decode)."""
    p = np.rint(sum_delta.astype(np.float64) * iv.astype(np.float64)
                / np.maximum(sum_interval_ms, 1).astype(np.float64))
    return np.clip(p, -LIMIT, LIMIT).astype(np.int64)


@dataclass
class Pairs:
    """A column's rates of one kind where live: how each pair is found again."""
    index: np.ndarray          # which candidate gave the interval; the candidates' count: an offset
    delta: np.ndarray
    offset: np.ndarray         # from guess, one per rate whose interval no candidate gave
    unpaired: np.ndarray       # positions kept as float64 bits


def pairs(rate: np.ndarray, guess: np.ndarray, cand: np.ndarray, starts: Sequence[tuple[np.ndarray, int]] = ()
          ) -> tuple[Pairs, np.ndarray]:
    """Pairs for rates, cand (rates x candidates) the intervals to try first, 0 where none (a
    spine's, collector/core/tierblocks.py); starts: to_pairs. Also each rate's interval."""
    n = len(rate)
    index = np.full(n, cand.shape[1], np.int64)
    delta = np.zeros(n, np.int64)
    iv = np.zeros(n, np.int64)
    todo = np.ones(n, bool)
    for j in range(cand.shape[1]):
        idx = np.flatnonzero(todo)
        d, ok = _try(rate[idx], cand[idx, j])
        hit = idx[ok]
        index[hit], delta[hit], iv[hit] = j, d[ok], cand[hit, j]
        todo[hit] = False
    esc = np.flatnonzero(todo)
    d, off, unpaired = to_pairs(rate[esc], guess[esc], [(g[esc], r) for g, r in starts])
    delta[esc], iv[esc] = d, guess[esc] + off
    return Pairs(index, delta, off, esc[unpaired]), iv
