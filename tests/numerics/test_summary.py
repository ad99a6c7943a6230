"""numerics/summary.py against numpy on small arrays."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.summary import PERCENTILES, percentile_cont, summarize

ARRAYS = [[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 20.0], [0.0, 0.5, 0.25, 7.0, 3.0, 3.0, 1.0], [-1.0, 1.0]]


@pytest.mark.parametrize("values", ARRAYS)
def test_summary_matches_numpy(values):
    x = np.array(values)
    s = summarize(x)
    assert s.n == len(x) and s.mean == pytest.approx(x.mean())
    assert s.variance == pytest.approx(x.var(ddof=1)) and s.std == pytest.approx(x.std(ddof=1))
    assert (s.minimum, s.peak) == (x.min(), x.max())
    assert s.percentiles == pytest.approx(dict(zip(PERCENTILES, np.percentile(x, PERCENTILES))))
    if x.mean():
        assert s.cv == pytest.approx(x.std(ddof=1) / x.mean()) and s.peak_to_mean == pytest.approx(x.max() / x.mean())


def test_zero_mean_gives_no_cv_and_json_is_plain():
    s = summarize(np.array([-1.0, 1.0]))
    assert s.cv is None and s.peak_to_mean is None
    j = summarize(np.array([3.0])).as_json()
    assert j["variance"] is None and j["percentiles"]["50"] == 3.0


def test_nan_is_refused():
    with pytest.raises(ValueError):
        summarize(np.array([1.0, np.nan]))


# (values, fraction, PostgreSQL's percentile_cont of them: position fraction x (n - 1), interpolated)
PERCENTILE_CONT = [
    ([1.0, 2.0, 3.0, 4.0], 0.95, 3.8499999999999996),  # position 0.95 x 3 = 2.8499999999999996: as the database
    ([7.0], 0.95, 7.0),
    ([1.0, 3.0], 0.5, 2.0),
    ([0.0, 10.0, 20.0], 1.0, 20.0),
    ([0.0, 10.0, 20.0], 0.0, 0.0),
    ([5.0, 5.0, 5.0, 20.0], 0.95, 5.0 + (0.95 * 3 - 2) * 15.0),
    ([], 0.95, None),
]


@pytest.mark.parametrize("values, fraction, want", PERCENTILE_CONT)
def test_percentile_cont_is_postgresqls(values, fraction, want):
    assert percentile_cont(np.array(values), fraction) == want


def test_percentile_cont_differs_from_numpys_last_bit_somewhere():
    # why it exists: numpy's 'linear' interpolates from the upper value above the middle
    rng = np.random.default_rng(1)
    differ = 0
    for _ in range(500):
        x = np.sort(rng.lognormal(10, 2, rng.integers(2, 300)))
        got = percentile_cont(x, 0.95)
        assert got == pytest.approx(float(np.percentile(x, 95)), rel=1e-14)
        differ += got != float(np.percentile(x, 95))
    assert differ > 0


def test_percentile_cont_refuses_a_fraction_outside_0_1():
    with pytest.raises(ValueError, match="outside"):
        percentile_cont(np.array([1.0]), 95)
