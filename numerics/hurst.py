"""Four estimators of the Hurst parameter H of a stationary series. Pure (numpy, scipy, pywt).

H describes how the variability of a series shrinks under aggregation: block means of m samples
have variance ~ m^(2H-2). H = 0.5 for short-range dependence (i.i.d., AR(p), ...: the variance of
a mean falls as 1/m); 0.5 < H < 1 is long-range dependence, the self-similar burstiness of
Leland et al. (1994) in LAN traffic. Each estimator assumes stationarity: a trend or a periodic
component also makes them report H > 0.5 (numerics.stationarity says when that is the case).

The estimators, each in its own function (definitions in their docstrings):
  aggregated_variance  variance-time plot, fitted with the exact expected value under fGn (bias-free)
  rescaled_range       R/S with the Anis-Lloyd/Peters expected value of i.i.d. noise subtracted
  abry_veitch          wavelet log-scale diagram, Daubechies-3 (analysis.hurst_wavelet)
  local_whittle        Robinson's (1995) Gaussian semiparametric estimator (analysis.hurst_wavelet)

Their regressions are textbook formulas written out with numpy: no maintained Python library
implements them with the bias corrections and the confidence intervals stated here (nolds and
hurst do plain R/S without either). Each is tested against fGn of known H (numerics.synthetic),
and its measured bias and spread are in docs/analysis.md ("Hurst estimators: measured accuracy").

The two regression estimators' 95 % intervals come from a parametric bootstrap: B fGn series of
the same n at the estimated H (fixed seed, so the result is reproducible) are estimated the same
way, and the interval is H +- 1.96 x their standard deviation. The points of a variance-time or
R/S plot are strongly correlated, so the least-squares standard error of the slope would be far
too narrow; the bootstrap's is right for fGn (for other series it is the fGn-model interval).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import digamma, gammaln

from numerics.jsonable import plain

BOOTSTRAP = 40                  # fGn replicates behind the regression estimators' intervals
BOOTSTRAP_SEED = 12


@dataclass(frozen=True)
class HurstEstimate:
    method: str
    h: float
    ci_low: float
    ci_high: float
    n: int                      # samples used
    fit_range: tuple[float, float]
    fit_unit: str
    plot: dict                  # x, y (every scale computed), fitted (mask), fit_x, fit_y, titles, scales
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return plain(self)


def _check(x: np.ndarray, least: int) -> np.ndarray:
    x = np.asarray(x, np.float64)
    if x.ndim != 1 or len(x) < least:
        raise ValueError(f"this estimator needs a 1-D series of at least {least} samples, not {len(x)}")
    if not np.isfinite(x).all():
        raise ValueError("the series must not hold NaN or inf (see numerics.gaps)")
    if np.var(x) == 0:
        raise ValueError("H of a constant series is undefined")
    return x


def _log_scales(lo: int, hi: int, count: int) -> np.ndarray:
    return np.unique(np.rint(np.geomspace(lo, hi, count)).astype(np.int64))


def _bootstrap_ci(h: float, n: int, point: Callable[[np.ndarray], float], replicates: int) -> tuple[float, float]:
    from numerics.synthetic import fgn

    if replicates < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    hb = np.clip(h, 0.01, 0.99)
    sd = float(np.std([point(fgn(n, hb, rng)) for _ in range(replicates)], ddof=1))
    return h - 1.96 * sd, h + 1.96 * sd


# -- aggregated variance ------------------------------------------------------------------------

def _block_variances(x: np.ndarray, ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out = np.empty(len(ms))
    blocks = np.empty(len(ms), np.int64)
    for i, m in enumerate(ms):
        k = len(x) // m
        out[i] = x[:k * m].reshape(k, m).mean(axis=1).var(ddof=1)
        blocks[i] = k
    return out, blocks


def _av_model(h: float, m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log E[s^2_m] - log sigma^2 for fGn (see aggregated_variance), plus E[log] of chi-square."""
    a = 2 * h - 2
    centring = np.log((1 - k.astype(np.float64) ** a) / (1 - 1 / k))
    nu = k - 1
    return a * np.log(m) + centring + digamma(nu / 2) - np.log(nu / 2)


