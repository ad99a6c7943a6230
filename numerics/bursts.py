"""Significant bursts of a rate series: the definition, and its detection. Pure (numpy only).

The seed's users marked the series of their SC'95 inventory (seed 002, table 15) that had
"significant bursts" by eye, against each series' own behaviour: a port that carries 1 Mb/s has a
burst at 30 Mb/s whatever its line rate. Cellar states the rule instead:

    threshold = max(k x median rate of the window,  p % of the port's capacity,  floor)
    a burst   = a maximal stretch of consecutive points whose rate is above the threshold,
                lasting at least `min_duration` seconds (from the start of its first point to
                the end of its last) and holding at least `min_samples` poll samples above it.

What "significant" means, by default (BurstRule()): k = 4 times the series' usual (median) rate,
for at least 30 s and two samples. The capacity term is a noise floor, not the yardstick: on a
port whose usual traffic is a tiny fraction of its capacity (median 0: idle most of the window)
4 x the median is 0 and every management frame would pass; 0.01 % of capacity (1 Mb/s on 10 Gb/s,
100 kb/s on 1 Gb/s, 37 cells/s on OC-3) is far above such chatter (LLDP, STP, ARP: hundreds of
bits/s) and far below any transfer. Two samples keep single-sample spikes out: one poll interval
that counted a lot is not a burst; a spike that straddles a poll shows in two samples and, to an
archive of counters, is as long as they are.

Points are intervals [start, end) with a volume (delta) over the seconds of them that were
measured (`seconds`; 0 = nothing measured). A raw sample is one poll sample; a bucket of a rollup
tier holds several, of which the ones above the threshold are not stored: `samples_above` takes
the fewest its volume and highest one-sample rate imply. The median is taken over measured points
only. A point with nothing measured, or a hole in time between two points, is a gap: a gap is
*unknown*, not quiet, so it neither ends a burst nor starts one. Two runs above the threshold
separated only by a gap are one burst, which reports how much of it was gap (`gap_seconds`);
two runs separated by one measured point at or below the threshold stay two bursts.
Volume and mean count the measured part only: mean = volume / measured seconds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BurstRule:
    k: float = 4.0                  # times the median rate of the window
    capacity_pct: float = 0.01      # percent of the port's capacity: a noise floor (ignored when unknown)
    min_duration_s: float = 30.0    # shorter stretches are not bursts
    min_samples: int = 2            # poll samples above the threshold a burst holds at least
    floor: float = 0.0              # absolute rate (units/s) a burst must exceed in any case

    def __post_init__(self) -> None:
        if not (self.k >= 0 and np.isfinite(self.k)):
            raise ValueError(f"k must be a finite number >= 0, not {self.k}")
        if not 0 <= self.capacity_pct <= 100:
            raise ValueError(f"capacity_pct must be within 0..100, not {self.capacity_pct}")
        if not (self.min_duration_s >= 0 and np.isfinite(self.min_duration_s)):
            raise ValueError(f"min_duration_s must be >= 0, not {self.min_duration_s}")
        if not (isinstance(self.min_samples, int) and self.min_samples >= 1):
            raise ValueError(f"min_samples must be a whole number >= 1, not {self.min_samples}")
        if not self.floor >= 0:
            raise ValueError(f"floor must be >= 0, not {self.floor}")

    def threshold(self, median: float, capacity_per_s: float | None) -> float:
        parts = [self.k * median, self.floor]
        if capacity_per_s:
            parts.append(capacity_per_s * self.capacity_pct / 100)
        return float(max(parts))

    def describe(self, unit: str = "/s") -> str:
        return (f"rate above max({self.k:g} x median of the window, {self.capacity_pct:g} % of capacity"
                f"{f', {self.floor:g} {unit}' if self.floor else ''}) for at least {self.min_duration_s:g} s and "
                f"{self.min_samples} poll sample{'s' if self.min_samples != 1 else ''}")


@dataclass(frozen=True)
class Burst:
    start: float            # epoch seconds: start of the first point above the threshold
    end: float              # end of the last one
    peak: float             # highest point rate (units/s)
    mean: float             # volume / measured seconds
    volume: int             # units (cells, octets, packets) counted in the burst
    points: int             # measured points above the threshold
    gap_seconds: float      # unknown time inside the burst
    samples: int = 0        # poll samples above the threshold (in buckets: the fewest they imply)

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class BurstReport:
    rule: BurstRule
    median: float           # NaN when nothing was measured
    threshold: float        # NaN when nothing was measured
    bursts: list[Burst]


def samples_above(delta: np.ndarray, seconds: np.ndarray, peak: np.ndarray, samples: np.ndarray,
                  threshold: float) -> np.ndarray:
    """Poll samples above `threshold` in each point whose average is above it. A point of n samples
    over s seconds with volume v, none faster than its peak p, spent at least (v - threshold x s) /
    (p - threshold) seconds above the threshold: that over the mean sample length s / n, rounded
    to the nearest whole sample (sample lengths vary with the polls' jitter), at least 1, at most n."""
    delta, seconds = np.asarray(delta, np.float64), np.asarray(seconds, np.float64)
    peak, n = np.asarray(peak, np.float64), np.asarray(samples, np.float64)
    room = peak - threshold
    ok = (seconds > 0) & (n > 0) & (room > 0)
    held = np.zeros(len(delta))
    np.divide(delta - threshold * seconds, room, out=held, where=ok)
    width = np.ones(len(delta))
    np.divide(seconds, n, out=width, where=ok)
    return np.clip(np.round(held / width), 1, np.maximum(n, 1)).astype(np.int64)


def find(start: np.ndarray, end: np.ndarray, delta: np.ndarray, seconds: np.ndarray,
         rule: BurstRule, capacity_per_s: float | None = None, peak: np.ndarray | None = None,
         samples: np.ndarray | None = None) -> BurstReport:
    """Bursts of one series. Arrays are one entry per point, oldest first: start and end (epoch
    seconds), delta (units counted), seconds (seconds measured within the point; 0 = a gap); for
    buckets of several samples also peak (the highest one-sample rate) and samples (how many);
    without them every point is one sample."""
    start, end = np.asarray(start, np.float64), np.asarray(end, np.float64)
    delta, seconds = np.asarray(delta, np.float64), np.asarray(seconds, np.float64)
    if not len(start) == len(end) == len(delta) == len(seconds):
        raise ValueError("start, end, delta and seconds must have one entry per point")
    measured = seconds > 0
    if not measured.any():
        return BurstReport(rule, float("nan"), float("nan"), [])
    rate = np.zeros(len(start))
    np.divide(delta, seconds, out=rate, where=measured)
    median = float(np.median(rate[measured]))
    threshold = rule.threshold(median, capacity_per_s)
    above = measured & (rate > threshold)
    quiet = measured & ~above
    if peak is None or samples is None:
        count = np.ones(len(start), np.int64)
    else:
        count = samples_above(delta, seconds, np.where(np.isnan(peak), rate, peak), samples, threshold)
    return BurstReport(rule, median, threshold,
                       [b for b in _runs(start, end, delta, seconds, rate, above, quiet, count)
                        if b.duration >= rule.min_duration_s and b.samples >= rule.min_samples])


def _runs(start, end, delta, seconds, rate, above, quiet, count) -> list[Burst]:
    """Stretches from a point above the threshold to the last one before a quiet point."""
    out: list[Burst] = []
    idx_above = np.flatnonzero(above)
    if not len(idx_above):
        return out
    # Between two consecutive points above the threshold, a quiet point splits them.
    quiet_before = np.cumsum(quiet)
    split = quiet_before[idx_above[1:]] != quiet_before[idx_above[:-1]]
    first = 0
    for j in [*np.flatnonzero(split), len(idx_above) - 1]:
        members = idx_above[first:j + 1]
        lo, hi = members[0], members[-1]
        b_start, b_end = float(start[lo]), float(end[hi])
        measured = float(seconds[members].sum())
        volume = int(round(delta[members].sum()))
        out.append(Burst(b_start, b_end, float(rate[members].max()), volume / measured if measured else 0.0,
                         volume, len(members), max(0.0, (b_end - b_start) - measured), int(count[members].sum())))
        first = j + 1
    return out
