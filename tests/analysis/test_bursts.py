"""analysis/bursts.py against series whose bursts are known by construction (table-driven)."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.bursts import BurstRule, find

STEP = 15.0


def series(rates, t0: float = 1_000_000.0, step: float = STEP):
    """Points of `step` seconds each; None = a gap (nothing measured)."""
    n = len(rates)
    start = t0 + step * np.arange(n)
    seconds = np.array([0.0 if r is None else step for r in rates])
    delta = np.array([0 if r is None else round(r * step) for r in rates], np.float64)
    return start, start + step, delta, seconds


RULE = BurstRule(k=4, capacity_pct=10, min_duration_s=60)
CAP = 1000.0     # capacity per second: 10 % = 100/s
BASE = [10.0] * 40


def with_(base, at: int, values):
    out = list(base)
    out[at:at + len(values)] = values
    return out


CASES = [
    # name, rates, expected (first index, last index) of each burst
    ("quiet series", BASE, []),
    ("single spike shorter than the minimum", with_(BASE, 10, [900.0]), []),
    ("three points = 45 s < 60 s", with_(BASE, 10, [500.0] * 3), []),
    ("four points = 60 s", with_(BASE, 10, [500.0] * 4), [(10, 13)]),
    ("two bursts split by one quiet sample stay two",
     with_(BASE, 10, [500.0] * 4 + [10.0] + [500.0] * 4), [(10, 13), (15, 18)]),
    ("a gap inside a burst does not split it",
     with_(BASE, 10, [500.0] * 2 + [None] + [500.0] * 2), [(10, 14)]),
    ("a gap is not a burst either", with_(BASE, 10, [None] * 6), []),
    ("above k x median but under 10 % of capacity", with_(BASE, 10, [90.0] * 8), []),
    ("burst at the very end", with_(BASE, 36, [700.0] * 4), [(36, 39)]),
]


@pytest.mark.parametrize("name,rates,expected", CASES, ids=[c[0] for c in CASES])
def test_bursts_found_where_built(name, rates, expected):
    start, end, delta, seconds = series(rates)
    report = find(start, end, delta, seconds, RULE, capacity_per_s=CAP)
    got = [(int(round((b.start - start[0]) / STEP)), int(round((b.end - start[0]) / STEP)) - 1)
           for b in report.bursts]
    assert got == expected


def test_burst_figures():
    rates = with_(BASE, 10, [400.0, 800.0, None, 600.0, 200.0])
    start, end, delta, seconds = series(rates)
    (b,) = find(start, end, delta, seconds, RULE, capacity_per_s=CAP).bursts
    assert b.start == start[10] and b.end == end[14]
    assert b.duration == 5 * STEP and b.gap_seconds == STEP
    assert b.volume == (400 + 800 + 600 + 200) * STEP
    assert b.peak == 800.0
    assert b.mean == pytest.approx(500.0)       # volume over the 60 measured seconds
    assert b.points == 4


def test_threshold_is_the_larger_of_median_and_capacity_rules():
    start, end, delta, seconds = series(BASE)
    assert find(start, end, delta, seconds, RULE, capacity_per_s=CAP).threshold == 100.0
    assert find(start, end, delta, seconds, RULE, capacity_per_s=None).threshold == 40.0
    assert find(start, end, delta, seconds, BurstRule(k=20), capacity_per_s=CAP).threshold == 200.0


def test_median_ignores_gaps_and_a_series_of_gaps_has_no_threshold():
    rates = [None] * 30 + [10.0] * 10
    start, end, delta, seconds = series(rates)
    assert find(start, end, delta, seconds, RULE).median == 10.0
    report = find(*series([None] * 5), RULE)
    assert report.bursts == [] and np.isnan(report.threshold)


def test_a_hole_in_time_is_a_gap_not_quiet():
    """Points missing altogether (no row) inside a burst: one burst, the hole counted as gap."""
    start, end, delta, seconds = series(with_(BASE, 10, [500.0] * 6))
    keep = np.ones(len(start), bool)
    keep[12:14] = False
    (b,) = find(start[keep], end[keep], delta[keep], seconds[keep], RULE, capacity_per_s=CAP).bursts
    assert b.duration == 6 * STEP and b.gap_seconds == 2 * STEP and b.points == 4


@pytest.mark.parametrize("kw", [dict(k=-1), dict(capacity_pct=101), dict(min_duration_s=-5),
                                dict(k=float("inf")), dict(floor=-1)])
def test_bad_rules_are_refused(kw):
    with pytest.raises(ValueError):
        BurstRule(**kw)


def test_arrays_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="one entry per point"):
        find([0.0, 1.0], [1.0], [1], [1.0], RULE)
