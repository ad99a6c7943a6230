"""numerics/synthetic.py: the generators are the known truth of the other tests, so they are
tested first: the fGn sample autocovariance against the exact formula, AR(1) against phi^k."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.synthetic import ar1, fgn, fgn_autocovariance, sinusoid


@pytest.mark.parametrize("h", [0.3, 0.5, 0.7, 0.9])
def test_fgn_autocovariance_matches_the_formula(h):
    # 400 series of 512: the mean of their sample autocovariances (about the known mean 0)
    # converges to 0.5(|k+1|^2H - 2|k|^2H + |k-1|^2H); s.e. of each mean < 0.01 here.
    n, reps, lags = 512, 400, np.arange(6)
    rng = np.random.default_rng(7)
    x = np.stack([fgn(n, h, rng) for _ in range(reps)])
    got = np.array([(x[:, :n - k] * x[:, k:]).mean() for k in lags])
    np.testing.assert_allclose(got, fgn_autocovariance(h, lags), atol=0.03)


def test_fgn_block_means_scale_as_m_to_the_2h_minus_2():
    h, n, m = 0.8, 2 ** 12, 64
    rng = np.random.default_rng(3)
    means = np.concatenate([fgn(n, h, rng).reshape(-1, m).mean(axis=1) for _ in range(100)])
    # Known mean 0, so no centring: E[mean^2] = m^(2H-2) exactly.
    assert np.mean(means ** 2) == pytest.approx(m ** (2 * h - 2), rel=0.1)


def test_fgn_is_reproducible_and_scaled():
    a, b = fgn(1000, 0.7, seed=5, sigma=3.0), fgn(1000, 0.7, seed=5, sigma=3.0)
    np.testing.assert_array_equal(a, b)
    assert np.std(fgn(2 ** 14, 0.5, seed=1, sigma=3.0)) == pytest.approx(3.0, rel=0.03)


@pytest.mark.parametrize("h", [0.0, 1.0, -0.1])
def test_fgn_rejects_h_outside_0_1(h):
    with pytest.raises(ValueError):
        fgn(10, h)


@pytest.mark.parametrize("phi", [-0.5, 0.3, 0.8])
def test_ar1_autocorrelation_is_phi_to_the_k(phi):
    x = ar1(200_000, phi, seed=2)
    x = x - x.mean()
    r = [np.dot(x[:-k], x[k:]) / np.dot(x, x) for k in (1, 2, 3)]
    np.testing.assert_allclose(r, [phi, phi ** 2, phi ** 3], atol=0.01)
    assert np.var(x) == pytest.approx(1 / (1 - phi ** 2), rel=0.03)


def test_sinusoid():
    s = sinusoid(8, period=4, amplitude=2.0)
    np.testing.assert_allclose(s, [0, 2, 0, -2, 0, 2, 0, -2], atol=1e-12)
