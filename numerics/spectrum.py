"""Power spectrum of a rate series, and the periodic components in it. Pure (numpy, scipy).

Two estimates (both one-sided densities, units^2 / Hz, the mean removed):
  periodogram  scipy.signal.periodogram (boxcar window, detrend='constant') at the Fourier
               frequencies j / (n step), j = 1..n/2 (frequency 0 dropped: it is the removed mean).
               Full resolution, but each ordinate scatters as the spectrum x Exp(1).
  smoothed     scipy.signal.welch: Hann segments of 2^floor(log2(n/8)) samples overlapping by half
               (about 15 averaged), on its own, coarser frequency grid.

Periodic components ("lines"). Test: for each Fourier frequency j with K = 8 neighbours on each
side, the ratio
        R_j = I_j / median(I_{j-K}, ..., I_{j-1}, I_{j+1}, ..., I_{j+K}).
Under a smooth spectrum (no line) the ordinates are f(lambda) x independent Exp(1), f about
constant over the 17 frequencies, so R_j = E / (the mean of the 8th and 9th of 16 Exp(1)) and by
Renyi's representation of exponential order statistics, exactly,
        P(R_j > t) = prod_{i=1..8} (17 - i) / (17 - i + t) x 16 / (16 + t).
A line is an ordinate whose p-value times the number of frequencies tested (Bonferroni) is below
0.001: a smooth spectrum shows a false line anywhere with probability < 0.1 %. Unlike Fisher's g
test (largest ordinate against their sum), a local median is not fooled by the smooth rise
f ~ lambda^(1-2H) of long-range dependence. Frequencies within K of either end are not tested
(no symmetric neighbourhood), so a period must repeat at least K + 1 = 9 times in the series to
be found. Adjacent ordinates above the threshold are one line (leakage of a frequency between
two Fourier frequencies), reported at the largest. A line at about h times a lower line's
frequency (h >= 2, within the frequency resolution) is reported as its harmonic, once.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from numerics.jsonable import plain

NEIGHBOURS = 8
ALPHA = 0.001                   # family-wise false alarm probability of the line test


@dataclass(frozen=True)
class Peak:
    frequency_hz: float
    period_s: float
    ratio: float                # R_j of the module docstring
    p_value: float              # Bonferroni-adjusted: P(any R_j this large | smooth spectrum) <=
    harmonics: list[float] = field(default_factory=list)    # frequencies (Hz) of its harmonics


@dataclass(frozen=True)
class Spectrum:
    step_s: float
    n: int
    frequencies: np.ndarray     # Hz, j / (n step), j = 1..n/2
    periodogram: np.ndarray
    smoothed_frequencies: np.ndarray
    smoothed: np.ndarray
    smoothing: str
    peaks: list[Peak]
    test: str
    threshold_ratio: float      # R_j above which an ordinate is a line
    n_tested: int

    @property
    def resolution_hz(self) -> float:
        return 1 / (self.n * self.step_s)

    def as_json(self) -> dict:
        return plain(self)


def line_p_value(t: float | np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """P(R > t) for one ordinate of a smooth spectrum (see the module docstring)."""
    t = np.asarray(t, np.float64)
    n2 = 2 * k
    i = np.arange(1, k + 1)
    logp = np.log((n2 - i + 1) / (n2 - i + 1 + t[..., None])).sum(axis=-1) + np.log(n2 / (n2 + t))
    return np.exp(logp)


def line_threshold(n_tested: int, alpha: float = ALPHA, k: int = NEIGHBOURS) -> float:
    return float(brentq(lambda t: n_tested * line_p_value(t, k) - alpha, 1e-6, 1e12))


def _neighbour_median(p: np.ndarray, k: int) -> np.ndarray:
    """Median of the k ordinates on each side of j, for j = k .. len(p) - k - 1."""
    from numpy.lib.stride_tricks import sliding_window_view

    windows = sliding_window_view(p, 2 * k + 1)
    return np.median(np.delete(windows, k, axis=1), axis=1)


def spectrum(x: np.ndarray, step_s: float) -> Spectrum:
    from scipy.signal import periodogram, welch

    x = np.asarray(x, np.float64)
    n = len(x)
    if x.ndim != 1 or n < 4 * NEIGHBOURS:
        raise ValueError(f"the spectrum needs a 1-D series of at least {4 * NEIGHBOURS} samples")
    if not np.isfinite(x).all():
        raise ValueError("the series must not hold NaN or inf (see numerics.gaps)")
    if not step_s > 0:
        raise ValueError(f"step_s must be > 0, not {step_s}")
    fs = 1 / step_s
    f, pxx = periodogram(x, fs=fs, window="boxcar", detrend="constant", scaling="density")
    f, pxx = f[1:], pxx[1:]
    nperseg = int(min(n, max(16, 2 ** int(np.floor(np.log2(n / 8))))))
    sf, spxx = welch(x, fs=fs, window="hann", nperseg=nperseg, detrend="constant", scaling="density")
    k = NEIGHBOURS
    n_tested = len(f) - 2 * k
    peaks: list[Peak] = []
    threshold = float("nan")
    if n_tested > 0:
        threshold = line_threshold(n_tested)
        median = _neighbour_median(pxx, k)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(median > 0, pxx[k:len(f) - k] / median, 0.0)
        peaks = _lines(f[k:len(f) - k], ratio, threshold, n_tested, 1 / (n * step_s))
    return Spectrum(step_s, n, f, pxx, sf, spxx,
                    f"Welch: Hann segments of {nperseg} samples, 50 % overlap", peaks,
                    f"ordinate / median of its {k} neighbours on each side; line when the Bonferroni-adjusted "
                    f"p-value over {n_tested} frequencies is < {ALPHA:g} (ratio > {threshold:.1f})",
                    threshold, max(n_tested, 0))


def _lines(f: np.ndarray, ratio: np.ndarray, threshold: float, n_tested: int, df: float) -> list[Peak]:
    above = ratio > threshold
    edges = np.diff(np.concatenate([[0], above.astype(np.int8), [0]]))
    found: list[Peak] = []
    for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        j = s + int(np.argmax(ratio[s:e]))
        p = min(1.0, float(n_tested * line_p_value(ratio[j])))
        found.append(Peak(float(f[j]), float(1 / f[j]), float(ratio[j]), p))
    fundamentals: list[Peak] = []
    for peak in found:                                  # ascending frequency
        for base in fundamentals:
            h = round(peak.frequency_hz / base.frequency_hz)
            # The fundamental's frequency is known to +-df/2, so its h-th multiple to +-h df/2.
            if h >= 2 and abs(peak.frequency_hz - h * base.frequency_hz) <= (h + 1) * df / 2:
                base.harmonics.append(peak.frequency_hz)
                break
        else:
            fundamentals.append(peak)
    return fundamentals
