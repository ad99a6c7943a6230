"""Series whose statistics are known exactly: the truth the estimators are tested against. Pure.

Fractional Gaussian noise (fGn) with Hurst parameter H in (0, 1) and variance sigma^2 is the
stationary Gaussian series with autocovariance

    gamma(k) = sigma^2 / 2 * (|k + 1|^2H - 2 |k|^2H + |k - 1|^2H)

H = 0.5 is white noise; 0.5 < H < 1 is long-range dependent (gamma(k) ~ H(2H-1) k^(2H-2), not
summable). Its block means of m samples have variance sigma^2 m^(2H-2) exactly, for every m.

`fgn` draws it by the Davies-Harte method (circulant embedding): embed the n x n Toeplitz
covariance in the 2n x 2n circulant with first row c = (gamma(0..n), gamma(n-1..1)); the
circulant's eigenvalues are the FFT of c, which are >= 0 for fGn at every H (Craigmile 2003), so
a complex Gaussian vector scaled by their square roots and transformed back has exactly that
covariance; its real part's first n entries are an exact fGn sample. Written here (numpy FFT)
because neither numpy, scipy nor statsmodels ships an fGn generator.
"""
from __future__ import annotations

import numpy as np


def fgn_autocovariance(h: float, k: np.ndarray | int, sigma: float = 1.0) -> np.ndarray:
    k = np.abs(np.asarray(k, np.float64))
    return sigma ** 2 / 2 * (np.abs(k + 1) ** (2 * h) - 2 * k ** (2 * h) + np.abs(k - 1) ** (2 * h))


def fgn(n: int, h: float, seed: int | np.random.Generator | None = None, sigma: float = 1.0) -> np.ndarray:
    """n samples of fGn with Hurst parameter h and standard deviation sigma (exact, Davies-Harte)."""
    if not 0 < h < 1:
        raise ValueError(f"the Hurst parameter must be within (0, 1), not {h}")
    if n < 1:
        raise ValueError(f"n must be >= 1, not {n}")
    rng = np.random.default_rng(seed)
    gamma = fgn_autocovariance(h, np.arange(n + 1))
    row = np.concatenate([gamma, gamma[-2:0:-1]])           # length 2n: the circulant's first row
    eig = np.fft.fft(row).real
    # Rounding makes eigenvalues that are 0 in exact arithmetic come out at -1e-16.
    if eig.min() < -1e-8 * eig.max():
        raise ArithmeticError(f"circulant embedding failed for h={h}, n={n} (negative eigenvalue)")
    m = len(row)
    z = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    # Cov(Re(F diag(sqrt(eig/m)) z)) is the circulant itself (the pseudo-covariance of z is 0).
    y = np.fft.fft(np.sqrt(np.clip(eig, 0, None) / m) * z)
    return sigma * y.real[:n]


def ar1(n: int, phi: float, seed: int | np.random.Generator | None = None, sigma: float = 1.0) -> np.ndarray:
    """Stationary AR(1): x[t] = phi x[t-1] + e[t], e ~ N(0, sigma^2); started from the stationary
    law, so its autocorrelation is phi^k from the first sample."""
    if not -1 < phi < 1:
        raise ValueError(f"phi must be within (-1, 1) for a stationary AR(1), not {phi}")
    from scipy.signal import lfilter

    rng = np.random.default_rng(seed)
    e = sigma * rng.standard_normal(n)
    e[0] /= np.sqrt(1 - phi ** 2)
    return np.asarray(lfilter([1.0], [1.0, -phi], e), np.float64)


def sinusoid(n: int, period: float, amplitude: float = 1.0, phase: float = 0.0) -> np.ndarray:
    """amplitude * sin(2 pi t / period + phase), t = 0..n-1 samples."""
    return amplitude * np.sin(2 * np.pi * np.arange(n) / period + phase)
