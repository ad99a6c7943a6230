"""analysis/accounting.py: expected cells (AAL5) and counts with their poll-boundary interval."""
from __future__ import annotations

import numpy as np
import pytest

from analysis import accounting as acc


def test_seed_expected_minimum_for_14_million_bytes():
    # Seed 002: "we would expect a minimum of 291,670 cells" (14e6 / 48 = 291,666.7, rounded there).
    assert acc.expected_cells(14_000_000) == 291_667
    assert abs(acc.expected_cells(14_000_000) - 291_670) < 5


def test_seed_count_is_consistent():
    count = acc.Count(297_375, 297_375.0, 297_375, 10, 0)
    v = acc.verdict(count, acc.expected_cells(14_000_000))
    assert v.word == "consistent" and v.ratio_low == pytest.approx(1.0196, abs=1e-4)


@pytest.mark.parametrize("size,overhead,cells", [
    (0, 0, 1), (40, 0, 1), (41, 0, 2), (9180, 0, 192), (9180, 8, 192), (9180, 48, 193), (65536, 8, 1366)])
def test_cells_for_message(size, overhead, cells):
    assert acc.cells_for_message(size, overhead) == cells


def test_expected_with_message_size_counts_each_message_and_the_remainder():
    # 10 messages of 1000 bytes and one of 500: 10 x ceil(1008/48) + ceil(508/48) = 10 x 21 + 11.
    assert acc.expected_cells(10_500, message_size=1000) == 221
    assert acc.expected_cells(10_500, message_size=1000) > acc.expected_cells(10_500)


def samples(t0: float, n: int, step: float, per_sample: int):
    t_end = t0 + step * np.arange(1, n + 1)
    return t_end, np.full(n, step), np.full(n, per_sample, np.float64), np.ones(n, bool)


def test_window_on_poll_boundaries_is_exact():
    t_end, span, delta, ok = samples(0.0, 10, 15.0, 1500)
    c = acc.count_window(t_end, span, delta, ok, 30.0, 120.0)
    assert (c.low, c.high, c.estimate, c.uncertainty) == (9000, 9000, 9000.0, 0.0)


def test_window_between_polls_gives_an_interval_that_holds_the_truth():
    # 100 cells/s for 150 s; the window [20, 100] holds exactly 8000 cells.
    t_end, span, delta, ok = samples(0.0, 10, 15.0, 1500)
    c = acc.count_window(t_end, span, delta, ok, 20.0, 100.0)
    assert c.low == 6000 and c.high == 9000          # 4 whole samples; 2 straddling
    assert c.low <= 8000 <= c.high and c.estimate == pytest.approx(8000.0)


def test_an_unusable_sample_leaves_the_upper_bound_unknown():
    t_end, span, delta, ok = samples(0.0, 10, 15.0, 1500)
    ok[3] = False
    c = acc.count_window(t_end, span, delta, ok, 0.0, 150.0)
    assert c.high is None and c.unusable == 1 and c.low == 13_500


def test_a_window_not_covered_by_samples_leaves_the_upper_bound_unknown():
    t_end, span, delta, ok = samples(0.0, 10, 15.0, 1500)
    keep = np.arange(10) != 4
    c = acc.count_window(t_end[keep], span[keep], delta[keep], ok[keep], 0.0, 150.0)
    assert c.high is None


@pytest.mark.parametrize("low,high,word", [
    (1000, 1000, "consistent"), (1040, 1060, "consistent"), (1060, 1070, "excess"),
    (900, 950, "missing"), (990, None, "unknown"), (1000, None, "consistent")])
def test_verdicts(low, high, word):
    assert acc.verdict(acc.Count(low, float(low), high, 5, 0), 1000).word == word


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        acc.expected_cells(-1)
    with pytest.raises(ValueError):
        acc.count_window([1.0], [1.0], [1], [True], 10.0, 5.0)
