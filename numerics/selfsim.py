"""Traffic statistics of one rate series, all in one report. Pure.

Steps, in order: summary, autocorrelation, spectrum, stationarity, the four Hurst estimators.
The input is a gap-free series at a regular interval (numerics.gaps makes one). Budget: at most
MAX_SAMPLES = 2^16 samples (the whole report takes about 2 s for that on one core; the web layer
picks the tier whose step keeps the window within it); at least MIN_SAMPLES = 256, below which the
scale-based estimators have fewer than three usable scales and the report is refused.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from numerics import correlation, hurst, spectrum, stationarity, summary

MAX_SAMPLES = 2 ** 16
MIN_SAMPLES = 256
MAX_ACF_LAGS = 200              # default lags: min(n // 4, 200)

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Report:
    n: int
    step_s: float
    summary: summary.Summary
    acf: correlation.Acf
    spectrum: spectrum.Spectrum
    stationarity: stationarity.Stationarity
    hurst: list[hurst.HurstEstimate]

    @property
    def interpretation(self) -> str:
        if not self.stationarity.stationary:
            return self.stationarity.verdict + "."
        above = [e for e in self.hurst if e.ci_low > 0.5]
        hs = ", ".join(f"{e.method} {e.h:.2f}" for e in self.hurst)
        if len(above) == len(self.hurst):
            return f"stationary, and every estimator puts H above 0.5 ({hs}): long-range dependence"
        if not above:
            return f"stationary, and no estimator puts H clearly above 0.5 ({hs}): no sign of long-range dependence"
        return (f"stationary; {len(above)} of {len(self.hurst)} estimators put H clearly above 0.5 ({hs}): "
                "the evidence for long-range dependence is mixed")

    def as_json(self) -> dict:
        return {"n": self.n, "step_s": self.step_s, "summary": self.summary.as_json(), "acf": self.acf.as_json(),
                "spectrum": self.spectrum.as_json(), "stationarity": self.stationarity.as_json(),
                "hurst": [e.as_json() for e in self.hurst], "interpretation": self.interpretation}


def analyse(x: np.ndarray, step_s: float, *, progress: Progress | None = None,
            nlags: int | None = None) -> Report:
    x = np.asarray(x, np.float64)
    n = len(x)
    if x.ndim != 1:
        raise ValueError("the series must be 1-D")
    if n < MIN_SAMPLES:
        raise ValueError(f"{n} samples are too few: the Hurst estimators need at least {MIN_SAMPLES} "
                         "gap-free samples (choose a longer window or a finer step)")
    if n > MAX_SAMPLES:
        raise ValueError(f"{n} samples exceed the budget of {MAX_SAMPLES}: choose a coarser step")
    if not np.isfinite(x).all():
        raise ValueError("the series must not hold NaN or inf (see numerics.gaps)")
    if np.var(x) == 0:
        raise ValueError("the series is constant: it has no statistics to show")

    def step(fraction: float, what: str) -> None:
        if progress is not None:
            progress(fraction, what)

    step(0.0, "summary")
    s = summary.summarize(x)
    step(0.05, "autocorrelation")
    a = correlation.acf(x, min(n // 4, MAX_ACF_LAGS) if nlags is None else nlags)
    step(0.1, "spectrum")
    spec = spectrum.spectrum(x, step_s)
    step(0.2, "stationarity")
    st = stationarity.check(x, step_s, spec)
    # The two bootstrapped estimators take most of the time.
    estimates = []
    for fraction, what, fn in ((0.25, "aggregated variance", hurst.aggregated_variance),
                               (0.55, "rescaled range", hurst.rescaled_range),
                               (0.9, "wavelet estimator", hurst.abry_veitch),
                               (0.95, "local Whittle", hurst.local_whittle)):
        step(fraction, what)
        estimates.append(fn(x))
    step(1.0, "done")
    return Report(n, float(step_s), s, a, spec, st, estimates)
