"""numerics/gaps.py on hand-made points whose grid, gaps and stretches are known."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.gaps import interpolate, longest_stretch, regularize

NAN = float("nan")
T0 = 1_700_000_000.0


def test_regularize_places_jittered_points_and_marks_missing_slots():
    t = T0 + np.array([0.0, 60.4, 119.7, 240.2, 300.0])      # slot 3 (180 s) missing
    r = regularize(t, np.array([1.0, 2.0, 3.0, 5.0, 6.0]), 60.0)
    assert r.n_slots == 6 and r.n_missing == 1 and r.off_grid == 0
    np.testing.assert_array_equal(np.isnan(r.values), [False, False, False, True, False, False])
    assert abs(r.t0 - T0) < 1


def test_regularize_drops_points_far_off_grid_and_averages_collisions():
    t = T0 + np.array([0.0, 30.0, 60.0, 61.0, 120.0])        # 30 s: half-way; 61 s: same slot as 60 s
    r = regularize(t, np.array([1.0, 9.0, 2.0, 4.0, 3.0]), 60.0)
    assert (r.off_grid, r.collisions, r.n_slots) == (1, 1, 3)
    np.testing.assert_allclose(r.values, [1.0, 3.0, 3.0])


def test_regularize_counts_nan_values_as_missing():
    r = regularize(T0 + 60.0 * np.arange(4), np.array([1.0, NAN, NAN, 4.0]), 60.0)
    assert r.n_missing == 2


def test_regularize_grid_follows_the_polls_not_a_late_first_one():
    t = T0 + 60.0 * np.arange(10) + 1.0
    t[0] += 12.0                                              # the first poll 12 s late
    r = regularize(t, np.ones(10), 60.0)
    assert r.t0 == pytest.approx(T0 + 1.0) and r.off_grid == 0 and r.n_missing == 0


def grid(values):
    v = np.array(values, np.float64)
    return regularize(T0 + 10.0 * np.arange(len(v)), v, 10.0)


CASES = [
    # values, max_gap, (start, n, interpolated, dropped outside, gaps) for longest_stretch and interpolate
    ([1, 2, NAN, 4, 5, 6, NAN, NAN, 9], 1, (3, 3, 0, 3, 2), (0, 6, 1, 1, 2)),
    ([1, 2, NAN, 4, 5, 6, NAN, NAN, 9], 2, (3, 3, 0, 3, 2), (0, 9, 3, 0, 2)),
    ([NAN, 1, 2, 3, NAN], 5, (1, 3, 0, 0, 2), (1, 3, 0, 0, 2)),     # end gaps are never filled
    ([1, 2, 3], 0, (0, 3, 0, 0, 0), (0, 3, 0, 0, 0)),
    ([1, NAN, 3, NAN, 5, 6], 0, (4, 2, 0, 2, 2), (4, 2, 0, 2, 2)),
]


@pytest.mark.parametrize("values,max_gap,plain,filled", CASES)
def test_stretches(values, max_gap, plain, filled):
    r = grid(values)
    for s, want in ((longest_stretch(r), plain), (interpolate(r, max_gap), filled)):
        assert (s.start_index, s.n, s.n_interpolated, s.n_dropped_outside, s.gaps) == want
        assert not np.isnan(s.values).any()
        assert s.t_start == pytest.approx(r.t0 + 10.0 * s.start_index)


def test_interpolation_is_linear():
    s = interpolate(grid([0, NAN, NAN, 3]), 2)
    np.testing.assert_allclose(s.values, [0, 1, 2, 3])
    assert s.method == "linear interpolation of gaps of at most 2 samples, then the longest stretch"
    assert "2 samples interpolated" in s.describe()


def test_describe_and_json():
    s = longest_stretch(grid([1, 2, NAN, 4, 5, 6]))
    assert s.describe().startswith("3 samples of 10 s") and "1 gap in the window" in s.describe()
    j = s.as_json()
    assert j["values"] == [4.0, 5.0, 6.0] and j["method"] == "longest gap-free stretch" and j["n"] == 3


def test_empty_and_all_missing():
    assert regularize(np.empty(0), np.empty(0), 60.0).n_slots == 0
    s = longest_stretch(grid([NAN, NAN]))
    assert s.n == 0 and s.describe() == "no sample was measured in the window"
