"""Is the series stationary enough for its Hurst estimates to mean long-range dependence? Pure.

Every Hurst estimator reads a trend or a periodic component as H > 0.5 (they add variance at
large scales). So before H is reported as long-range dependence, two departures are looked for:

  trend     the least-squares polynomial of degree 2 in time explains more than TREND_R2 = 15 %
            of the variance (R^2 > 0.15). The threshold is set from fGn itself: with H = 0.9 and
            n = 2^14, R^2 of the quadratic fit exceeds 0.15 in 1 % of series (95th
            percentile 0.11, measured over 200 seeds: docs/analysis.md), while a linear trend
            rising by 2 noise standard deviations over the series (R^2 ~ 0.25) is flagged for
            i.i.d. and H = 0.7 noise nearly always and for H = 0.9 noise in about 9 series of 10.
            A trend of one standard deviation (R^2 ~ 0.08) is within what fGn with H = 0.9 does
            by itself and is not flagged: no rule on one series can tell the two apart.
  periodic  the spectrum's lines (numerics.spectrum: a test with a 0.1 % false alarm rate).

A level shift is not tested on its own: change-point tests (CUSUM and the like) assume short-range
dependence and fire on long-range dependent noise, which is what is in question here. A large
shift shows up as a trend (R^2 of a step of D standard deviations in the middle is D^2/(4 + D^2)).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from numerics.jsonable import plain
from numerics.spectrum import Spectrum

TREND_R2 = 0.15
TREND_DEGREE = 2


@dataclass(frozen=True)
class Stationarity:
    stationary: bool
    reasons: list[str]
    trend_r2: float             # R^2 of the degree-2 polynomial fit
    trend_r2_linear: float
    trend_slope_per_s: float    # slope of the straight-line fit, units per second
    periods: list[float] = field(default_factory=list)      # period_s of each line (fundamentals)
    rule: str = (f"not stationary when a degree-{TREND_DEGREE} polynomial in time explains more than "
                 f"{100 * TREND_R2:g} % of the variance, or when the spectrum has a line")

    @property
    def verdict(self) -> str:
        if self.stationary:
            return ("no strong trend and no periodic component found: the Hurst estimates describe "
                    "the series' correlation over scales")
        return ("not stationary: " + "; ".join(self.reasons) +
                ". The Hurst estimates are not evidence of long-range dependence")

    def as_json(self) -> dict:
        return {**plain(self), "verdict": self.verdict}


def _r2(t: np.ndarray, x: np.ndarray, degree: int) -> tuple[float, np.ndarray]:
    coef = np.polynomial.polynomial.polyfit(t, x, degree)
    resid = x - np.polynomial.polynomial.polyval(t, coef)
    total = float(((x - x.mean()) ** 2).sum())
    return (1 - float((resid ** 2).sum()) / total if total > 0 else 0.0), coef


def check(x: np.ndarray, step_s: float, spec: Spectrum) -> Stationarity:
    x = np.asarray(x, np.float64)
    n = len(x)
    if n < 3:
        raise ValueError("a trend needs at least 3 samples")
    # Time scaled to [-1, 1] keeps the polynomial fit well conditioned for any n.
    u = np.linspace(-1, 1, n)
    r2_lin, coef = _r2(u, x, 1)
    r2, _ = _r2(u, x, TREND_DEGREE)
    duration = (n - 1) * step_s
    slope = float(coef[1] * 2 / duration) if duration > 0 else 0.0
    reasons = []
    if r2 > TREND_R2:
        reasons.append(f"a trend explains {100 * r2:.0f} % of the variance (more than {100 * TREND_R2:g} %; "
                       f"straight line: {slope:.3g} per s, {slope * duration:.3g} over the series)")
    periods = [p.period_s for p in spec.peaks]
    for p in spec.peaks:
        text = f"a periodic component with period {_period(p.period_s)} (p = {p.p_value:.2g})"
        if p.harmonics:
            text += f" and {len(p.harmonics)} harmonic{'s' if len(p.harmonics) > 1 else ''}"
        reasons.append(text)
    return Stationarity(not reasons, reasons, r2, r2_lin, slope, periods)


def _period(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"
