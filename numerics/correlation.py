"""Autocorrelation, aggregation into coarser bins, and cross-correlation of two series. Pure.

Autocorrelation (statsmodels.tsa.stattools.acf, fft=True): r(k) = c(k) / c(0) with
c(k) = (1/n) sum_{t < n-k} (x[t] - mean)(x[t+k] - mean), the usual biased estimator. Two 95 %
bands are returned, for two different questions:
  band_white     +-1.96 / sqrt(n): where r(k) of an i.i.d. series falls (is there any correlation?);
  band_bartlett  Bartlett's half-widths 1.96 sqrt((1 + 2 sum_{j<k} r(j)^2) / n) (statsmodels'
                 confint, alpha = 0.05): where r(k) falls if the series were a moving average of
                 order k - 1 (is the correlation at lag k more than the lags before explain?).
Lags are capped at n // 4: beyond that fewer than 3/4 of the pairs enter each estimate.

Cross-correlation: Pearson's r of x[t] with y[t + lag] over the pairs where both are known, for
each lag. A positive best lag means y follows x: what happens in x shows in y `lag` steps later.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from numerics.jsonable import plain

MIN_PAIRS = 3                   # fewer pairs give no Pearson r worth the name


@dataclass(frozen=True)
class Acf:
    lags: np.ndarray
    values: np.ndarray
    band_white: float
    band_bartlett: np.ndarray   # half-width at each lag (0 at lag 0)
    n: int
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return plain(self)


def acf(x: np.ndarray, nlags: int) -> Acf:
    from statsmodels.tsa.stattools import acf as sm_acf

    x = np.asarray(x, np.float64)
    n = len(x)
    if n < 8:
        raise ValueError(f"the autocorrelation needs at least 8 samples, not {n}")
    notes = []
    cap = n // 4
    if nlags > cap:
        notes.append(f"lags capped at n/4 = {cap} (asked for {nlags}): beyond that each estimate "
                     "rests on fewer than 3/4 of the samples")
        nlags = cap
    if np.var(x) == 0:
        raise ValueError("the autocorrelation of a constant series is undefined")
    values, confint = sm_acf(x, nlags=nlags, fft=True, alpha=0.05, result_object=False)
    return Acf(np.arange(nlags + 1), values, 1.96 / np.sqrt(n), confint[:, 1] - values, n, notes)


def aggregate(t: np.ndarray, v: np.ndarray, width_s: float,
              origin: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts (deltas, not rates: a sum of rates means nothing) `v` of points at times t summed
    into bins [origin + k width, origin + (k + 1) width). A point belongs to the bin its time falls
    in; NaN values are skipped. Returns (bin starts, sums, points counted) for every bin from the
    first to the last one holding a point, including empty bins between them (count 0, sum 0: the
    count tells an empty bin from a quiet one)."""
    t, v = np.asarray(t, np.float64), np.asarray(v, np.float64)
    if t.shape != v.shape:
        raise ValueError("t and v must have the same length")
    if not width_s > 0:
        raise ValueError(f"width_s must be > 0, not {width_s}")
    ok = ~np.isnan(v) & ~np.isnan(t)
    if not ok.any():
        return np.empty(0), np.empty(0), np.empty(0, np.int64)
    k = np.floor((t[ok] - origin) / width_s).astype(np.int64)
    first = int(k.min())
    k -= first
    n_bins = int(k.max()) + 1
    sums = np.bincount(k, weights=v[ok], minlength=n_bins)
    counts = np.bincount(k, minlength=n_bins)
    return origin + width_s * (first + np.arange(n_bins)), sums, counts


@dataclass(frozen=True)
class XCorr:
    lags: np.ndarray
    r: list[float | None]       # None where fewer than 3 pairs, or one side is constant
    n_pairs: np.ndarray
    best_lag: int | None        # the lag of the largest |r|
    best_r: float | None
    r_at_zero: float | None
    meaning: str = ("r at lag L correlates x[t] with y[t + L]: a positive best lag means y follows x "
                    "by L steps, a negative one that y leads")

    def as_json(self) -> dict:
        return plain(self)


def cross_correlation(x: np.ndarray, y: np.ndarray, max_lag: int) -> XCorr:
    """Pearson r of x[t] with y[t + lag], lag = -max_lag..max_lag, over the pairs with both known.
    x and y are sampled on the same grid (same length); NaN marks a missing sample."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length (the same grid)")
    if max_lag < 0:
        raise ValueError(f"max_lag must be >= 0, not {max_lag}")
    n = len(x)
    lags = np.arange(-max_lag, max_lag + 1)
    rs: list[float | None] = []
    pairs = np.zeros(len(lags), np.int64)
    for i, lag in enumerate(lags.tolist()):
        # Each lag its own pairs and means: the standard "over the overlap" estimator, written out
        # because numpy/scipy correlate neither skip missing pairs nor re-centre per lag.
        if abs(lag) >= n:
            rs.append(None)
            continue
        a = x[max(0, -lag):n - max(0, lag)]
        b = y[max(0, lag):n - max(0, -lag)]
        both = ~np.isnan(a) & ~np.isnan(b)
        a, b = a[both], b[both]
        pairs[i] = len(a)
        r = None
        if len(a) >= MIN_PAIRS:
            da, db = a - a.mean(), b - b.mean()
            denom = np.sqrt((da * da).sum() * (db * db).sum())
            if denom > 0:
                r = float(np.clip((da * db).sum() / denom, -1, 1))
        rs.append(r)
    known = [(abs(r), i) for i, r in enumerate(rs) if r is not None]
    best = max(known, key=lambda p: (p[0], -abs(lags[p[1]])))[1] if known else None
    return XCorr(lags, rs, pairs, None if best is None else int(lags[best]), None if best is None else rs[best],
                 rs[max_lag])
