"""numerics/correlation.py: AR(1) ACF = phi^k, aggregation sums, cross-correlation of shifted series."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.correlation import acf, aggregate, cross_correlation
from numerics.synthetic import ar1, fgn


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_ar1_acf_is_phi_to_the_k(phi):
    a = acf(ar1(50_000, phi, seed=11), nlags=10)
    np.testing.assert_allclose(a.values, phi ** np.arange(11), atol=0.03)
    assert a.band_white == pytest.approx(1.96 / np.sqrt(50_000))
    # Bartlett at lag 1 is the white band; it widens with the correlation before the lag.
    assert a.band_bartlett[1] == pytest.approx(a.band_white, rel=1e-4)    # 1.96 vs 1.95996
    assert a.band_bartlett[0] == 0 and np.all(np.diff(a.band_bartlett[1:]) >= 0)


def test_acf_lags_are_capped_at_a_quarter():
    a = acf(fgn(400, 0.5, seed=1), nlags=500)
    assert a.lags[-1] == 100 and "capped" in a.notes[0]


def test_aggregate_sums_exactly():
    t = np.array([0.0, 10.0, 59.0, 60.0, 61.0, 185.0])
    v = np.array([1.0, 2.0, 3.0, 4.0, np.nan, 6.0])
    starts, sums, counts = aggregate(t, v, 60.0)
    np.testing.assert_array_equal(starts, [0.0, 60.0, 120.0, 180.0])
    np.testing.assert_array_equal(sums, [6.0, 4.0, 0.0, 6.0])
    np.testing.assert_array_equal(counts, [3, 1, 0, 1])


def test_aggregate_origin_aligns_bins():
    starts, sums, _ = aggregate(np.array([5.0, 14.0, 16.0]), np.array([1.0, 1.0, 1.0]), 10.0, origin=5.0)
    np.testing.assert_array_equal(starts, [5.0, 15.0])
    np.testing.assert_array_equal(sums, [2.0, 1.0])


def test_identical_series_correlate_at_lag_zero():
    x = fgn(2000, 0.7, seed=4)
    xc = cross_correlation(x, x, 5)
    assert xc.r_at_zero == pytest.approx(1.0) and xc.best_lag == 0 and xc.n_pairs[5] == 2000


@pytest.mark.parametrize("shift", [3, -7])
def test_cross_correlation_finds_a_known_shift(shift):
    base = fgn(3000, 0.5, seed=9)
    x = base[20:2020]
    y = base[20 - shift:2020 - shift] + 0.3 * fgn(2000, 0.5, seed=10)     # y[t + shift] = x[t] + noise
    xc = cross_correlation(x, y, 10)
    assert xc.best_lag == shift and xc.best_r > 0.9
    assert "y follows x" in xc.meaning


def test_cross_correlation_skips_missing_pairs_and_reports_too_few():
    x = np.array([1.0, 2.0, np.nan, 4.0, 5.0])
    y = np.array([2.0, 4.0, 6.0, np.nan, 10.0])
    xc = cross_correlation(x, y, 4)
    assert xc.r_at_zero == pytest.approx(1.0) and xc.n_pairs[4] == 3
    assert xc.r[0] is None and xc.n_pairs[0] == 1                           # lag -4: one pair
    assert xc.as_json()["r"][0] is None
