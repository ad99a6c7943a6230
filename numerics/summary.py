"""Summary statistics of a rate series. Pure (numpy).

    mean, variance (ddof = 1: the unbiased sample variance), std = sqrt(variance),
    cv = std / mean (None when the mean is 0: undefined), minimum, peak (the maximum),
    peak_to_mean = peak / mean (None when the mean is 0),
    percentiles 1, 5, 25, 50, 75, 95, 99 by numpy's default 'linear' method (type 7 of
    Hyndman and Fan: interpolation between order statistics at (n - 1) p).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from numerics.jsonable import plain

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    variance: float             # NaN when n < 2
    std: float
    cv: float | None
    minimum: float
    peak: float
    peak_to_mean: float | None
    percentiles: dict[int, float] = field(default_factory=dict)

    def as_json(self) -> dict:
        return plain(self)


def summarize(x: np.ndarray) -> Summary:
    x = np.asarray(x, np.float64)
    if x.ndim != 1 or not len(x):
        raise ValueError("summarize needs a non-empty 1-D array")
    if np.isnan(x).any():
        raise ValueError("summarize needs a series without NaN (see numerics.gaps)")
    mean = float(x.mean())
    variance = float(x.var(ddof=1)) if len(x) > 1 else float("nan")
    std = float(np.sqrt(variance))
    peak = float(x.max())
    pct = np.percentile(x, PERCENTILES)
    return Summary(len(x), mean, variance, std, std / mean if mean != 0 else None, float(x.min()), peak,
                   peak / mean if mean != 0 else None, {p: float(q) for p, q in zip(PERCENTILES, pct)})


def percentile_cont(ascending: np.ndarray, fraction: float) -> float | None:
    """PostgreSQL's percentile_cont(fraction) WITHIN GROUP (ORDER BY x) of values sorted ascending,
    bit for bit (src/backend/utils/adt/orderedsetaggs.c: the rows at floor and ceil of fraction x
    (n - 1), then lo + proportion x (hi - lo)); None for no values. The same arithmetic as
    numpy's 'linear' method, but numpy interpolates from the other end above the middle, so its
    last bit can differ from the database's: a reader that moved from SQL to numpy must not change
    a billed number."""
    n = len(ascending)
    if not n:
        return None
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"percentile fraction {fraction} is outside [0, 1]")
    position = fraction * (n - 1)
    first, second = math.floor(position), math.ceil(position)
    lo = float(ascending[first])
    if first == second:
        return lo
    return lo + (position - first) * (float(ascending[second]) - lo)
