"""numerics/stationarity.py: a trend and a periodic component are flagged, fGn (even H = 0.9) is not."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.spectrum import spectrum
from numerics.stationarity import check
from numerics.synthetic import fgn, sinusoid

N, STEP = 2 ** 14, 60.0


def verdict(x):
    return check(x, STEP, spectrum(x, STEP))


@pytest.mark.parametrize("h,seed", [(0.9, s) for s in (21, 22, 23, 24, 25)] + [(0.5, 1), (0.7, 2)])
def test_fgn_is_stationary(h, seed):
    st = verdict(fgn(N, h, seed))
    assert st.stationary and st.reasons == [] and "describe" in st.verdict


@pytest.mark.parametrize("h", [0.5, 0.7])
def test_linear_trend_is_flagged(h):
    x = fgn(N, h, 5) + 3 * np.linspace(0, 1, N)          # rises by 3 noise standard deviations
    st = verdict(x)
    assert not st.stationary and st.trend_r2 > 0.15
    assert st.trend_slope_per_s == pytest.approx(3 / ((N - 1) * STEP), rel=0.1)
    assert st.verdict.startswith("not stationary: a trend") and "not evidence of long-range dependence" in st.verdict


def test_periodic_component_is_flagged():
    x = fgn(N, 0.7, 6) + sinusoid(N, 144.0, 1.0)
    st = verdict(x)
    assert not st.stationary and len(st.periods) == 1
    assert abs(1 / st.periods[0] - 1 / (144.0 * STEP)) <= 1 / (N * STEP)         # within one bin
    assert "periodic component with period 2.4 h" in st.reasons[0]
    assert st.as_json()["verdict"].startswith("not stationary")
