"""numerics/selfsim.py: the whole report on fGn, its limits, progress and JSON."""
from __future__ import annotations

import json

import numpy as np
import pytest

from numerics import selfsim
from numerics.synthetic import fgn


def test_report_on_fgn():
    calls = []
    r = selfsim.analyse(50 + 5 * fgn(4096, 0.8, 1), 30.0, progress=lambda f, what: calls.append((f, what)))
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert r.n == 4096 and r.acf.lags[-1] == 200 and len(r.hurst) == 4
    assert r.stationarity.stationary and "long-range dependence" in r.interpretation
    j = json.loads(json.dumps(r.as_json(), allow_nan=False))
    assert {"summary", "acf", "spectrum", "stationarity", "hurst", "interpretation"} <= set(j)


def test_trend_report_does_not_claim_lrd():
    x = fgn(4096, 0.5, 2) + 4 * np.linspace(0, 1, 4096)
    r = selfsim.analyse(x, 30.0)
    assert r.interpretation.startswith("not stationary") and "not evidence of long-range dependence" in r.interpretation


def test_limits():
    with pytest.raises(ValueError, match=f"at least {selfsim.MIN_SAMPLES}"):
        selfsim.analyse(fgn(selfsim.MIN_SAMPLES - 1, 0.5, 1), 1.0)
    with pytest.raises(ValueError, match="budget"):
        selfsim.analyse(np.zeros(selfsim.MAX_SAMPLES + 1), 1.0)
    assert selfsim.analyse(fgn(selfsim.MIN_SAMPLES, 0.5, 1), 1.0).n == selfsim.MIN_SAMPLES
