"""numerics/accounting.py: expected cells (AAL5) and counts with their poll-boundary interval."""
from __future__ import annotations

import numpy as np
import pytest

from numerics import accounting as acc


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


# What each medium's counter should count at least for the bytes an application sent (table-driven):
# unit, medium, bytes, message size, overhead, expected value, words the formula must state.
EXPECTED = [
    ("cells", "atm", 14_000_000, None, 0, 291_667, "ceil(bytes / 48)"),
    ("cells", "atm", 10_500, 1000, 0, 221, "AAL5 trailer 8"),
    ("octets", "atm-octets", 10_500, 1000, 0, 221 * 53, "53 x cells"),
    # 14,000,000 bytes in 1,448-byte TCP segments: 9,669 frames of 52 + 14 header bytes each
    ("octets", "ethernet", 14_000_000, 1448, 52, 14_000_000 + 9_669 * 66, "Ethernet header 14"),
    ("octets", "ethernet", 14_000_000, None, 52, 14_000_000, "a floor"),
    ("octets", "ip", 2_800_000, 1448, 52, 2_800_000 + 1_934 * 52, "overhead 52"),
    ("packets", "ethernet", 14_000_000, 1448, 52, 9_669, "one frame per message"),
    ("packets", "ethernet", 14_000_000, None, 52, None, "give the message size"),
]


@pytest.mark.parametrize("unit,medium,sent,size,overhead,value,words", EXPECTED,
                         ids=[f"{e[0]}-{e[1]}-{e[3]}" for e in EXPECTED])
def test_expected_follows_the_counters_unit_and_medium(unit, medium, sent, size, overhead, value, words):
    e = acc.expected(unit, medium, sent, size, overhead)
    assert (e.unit, e.medium, e.value) == (unit, medium, value)
    assert words in e.formula


@pytest.mark.parametrize("unit,port_type,is_atm,port_level,medium", [
    ("cells", "OC3", True, True, "atm"), ("octets", "OC3", True, True, "atm-octets"),
    ("octets", "aal5", True, False, "ip"), ("octets", "ethernet", False, True, "ethernet"),
    ("packets", "ethernet", False, True, "ethernet"), ("octets", "loopback", False, True, "ip"),
    ("octets", "", False, True, "ip")])
def test_medium_of_a_counter(unit, port_type, is_atm, port_level, medium):
    assert acc.medium(unit, port_type, is_atm, port_level) == medium


@pytest.mark.parametrize("unit,per_s,line,payload", [
    ("cells", 800.0, 800 * 424 / 1e6, 800 * 384 / 1e6),
    ("octets", 1_000_000.0, 8.0, None),          # octets are bits / 8 on the line: never x 53
    ("packets", 666.0, None, None)])
def test_rates_in_mbps_follow_the_unit(unit, per_s, line, payload):
    assert acc.rate_mbps(unit, per_s) == (pytest.approx(line) if line else None,
                                          pytest.approx(payload) if payload else None)
