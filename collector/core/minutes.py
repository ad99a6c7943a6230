"""Raw samples into rollup buckets: what the 1-minute tier holds, computed from a switch's polls.
Pure (numpy).

The contract is collector/archive/rollup.py's (what a bucket holds): per counter series and bucket
of the sample's time, sum_delta and sum_interval_ms over the samples drawn as traffic (a delta, a
positive interval, no NOT_DRAWN flag), the highest and lowest rate of one drawn sample, computed as
PostgreSQL computes `delta::float8 * 1000 / interval_ms`, the samples that carried the series and
those flagged (any flag but ROUTINE). Sums are exact integers; one that leaves a bigint is refused,
as the database's `sum(...)::bigint` refused it.

Why numpy and not SQL: an INSERT ... SELECT over the unnested arrays of a minute of 100,000 ports
(4.6 million values) aggregated them in a hash of a million groups and inserted in hash order:
19-23 s a minute on this machine, against 8 s here, most of it the insert (docs/benchmarks.md, 6).
A switch's polls are a small matrix (polls x series) whose buckets numpy reduces at once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from collector.core.facts import NOT_DRAWN, ROUTINE

I64_MAX = 2 ** 63 - 1


@dataclass
class Polls:
    """A switch's polls, oldest first, over the series any of them carried (matrices: polls x series)."""
    time_us: np.ndarray        # int64, microseconds since the epoch
    interval_ms: np.ndarray    # int64, 0 where null
    interval_null: np.ndarray  # bool
    series_ids: np.ndarray     # int64
    present: np.ndarray        # bool: the poll's layout names the series
    delta: np.ndarray          # int64, 0 where null
    delta_null: np.ndarray     # bool
    flags: np.ndarray          # int64

    def __len__(self) -> int:
        return len(self.time_us)


@dataclass
class Part:
    """Polls of one layout (or one decoded settled day): the same columns over its own series."""
    time_us: np.ndarray
    interval_ms: np.ndarray
    interval_null: np.ndarray
    series_ids: np.ndarray
    delta: np.ndarray          # (polls x series) int64
    delta_null: np.ndarray
    flags: np.ndarray
    present: np.ndarray | None = None     # None: every series in every poll


def combine(parts: Sequence[Part]) -> Polls:
    """Parts of one switch (layouts changing, settled days beside rows) as one Polls, by time."""
    if len(parts) == 1 and np.all(parts[0].series_ids[1:] > parts[0].series_ids[:-1]):
        p = parts[0]           # the usual case: one layout, its series in order
        present = np.ones(p.delta.shape, bool) if p.present is None else p.present
        return Polls(p.time_us, p.interval_ms, p.interval_null, p.series_ids, present, p.delta, p.delta_null, p.flags)
    ids = np.unique(np.concatenate([p.series_ids for p in parts])) if parts else np.zeros(0, np.int64)
    k = sum(len(p.time_us) for p in parts)
    out = Polls(np.zeros(k, np.int64), np.zeros(k, np.int64), np.ones(k, bool), ids, np.zeros((k, len(ids)), bool),
                np.zeros((k, len(ids)), np.int64), np.ones((k, len(ids)), bool), np.zeros((k, len(ids)), np.int64))
    at = 0
    for p in parts:
        rows = slice(at, at + len(p.time_us))
        cols = np.searchsorted(ids, p.series_ids)
        out.time_us[rows], out.interval_ms[rows], out.interval_null[rows] = p.time_us, p.interval_ms, p.interval_null
        grid = np.ix_(np.arange(rows.start, rows.stop), cols)
        out.present[grid] = True if p.present is None else p.present
        out.delta[grid], out.delta_null[grid], out.flags[grid] = p.delta, p.delta_null, p.flags
        at = rows.stop
    if len(parts) > 1:
        order = np.argsort(out.time_us, kind="stable")
        for name in ("time_us", "interval_ms", "interval_null", "present", "delta", "delta_null", "flags"):
            setattr(out, name, getattr(out, name)[order])
    return out


# Flat bucket columns, in tier_read's names: bucket start (s since the epoch), series, sums, extreme
# rates (NaN: no drawn sample), samples, flagged.
Buckets = dict[str, np.ndarray]
KEYS = ("t", "sid", "d", "ms", "mx", "mn", "n", "f")


def empty() -> Buckets:
    return {"t": np.zeros(0, np.int64), "sid": np.zeros(0, np.int64), "d": np.zeros(0, np.int64),
            "ms": np.zeros(0, np.int64), "mx": np.zeros(0), "mn": np.zeros(0), "n": np.zeros(0, np.int64),
            "f": np.zeros(0, np.int64)}


def aggregate(polls: Polls, width_s: int, keep: np.ndarray | None = None) -> Buckets:
    """The buckets of width_s seconds of these polls, for the series where `keep` (None: all),
    every (series, bucket) with at least one sample."""
    if not len(polls):
        return empty()
    bucket = polls.time_us // (width_s * 1_000_000)
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    if len(starts) > 1 and (np.diff(bucket[starts]) <= 0).any():
        raise ValueError("polls are not in time order")
    interval = np.where(polls.interval_null, 0, polls.interval_ms)[:, None]
    drawn = polls.present & ~polls.delta_null & ((polls.flags & int(NOT_DRAWN)) == 0) & (interval > 0)
    d = np.where(drawn, polls.delta, 0)
    ms = np.where(drawn, interval, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = polls.delta.astype(np.float64) * 1000.0 / interval.astype(np.float64)
    n = np.add.reduceat(polls.present.astype(np.int64), starts, axis=0)
    sum_d = _exact_sums(d, starts, drawn)
    sum_ms = np.add.reduceat(ms, starts, axis=0)
    any_drawn = np.add.reduceat(drawn.astype(np.int64), starts, axis=0) > 0
    mx = np.where(any_drawn, np.maximum.reduceat(np.where(drawn, rate, -np.inf), starts, axis=0), np.nan)
    mn = np.where(any_drawn, np.minimum.reduceat(np.where(drawn, rate, np.inf), starts, axis=0), np.nan)
    flagged = polls.present & ((polls.flags & ~int(ROUTINE)) != 0)
    f = np.add.reduceat(flagged.astype(np.int64), starts, axis=0)
    live = n > 0
    if keep is not None:
        live &= keep[None, :]
    b_idx, s_idx = np.nonzero(live)
    return {"t": bucket[starts][b_idx] * width_s, "sid": polls.series_ids[s_idx], "d": sum_d[live],
            "ms": sum_ms[live], "mx": mx[live], "mn": mn[live], "n": n[live], "f": f[live]}


def _exact_sums(d: np.ndarray, starts: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """Per bucket and series, the sum of the drawn deltas; exact (int64 unless a sum could leave it)."""
    if not d.size or int(np.abs(d).max()) * d.shape[0] <= I64_MAX:
        return np.add.reduceat(d, starts, axis=0)
    ends = np.r_[starts[1:], d.shape[0]]
    out = np.zeros((len(starts), d.shape[1]), np.int64)
    for i, (a, b) in enumerate(zip(starts, ends, strict=True)):
        for j in range(d.shape[1]):
            total = sum(int(v) for v in d[a:b, j][drawn[a:b, j]])
            if not -I64_MAX - 1 <= total <= I64_MAX:
                raise OverflowError(f"a bucket's sum of deltas ({total}) is out of the bigint range")
            out[i, j] = total
    return out


def concat(parts: Sequence[Buckets]) -> Buckets:
    if not parts:
        return empty()
    return {k: np.concatenate([p[k] for p in parts]) for k in KEYS}
