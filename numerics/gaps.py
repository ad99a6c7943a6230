"""From archived points to the regular, gap-free series the statistics need. Pure (numpy).

Every estimator in this package (ACF, spectrum, Hurst) assumes samples at a regular interval
with nothing missing. Archived points are neither quite: polls jitter, and a missed poll or an
agent down leaves a hole. Two steps:

1. `regularize` places the points on the grid t0 + k step_s. t0 is the first point's time moved
   by the median offset of all points from the step grid through it, so one late first poll does
   not shift the grid. A point is put in the nearest slot when it lies within step/4 of it; a
   point further off is *dropped* and counted (`off_grid`): half-way between two slots it belongs
   to neither, and snapping it would move a value by up to half a step. Two points in one slot
   are averaged (`collisions`). A slot without a point, or whose value is NaN, is missing.
2. A gap-free stretch of it: either the longest run without a missing slot (`longest_stretch`),
   or (`interpolate`) after filling each gap of at most `max_gap` slots that has a value on both
   sides by linear interpolation, the longest run of the result. Interpolated samples are
   smoother than measured ones, so they bias the Hurst estimates up a little: keep max_gap small
   and report `n_interpolated`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OFF_GRID_FRACTION = 0.25        # a point further than this x step from its slot is dropped


@dataclass(frozen=True)
class Regular:
    t0: float                   # epoch seconds of slot 0
    step_s: float
    values: np.ndarray          # one per slot, NaN = missing
    n_slots: int
    n_missing: int
    off_grid: int = 0           # points dropped: further than step/4 from every slot
    collisions: int = 0         # points averaged into a slot that already had one

    def times(self) -> np.ndarray:
        return self.t0 + self.step_s * np.arange(self.n_slots)


@dataclass(frozen=True)
class Stretch:
    start_index: int            # slot of Regular where the stretch begins
    values: np.ndarray          # no NaN
    t_start: float              # epoch seconds of its first sample
    step_s: float
    method: str
    n_interpolated: int         # samples of the stretch filled in, not measured
    n_dropped_outside: int      # measured samples of the window left out (outside the stretch)
    gaps: int                   # runs of missing slots in the whole window (before any filling)
    n_slots: int                # slots of the whole window

    @property
    def n(self) -> int:
        return len(self.values)

    def describe(self) -> str:
        if not self.n:
            return "no sample was measured in the window"
        span = self.n * self.step_s
        text = (f"{self.n} samples of {self.step_s:g} s ({_duration(span)}) from slot {self.start_index} "
                f"of {self.n_slots}: {self.method}")
        text += f"; {self.gaps} gap{'s' if self.gaps != 1 else ''} in the window"
        if self.n_interpolated:
            text += f", {self.n_interpolated} samples interpolated"
        if self.n_dropped_outside:
            text += f", {self.n_dropped_outside} measured samples outside the stretch left out"
        return text + "."

    def as_json(self) -> dict:
        from numerics.jsonable import plain

        return {**plain(self), "n": self.n, "description": self.describe()}


def regularize(t: np.ndarray, v: np.ndarray, step_s: float) -> Regular:
    """Points (t sorted, epoch seconds; v with NaN for missing) on a regular grid (see the module)."""
    t, v = np.asarray(t, np.float64), np.asarray(v, np.float64)
    if t.shape != v.shape or t.ndim != 1:
        raise ValueError("t and v must be 1-D arrays of the same length")
    if not step_s > 0:
        raise ValueError(f"step_s must be > 0, not {step_s}")
    if not len(t):
        return Regular(float("nan"), step_s, np.empty(0), 0, 0)
    if np.any(np.diff(t) < 0):
        raise ValueError("t must be sorted")
    # Offset of each point from the grid through t[0], within (-step/2, step/2]; the median of
    # them re-centres the grid on where the polls actually fall.
    offset = (t - t[0] + step_s / 2) % step_s - step_s / 2
    t0 = t[0] + float(np.median(offset))
    k = np.rint((t - t0) / step_s).astype(np.int64)
    on_grid = np.abs(t - (t0 + k * step_s)) <= OFF_GRID_FRACTION * step_s
    off_grid = int((~on_grid).sum())
    k, v = k[on_grid], v[on_grid]
    shift = int(k.min()) if len(k) else 0       # the first on-grid point is slot 0
    k -= shift
    t0 += shift * step_s
    n_slots = int(k.max()) + 1 if len(k) else 0
    ok = ~np.isnan(v)
    sums = np.bincount(k[ok], weights=v[ok], minlength=n_slots)
    counts = np.bincount(k[ok], minlength=n_slots)
    values = np.full(n_slots, np.nan)
    np.divide(sums, counts, out=values, where=counts > 0)
    collisions = int(np.clip(counts - 1, 0, None).sum())
    return Regular(float(t0), float(step_s), values, n_slots, int((counts == 0).sum()), off_grid, collisions)


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each maximal run of True in mask."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _longest(values: np.ndarray) -> tuple[int, int]:
    starts, ends = _runs(~np.isnan(values))
    if not len(starts):
        return 0, 0
    i = int(np.argmax(ends - starts))       # the first of equally long runs
    return int(starts[i]), int(ends[i])


def _stretch(r: Regular, filled: np.ndarray, method: str) -> Stretch:
    lo, hi = _longest(filled)
    measured = ~np.isnan(r.values)
    inside = np.zeros(r.n_slots, bool)
    inside[lo:hi] = True
    return Stretch(lo, filled[lo:hi].copy(), r.t0 + lo * r.step_s, r.step_s, method,
                   n_interpolated=int((inside & ~measured).sum()),
                   n_dropped_outside=int((measured & ~inside).sum()),
                   gaps=len(_runs(~measured)[0]), n_slots=r.n_slots)


def longest_stretch(r: Regular) -> Stretch:
    """The longest run of slots without a missing one (the first, when several are as long)."""
    return _stretch(r, r.values, "longest gap-free stretch")


def interpolate(r: Regular, max_gap: int) -> Stretch:
    """Gaps of at most max_gap slots with a measured slot on both sides filled linearly (a gap at
    either end of the window is not: nothing bounds it), then the longest run of the result."""
    if max_gap < 0:
        raise ValueError(f"max_gap must be >= 0, not {max_gap}")
    filled = r.values.copy()
    starts, ends = _runs(np.isnan(filled))
    idx = np.arange(r.n_slots)
    for s, e in zip(starts, ends):
        if s > 0 and e < r.n_slots and e - s <= max_gap:
            filled[s:e] = np.interp(idx[s:e], [s - 1, e], [filled[s - 1], filled[e]])
    return _stretch(r, filled, f"linear interpolation of gaps of at most {max_gap} samples, then the longest stretch")


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:g} s"