def _av_fit(logv: np.ndarray, m: np.ndarray, k: np.ndarray) -> tuple[float, float]:
    w = (k - 1) / 2.0                                   # 1 / Var(log s^2) for chi-square(k-1)

    def cost(h: float) -> float:
        r = logv - _av_model(h, m, k)
        return float((w * (r - np.average(r, weights=w)) ** 2).sum())

    h = float(minimize_scalar(cost, bounds=(0.01, 0.99), method="bounded", options={"xatol": 1e-5}).x)
    r = logv - _av_model(h, m, k)
    return h, float(np.average(r, weights=w))


AV_MIN_M, AV_MIN_BLOCKS = 2, 32


def aggregated_variance(x: np.ndarray, *, bootstrap: int = BOOTSTRAP) -> HurstEstimate:
    """Variance-time plot: s^2_m, the sample variance (ddof 1) of the k = n // m block means of m
    samples, against m, log-log, at about 30 log-spaced m from 1 to n/4.

    For fGn the block means have variance sigma^2 m^(2H-2) exactly, but s^2_m measures them about
    the sample mean, which is itself one of them at scale n: E[sum (Y_i - Ybar)^2] = k Var(Y) -
    k Var(Ybar), so
        E[s^2_m] = sigma^2 m^(2H-2) (1 - k^(2H-2)) / (1 - 1/k),   k = n / m  (exact for fGn).
    The naive slope of log s^2_m ignores the factor (1 - k^(2H-2)), which falls towards 0 as m
    grows when H is near 1, and so reports H too low (0.85 for H = 0.9, 0.69 for 0.7 at n = 2^14,
    mean of 20 seeds, over the same m). Here H and
    sigma^2 are fitted to that expected value (weighted least squares in log, weights (k-1)/2 =
    1/Var(log s^2) for independent block means, with E[log chi^2_nu / nu] = psi(nu/2) - log(nu/2)
    added, nu = k - 1) over m in [2, n/32] (at least 32 blocks; m = 1 left out because short-range
    correlation in real traffic bends the plot there). Interval: parametric bootstrap."""
    x = _check(x, 256)
    n = len(x)
    ms = _log_scales(1, n // 4, 30)
    v, k = _block_variances(x, ms)
    fitted = (ms >= AV_MIN_M) & (k >= AV_MIN_BLOCKS)

    def point(series: np.ndarray) -> float:
        vv, _ = _block_variances(series, ms[fitted])
        return _av_fit(np.log(vv), ms[fitted], k[fitted])[0]

    h, log_s2 = _av_fit(np.log(v[fitted]), ms[fitted], k[fitted])
    lo, hi = _bootstrap_ci(h, n, point, bootstrap)
    fit_y = np.exp(log_s2 + (2 * h - 2) * np.log(ms[fitted]))
    return HurstEstimate(
        "aggregated variance", h, lo, hi, n, (float(ms[fitted][0]), float(ms[fitted][-1])), "block size (samples)",
        {"x": ms, "y": v, "fitted": fitted, "fit_x": ms[fitted], "fit_y": fit_y, "x_scale": "log", "y_scale": "log",
         "x_title": "block size m (samples)", "y_title": "variance of block means",
         "fit_label": f"sigma^2 m^(2H-2), H = {h:.3f} (the line without the centring factor)"},
        [f"fitted to E[s^2_m] = sigma^2 m^(2H-2) (1 - k^(2H-2)) / (1 - 1/k) over m in [{ms[fitted][0]}, "
         f"{ms[fitted][-1]}]"
         " (the factor corrects for block means centred on the sample mean)",
         f"95 % interval from a parametric bootstrap ({bootstrap} fGn series at the estimated H)"])


# -- rescaled range -----------------------------------------------------------------------------

def expected_rs(s: np.ndarray) -> np.ndarray:
    """E[R/S] of s i.i.d. Gaussian samples, Anis and Lloyd (1976) with Peters' (1994) factor
    (s - 1/2)/s: ((s - 1/2)/s) Gamma((s-1)/2) / (sqrt(pi) Gamma(s/2)) sum_{i<s} sqrt((s-i)/i).
    The Gamma ratio through gammaln, so it needs no large-s approximation. Against simulation the
    formula is 3 % low at s = 16, 1 % low at 64, within 1 % from 256 on (tests/numerics/test_hurst.py)."""
    s = np.asarray(s, np.int64)
    out = np.empty(len(s))
    for j, sj in enumerate(s):
        i = np.arange(1, sj)
        ratio = np.exp(gammaln((sj - 1) / 2) - gammaln(sj / 2)) / np.sqrt(np.pi)
        out[j] = (sj - 0.5) / sj * ratio * np.sqrt((sj - i) / i).sum()
    return out


def _rs(x: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    out = np.empty(len(sizes))
    for i, s in enumerate(sizes):
        k = len(x) // s
        b = x[:k * s].reshape(k, s)
        dev = np.cumsum(b - b.mean(axis=1, keepdims=True), axis=1)
        r = np.maximum(dev.max(axis=1), 0) - np.minimum(dev.min(axis=1), 0)
        sd = b.std(axis=1)
        ok = sd > 0
        out[i] = (r[ok] / sd[ok]).mean() if ok.any() else np.nan
    return out


RS_MIN_SIZE, RS_MIN_BLOCKS = 64, 4


def _rs_fit(rs: np.ndarray, sizes: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    y = np.log(rs) - np.log(expected) + 0.5 * np.log(sizes)
    slope, icpt = np.polyfit(np.log(sizes), y, 1)
    return float(slope), float(icpt)


def rescaled_range(x: np.ndarray, *, bootstrap: int = BOOTSTRAP) -> HurstEstimate:
    """R/S: in each of the k = n // s non-overlapping blocks of s samples, R = the range of the
    cumulative sum of deviations from the block's mean (including its 0 at both ends), S = the
    block's standard deviation (ddof 0); (R/S)_s is the average of R/S over the blocks, at about
    30 log-spaced s from 8 to n/4. For i.i.d. noise (R/S)_s is not s^0.5 at small s; so the fit is
    of  log (R/S)_s - log E[R/S]_s + 0.5 log s  against log s (Anis-Lloyd/Peters correction:
    slope 0.5 for i.i.d. noise at every s), ordinary least squares over s in [64, n/4] (at least 4
    blocks; from n/64 when n < 4096). Small blocks are left out because R/S of long-range dependent
    series approaches its s^H slope only slowly: even so, this estimator reads H too low for H near
    1 (measured: docs/analysis.md). Interval: parametric bootstrap."""
    x = _check(x, 256)
    n = len(x)
    sizes = _log_scales(8, n // 4, 30)
    rs = _rs(x, sizes)
    expected = expected_rs(sizes)
    # Short series: the least block size shrinks so that the fit keeps a decade of s.
    fitted = (sizes >= min(RS_MIN_SIZE, max(8, n // 64))) & (n // sizes >= RS_MIN_BLOCKS)
    fs, fe = sizes[fitted], expected[fitted]
    h, icpt = _rs_fit(rs[fitted], fs, fe)
    lo, hi = _bootstrap_ci(h, n, lambda s: _rs_fit(_rs(s, fs), fs, fe)[0], bootstrap)
    # Shown as R/S itself against s; the fitted line mapped back: log R/S = icpt + h log s + log E - 0.5 log s.
    fit_y = np.exp(icpt + h * np.log(fs) + np.log(fe) - 0.5 * np.log(fs))
    return HurstEstimate(
        "rescaled range (R/S)", h, lo, hi, n, (float(fs[0]), float(fs[-1])), "block size (samples)",
        {"x": sizes, "y": rs, "fitted": fitted, "fit_x": fs, "fit_y": fit_y, "expected_iid": expected,
         "x_scale": "log", "y_scale": "log", "x_title": "block size s (samples)", "y_title": "mean R/S",
         "fit_label": f"fit with the Anis-Lloyd/Peters i.i.d. curve removed, H = {h:.3f}"},
        [f"slope of log R/S - log E[R/S]_iid + 0.5 log s over s in [{fs[0]}, {fs[-1]}] "
         "(Anis-Lloyd/Peters correction)",
         f"95 % interval from a parametric bootstrap ({bootstrap} fGn series at the estimated H)"])


# -- wavelets (Abry-Veitch) ---------------------------------------------------------------------

WAVELET = "db3"                 # Daubechies, 3 vanishing moments: blind to polynomial trends of degree <= 2
AV_J1, AV_MIN_COEFFS = 3, 16


def wavelet_details(x: np.ndarray, wavelet: str = WAVELET) -> list[np.ndarray]:
    """Detail coefficients d_j, j = 1, 2, ... of the discrete wavelet transform of x (x itself
    taken as the approximation at octave 0), by Mallat's pyramid with pywt's filters. Written as
    'valid' convolutions instead of pywt.wavedec because every pywt extension mode (periodic,
    symmetric, zero) invents coefficients at the edges, which at coarse octaves are a good part of
    all of them; here only coefficients whose support lies inside the series are kept, as Abry
    and Veitch do."""
    import pywt

    w = pywt.Wavelet(wavelet)
    lo, hi = np.asarray(w.dec_lo), np.asarray(w.dec_hi)
    a, out = x, []
    while len(a) >= 2 * len(lo):
        out.append(np.convolve(a, hi, "valid")[::2])
        a = np.convolve(a, lo, "valid")[::2]
    return out


def _wls(j: np.ndarray, y: np.ndarray, var: np.ndarray) -> tuple[float, float, float]:
    """Weighted least squares of y on j with known variances: slope, intercept, Var(slope)."""
    s0, s1, s2 = (1 / var).sum(), (j / var).sum(), (j * j / var).sum()
    det = s0 * s2 - s1 * s1
    slope = ((s0 * j - s1) / var / det * y).sum()
    intercept = ((s2 - s1 * j) / var / det * y).sum()
    return float(slope), float(intercept), float(s0 / det)


def abry_veitch(x: np.ndarray) -> HurstEstimate:
    """Logscale diagram (Abry and Veitch 1998): with d_j the n_j detail coefficients at octave j
    (Daubechies-3 wavelet, no boundary coefficients), mu_j = mean d_j^2 and
        y_j = log2 mu_j - g(n_j),   g(n) = psi(n/2) / ln 2 - log2(n/2)
    (g removes the bias of log2 of a mean of n squared Gaussians), whose variance is
    var_j = zeta(2, n_j/2) / ln^2 2. For fGn E[d_j^2] ~ 2^(j(2H-1)), so H = (slope + 1)/2 of the
    weighted regression (weights 1/var_j) over octaves j1 = 3 to the last with n_j >= 16. The
    finest octaves are left out because they see the discrete series' high-frequency end, where
    the spectrum of fGn departs from the power law (and SNMP averaging smooths real traffic). The
    interval is the regression's: Var(slope) = S0 / (S0 S2 - S1^2), S_i = sum j^i / var_j, which
    treats the y_j as independent (nearly so for fGn with 3 vanishing moments)."""
    from scipy.special import polygamma

    x = _check(x, 256)
    d = wavelet_details(x)
    nj = np.array([len(c) for c in d])
    j = np.arange(1, len(d) + 1, dtype=np.float64)
    mu = np.array([np.mean(c * c) for c in d])
    g = digamma(nj / 2) / np.log(2) - np.log2(nj / 2)
    y = np.log2(mu) - g
    var = polygamma(1, nj / 2) / np.log(2) ** 2
    j2 = int(j[nj >= AV_MIN_COEFFS].max())
    j1 = min(AV_J1, j2 - 2)                             # three octaves at least, even for short series
    fitted = (j >= j1) & (j <= j2)
    slope, icpt, var_slope = _wls(j[fitted], y[fitted], var[fitted])
    h = (slope + 1) / 2
    half = float(1.96 * np.sqrt(var_slope) / 2)
    return HurstEstimate(
        f"wavelet (Abry-Veitch, {WAVELET})", h, h - half, h + half, len(x), (j1, j2), "octave j",
        {"x": j, "y": y, "y_err": 1.96 * np.sqrt(var), "n_j": nj, "fitted": fitted, "fit_x": j[fitted],
         "fit_y": icpt + slope * j[fitted], "x_scale": "linear", "y_scale": "linear",
         "x_title": "octave j (scale 2^j samples)", "y_title": "log2 mean d_j^2 - g(n_j)",
         "fit_label": f"weighted fit, slope 2H-1 = {slope:.3f}"},
        [f"Daubechies wavelet with 3 vanishing moments ({WAVELET}); coefficients touching the series' ends dropped",
         f"weighted regression over octaves {j1}..{j2} (n_j >= {AV_MIN_COEFFS}); 95 % interval from the "
         "Abry-Veitch variances, which treat octaves as independent"])


# -- local Whittle ------------------------------------------------------------------------------

LW_EXPONENT = 0.65


def local_whittle(x: np.ndarray, m: int | None = None) -> HurstEstimate:
    """Robinson's (1995) Gaussian semiparametric estimator: with the periodogram
    I_j = |sum_t x_t e^(-i lambda_j t)|^2 / (2 pi n) at lambda_j = 2 pi j / n, j = 1..m, d = H - 1/2
    minimises
        R(d) = log( (1/m) sum_j lambda_j^(2d) I_j ) - 2d (1/m) sum_j log lambda_j
    (scipy's bounded scalar minimiser over d in (-0.5, 0.5)), which assumes only f(lambda) ~
    G lambda^(-2d) near 0. m = floor(n^0.65) by default: more frequencies lower the variance and
    raise the bias from the spectrum's shape away from 0. 95 % interval from the asymptotic
    standard error 1 / (2 sqrt(m)) (Robinson 1995, Theorem 2)."""
    x = _check(x, 256)
    n = len(x)
    m = int(np.floor(n ** LW_EXPONENT)) if m is None else int(m)
    if not 3 <= m <= n // 2:
        raise ValueError(f"m must be within 3..n/2 = {n // 2}, not {m}")
    j = np.arange(1, n // 2 + 1)
    lam = 2 * np.pi * j / n
    periodogram = np.abs(np.fft.rfft(x - x.mean())[1:n // 2 + 1]) ** 2 / (2 * np.pi * n)
    lam_m, i_m = lam[:m], periodogram[:m]
    mean_log = np.log(lam_m).mean()
    scale = i_m.mean()                                  # keeps the sums far from over/underflow

    def r(d: float) -> float:
        return float(np.log(np.mean(lam_m ** (2 * d) * i_m / scale)) - 2 * d * mean_log)

    d = float(minimize_scalar(r, bounds=(-0.4999, 0.4999), method="bounded", options={"xatol": 1e-6}).x)
    h = d + 0.5
    se = float(1 / (2 * np.sqrt(m)))
    shown = min(len(j), 4 * m)                          # the fitted band and what lies past it
    g_hat = np.mean(lam_m ** (2 * d) * i_m)
    return HurstEstimate(
        "local Whittle", h, h - 1.96 * se, h + 1.96 * se, n, (1, m), "frequencies m (j = 1..m)",
        {"x": j[:shown] / n, "y": periodogram[:shown], "fitted": j[:shown] <= m, "fit_x": j[:m] / n,
         "fit_y": g_hat * lam_m ** (-2 * d), "x_scale": "log", "y_scale": "log",
         "x_title": "frequency (cycles per sample)", "y_title": "periodogram",
         "fit_label": f"G lambda^(1-2H), H = {h:.3f}"},
        [f"m = floor(n^{LW_EXPONENT}) = {m} lowest Fourier frequencies" if m == int(np.floor(n ** LW_EXPONENT))
         else f"m = {m} lowest Fourier frequencies",
         "95 % interval from the asymptotic standard error 1/(2 sqrt(m)) (Robinson 1995)"])


def estimate_all(x: np.ndarray, *, bootstrap: int = BOOTSTRAP) -> list[HurstEstimate]:
    """The four estimators on one series, in the order of the module docstring."""
    return [aggregated_variance(x, bootstrap=bootstrap), rescaled_range(x, bootstrap=bootstrap),
            abry_veitch(x), local_whittle(x)]
