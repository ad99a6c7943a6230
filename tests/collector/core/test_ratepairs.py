"""Rates as integer pairs (collector/core/ratepairs.py): every pair found gives the rate's very
bits, as PostgreSQL computes delta::float8 * 1000 / interval_ms. No services."""
from __future__ import annotations

import numpy as np
import pytest

from collector.core import ratepairs as rp


def test_rates_become_integer_pairs_that_give_the_same_bits():
    rng = np.random.default_rng(5)
    d = rng.integers(0, 1 << 40, 50_000)
    iv = 15000 + rng.integers(-60, 60, 50_000)
    rate = rp.rate_of(d, iv)
    delta, offset, unpaired = rp.to_pairs(rate, np.full(len(rate), 15000))
    assert not unpaired.any()
    assert (rp.rate_of(delta, 15000 + offset) == rate).all()
    assert np.abs(offset).max() <= rp.SEARCH_MS


def test_a_missed_poll_interval_is_found_near_twice_the_typical_one():
    # A bucket's extreme sample spanned a missed poll (30 s) while its mean interval says 15 s.
    rate = rp.rate_of(np.array([123_456_789, 5, 7]), np.array([30_001, 15_000, 15_000]))
    guess = np.array([15_000, 15_000, 15_000])
    delta, offset, unpaired = rp.to_pairs(rate, guess, rp.other_guesses(guess, np.ones(3, np.int64)))
    assert not unpaired.any()
    assert (rp.rate_of(delta, guess + offset) == rate).all()
    assert abs(offset[0] - 15_000) <= rp.SEARCH_MS      # an offset of ~15 s, not a far fraction


@pytest.mark.parametrize("delta,interval", [(987_654_321, 135_017), (3, 7_200_013), (10 ** 15, 86_399_999),
                                            (1, 1)])
def test_a_rate_far_from_every_guess_is_paired_by_its_fraction(delta, interval):
    rate = rp.rate_of(np.array([delta]), np.array([interval]))
    d, offset, unpaired = rp.to_pairs(rate, np.array([15_000]))
    assert not unpaired.any()
    assert rp.rate_of(d, 15_000 + offset)[0] == rate[0]
    assert rp.fraction_pair(float("nan")) is None


def test_candidates_come_first_and_the_escape_is_their_count():
    rate = rp.rate_of(np.array([1_000_003, 5, 0]), np.array([15_011, 14_987, 15_000]))
    cand = np.array([[14_987, 15_011], [14_987, 15_011], [0, 0]])
    got, iv = rp.pairs(rate, np.full(3, 15_000), cand)
    assert got.index.tolist()[:2] == [1, 0]                          # found among the candidates
    assert (rp.rate_of(got.delta, iv) == rate).all()
    assert got.index[2] == 2 and len(got.offset) == 1               # no candidate: an offset from the guess


def test_the_fraction_search_is_bounded_and_what_it_leaves_stays_exact():
    """Rates no interval near the guesses gives (made by another tool): at most FRACTION_MAX of a
    call go to the slow search, the rest are unpaired (kept as their float64 bits by the codec)."""
    import numpy as np

    from collector.core import ratepairs

    rng = np.random.default_rng(4)
    rates = rng.uniform(1e3, 1e7, 3 * ratepairs.FRACTION_MAX)
    guess = np.full(len(rates), 15000, np.int64)
    d, off, unpaired = ratepairs.to_pairs(rates, guess)
    paired = ~unpaired
    assert unpaired.sum() >= len(rates) - ratepairs.FRACTION_MAX
    assert (ratepairs.rate_of(d[paired], guess[paired] + off[paired]) == rates[paired]).all()
