"""Bills from exact deltas: volume per sample interval, the 95th percentile, the direction rules. Pure.

The rule, as docs/reports.md states it to users:

- A stored delta counts the traffic of its sample's interval (t - interval, t] (t: the poll time,
  the interval: since the switch's previous stored poll). Only deltas *drawn as traffic* count
  (collector/archive/rollup.py drawn_sql: not withheld by a reboot, reset, clock step, width
  change or ambiguity, not OVER_CAPACITY); a wrap's delta is exact and counts.
- Its volume is spread evenly over that interval, so a bill's sample interval (5 minutes by
  default) receives the part of each delta that falls inside it: a 15 s delta over
  (10:04:50, 10:05:05] gives 10/15 of its volume to the 10:00 interval and 5/15 to the 10:05 one.
  A delta over missed polls (flag GAP, e.g. 20 minutes while the switch did not answer) is
  spread over the whole gap: its average, never a spike in one interval.
- The volumes of the bill's series are summed per sample interval and direction *before* any
  percentile; the rate of an interval is its volume x 8 / its length (bits/s): the carriers'
  rule, whatever part of the interval was measured.
- An interval without any measured time (no drawn delta of any of the bill's series covers any
  of it: switch down and never answered again, every delta withheld) is left out of the
  percentile and counted as unmeasured; time inside an interval that no delta covers counts as
  no traffic (a reboot's withheld interval: at most one poll interval).
- 95th percentile: nearest rank over the n measured intervals sorted ascending, the value of
  rank ceil(0.95 n): the top 5 % are discarded (8,640 five-minute intervals of 30 days: the
  433rd highest is billed). numpy: np.percentile(x, 95, method="inverted_cdf").
- Direction rules: in, out (the switch port's receive and transmit), max = the larger of the
  in and out percentiles (each over its own intervals), sum = the percentile of in + out per
  interval. Quota bills count volume: in, out, the larger of the two, or both.

Volumes are summed as integers; the share of a delta falling into an interval is a fraction,
so interval volumes are float64 (exact to the byte below 9 PB per bill and period) and a
period's volume is the exact integer sum of its deltas with at most one delta per switch shared
at each period boundary, rounded to the unit.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

PERCENTILE = 95
DIRECTION_RULES = ("in", "out", "max", "sum")
MODES = ("p95", "quota")


@dataclass(frozen=True)
class Stream:
    """One switch's samples for a bill, oldest first: poll times and intervals (seconds), the
    drawn volume of the bill's series per direction (integer units, e.g. bytes), and whether
    any of the bill's series had a drawn delta in that direction."""
    t: np.ndarray
    span: np.ndarray
    vol_in: np.ndarray
    vol_out: np.ndarray
    has_in: np.ndarray
    has_out: np.ndarray

    def __len__(self) -> int:
        return len(self.t)

    def starts(self) -> np.ndarray:
        """Where each sample's interval begins: never before the previous sample's end (the
        interval is "since the previous stored poll", rounded to the millisecond in storage)."""
        span = np.where(np.isfinite(self.span) & (self.span > 0), self.span, 0.0)
        s = self.t - span
        if len(s) > 1:
            s[1:] = np.maximum(s[1:], self.t[:-1])
        return np.minimum(s, self.t)


def stream(t: ArrayLike, span: ArrayLike, vol_in: ArrayLike, vol_out: ArrayLike,
           has_in: ArrayLike, has_out: ArrayLike) -> Stream:
    """A stream from columns of any length (sequences or arrays): times, spans, volumes, which are measured."""
    order = np.argsort(np.asarray(t, dtype=np.float64), kind="stable")
    return Stream(np.asarray(t, dtype=np.float64)[order], np.asarray(span, dtype=np.float64)[order],
                  np.asarray(vol_in, dtype=np.int64)[order], np.asarray(vol_out, dtype=np.int64)[order],
                  np.asarray(has_in, dtype=bool)[order], np.asarray(has_out, dtype=bool)[order])


def edges(start: float, end: float, width: float) -> np.ndarray:
    """Interval boundaries from start to end every `width` seconds; a last shorter interval
    when the period is not a whole number of them."""
    if width <= 0 or end <= start:
        raise ValueError("need start < end and a positive width")
    n = int(math.floor((end - start) / width + 1e-9))
    e = start + np.arange(n + 1, dtype=np.float64) * width
    if e[-1] < end - 1e-6:
        e = np.append(e, end)
    return e


@dataclass(frozen=True)
class Bins:
    """Per sample interval: volume (units, float) and measured seconds, in and out."""
    edges: np.ndarray
    vol_in: np.ndarray
    vol_out: np.ndarray
    measured_in: np.ndarray
    measured_out: np.ndarray

    @property
    def seconds(self) -> np.ndarray:
        return np.diff(self.edges)

    @property
    def measured(self) -> np.ndarray:
        """Intervals with any measured time, in or out."""
        return (self.measured_in > 0) | (self.measured_out > 0)


