"""numerics/summary.py against numpy on small arrays."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.summary import PERCENTILES, summarize

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