def _cumulative_at(s: Stream, x: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The running sum of `values` (one per sample, spread evenly over its interval) at times x."""
    starts = s.starts()
    c = np.cumsum(values, dtype=np.float64)
    before = np.concatenate(([0.0], c[:-1]))
    xp = np.empty(2 * len(s))
    fp = np.empty(2 * len(s))
    xp[0::2], xp[1::2] = starts, s.t
    fp[0::2], fp[1::2] = before, c
    return np.interp(x, xp, fp, left=0.0, right=float(c[-1]))


def spread(streams: Sequence[Stream], e: np.ndarray) -> Bins:
    """Volumes and measured time of every interval [e[i], e[i+1]), summed over the streams."""
    n = len(e) - 1
    out = {k: np.zeros(n) for k in ("vi", "vo", "mi", "mo")}
    for s in streams:
        if not len(s):
            continue
        length = s.t - s.starts()
        for key, values in (("vi", s.vol_in), ("vo", s.vol_out),
                            ("mi", np.where(s.has_in, length, 0.0)), ("mo", np.where(s.has_out, length, 0.0))):
            out[key] += np.diff(_cumulative_at(s, e, values))
    return Bins(e, out["vi"], out["vo"], out["mi"], out["mo"])


def exact_volume(s: Stream, lo: float, hi: float, direction: str) -> tuple[int, float]:
    """The stream's volume in [lo, hi) as (integer part of whole deltas, fraction of the shared
    ones at the two edges): exact integers, the edge shares as float."""
    values = s.vol_in if direction == "in" else s.vol_out
    starts = s.starts()
    whole = 0
    frac = 0.0
    if not len(s):
        return 0, 0.0
    inside = (starts >= lo) & (s.t <= hi)
    whole = int(values[inside].sum(dtype=np.int64))
    for k in np.flatnonzero(~inside & (s.t > lo) & (starts < hi)).tolist():
        a, b = float(starts[k]), float(s.t[k])
        if b > a:
            frac += int(values[k]) * (min(b, hi) - max(a, lo)) / (b - a)
    return whole, frac


def volume(streams: Sequence[Stream], lo: float, hi: float) -> tuple[int, int]:
    """(in, out) volume of [lo, hi) over all streams, rounded to the unit."""
    out = []
    for direction in ("in", "out"):
        parts = [exact_volume(s, lo, hi, direction) for s in streams]
        out.append(sum(p[0] for p in parts) + round(math.fsum(p[1] for p in parts)))
    return out[0], out[1]


def nearest_rank(values: np.ndarray, percentile: float = PERCENTILE) -> float | None:
    """The value of rank ceil(p/100 x n) of the values sorted ascending (None when empty)."""
    n = len(values)
    if n == 0:
        return None
    k = max(1, math.ceil(percentile / 100 * n - 1e-9))
    return float(np.partition(values, k - 1)[k - 1])


@dataclass(frozen=True)
class Figures:
    """What a bill charges for one period (or its part to date). Rates bits/s, volumes units x 8
    = bits are not used: volumes stay in bytes."""
    intervals: int                # sample intervals in the period (to date)
    measured_in: int              # intervals with measured inbound time
    measured_out: int
    measured: int                 # with measured time in either direction
    p95_in: float | None          # bits/s
    p95_out: float | None
    p95_sum: float | None
    p95_at_in: int | None         # index of the interval that sets the percentile
    p95_at_out: int | None
    p95_at_sum: int | None
    volume_in: int                # bytes, exact
    volume_out: int

    def p95(self, rule: str) -> float | None:
        """The billed rate by direction rule."""
        if rule == "in":
            return self.p95_in
        if rule == "out":
            return self.p95_out
        if rule == "sum":
            return self.p95_sum
        values = [v for v in (self.p95_in, self.p95_out) if v is not None]
        return max(values) if values else None

    def volume(self, rule: str) -> int:
        return {"in": self.volume_in, "out": self.volume_out, "sum": self.volume_in + self.volume_out,
                "max": max(self.volume_in, self.volume_out)}[rule]


def _rank_at(rates: np.ndarray, keep: np.ndarray) -> tuple[float | None, int | None]:
    idx = np.flatnonzero(keep)
    value = nearest_rank(rates[idx])
    if value is None:
        return None, None
    # the earliest interval holding the billed value: where the percentile was set
    return value, int(idx[np.flatnonzero(rates[idx] == value)[0]])


def figures(bins: Bins, volumes: tuple[int, int], bits_per_unit: float = 8.0) -> Figures:
    """The percentiles and volumes of a bill from its intervals (spread) and exact volumes."""
    secs = bins.seconds
    rate_in = bins.vol_in * bits_per_unit / secs
    rate_out = bins.vol_out * bits_per_unit / secs
    mi, mo = bins.measured_in > 0, bins.measured_out > 0
    p_in, at_in = _rank_at(rate_in, mi)
    p_out, at_out = _rank_at(rate_out, mo)
    p_sum, at_sum = _rank_at(rate_in + rate_out, mi | mo)
    return Figures(len(secs), int(mi.sum()), int(mo.sum()), int((mi | mo).sum()), p_in, p_out, p_sum,
                   at_in, at_out, at_sum, volumes[0], volumes[1])
