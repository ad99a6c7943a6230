"""collector/core/facts.py: the one table of flags, cell arithmetic, uint64 storage, capacity."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collector.core import facts
from collector.core.facts import FLAGS, Flag


def test_the_flag_table_covers_every_flag_once_with_stable_bits():
    members = [f for f in Flag if f]
    assert [info.flag for info in FLAGS] == members
    # Stored in the database as smallint bits: the values are a storage contract.
    assert {info.name: info.bit for info in FLAGS} == {
        "WRAP": 1, "REBOOT": 2, "RESET": 4, "OVER_CAPACITY": 8, "MISSING": 16, "FIRST": 32, "GAP": 64,
        "AMBIGUOUS": 128, "CLOCK": 256, "WIDTH": 512}
    assert facts.ALL_FLAGS == 1024 and max(info.bit for info in FLAGS) < 2 ** 15
    assert all(info.meaning and info.word for info in FLAGS)


@pytest.mark.parametrize("bits, names, words", [
    (0, [], ""),
    (1, ["WRAP"], "wrap"),
    (4 | 64, ["RESET", "GAP"], "counter reset, gap"),
    (1023, [f.name for f in FLAGS], ", ".join(f.word for f in FLAGS)),
])
def test_flag_spellings(bits, names, words):
    assert facts.flag_names(bits) == names
    assert facts.flag_words(bits) == words
    meanings = facts.flag_meanings(bits)
    assert all((f"{f.name}: {f.meaning}" in meanings) == (f.name in names) for f in FLAGS)


@pytest.mark.parametrize("u, i", [(0, 0), (2**63 - 1, 2**63 - 1), (2**63, -2**63), (2**64 - 1, -1)])
def test_u64_round_trip_edges(u, i):
    assert facts.to_i64(u) == i and facts.to_u64(i) == u


@pytest.mark.parametrize("fn, v", [(facts.to_i64, -1), (facts.to_i64, 2**64), (facts.to_u64, 2**63),
                                   (facts.to_u64, -2**63 - 1)])
def test_u64_refuses_what_is_not_one(fn, v):
    with pytest.raises(ValueError):
        fn(v)


@given(st.lists(st.one_of(st.none(), st.integers(0, 2**64 - 1)), max_size=20))
def test_list_conversions_invert_each_other(values):
    stored = facts.to_i64_list(values)
    assert all(v is None or -2**63 <= v < 2**63 for v in stored)
    assert facts.to_u64_list(stored) == values
    assert [facts.stored_to_u64(v) for v in stored] == values


@pytest.mark.parametrize("unit, speed, cells, expected", [
    ("cells", 155_520_000, 353_207, 353_207),        # the port knows its cell rate (OC-3c payload)
    ("cells", 100_000_000, None, 235_849),           # from the line rate: 100 Mb/s / 424 bits
    ("cells", None, None, None),
    ("octets", 1_000_000_000, None, 125_000_000),
    ("packets", 1_000_000_000, None, 1_953_125),     # 64-byte frames
    ("packets", 100, None, 1),                       # never 0: a rate above 0 would always be "over"
    ("octets", None, 353_207, None),
    ("ticks", 1_000_000_000, None, None),
])
def test_capacity_rules(unit, speed, cells, expected):
    assert facts.capacity_per_s(unit, speed, cells) == expected


def test_cell_arithmetic():
    assert facts.CELL_BITS == 424 and facts.CELL_BYTES - facts.PAYLOAD_BYTES == 5
    assert facts.line_cell_rate(155_520_000) == 353_207           # OC-3c after SONET framing
    assert facts.line_cell_rate(44_736_000) == 96_000             # DS3 with PLCP
    assert facts.line_cell_rate(424_000) == 1_000


@pytest.mark.parametrize("value, unit, digits, text", [
    (23_957_320.93, "b/s", 3, "24.0 Mb/s"),          # the alerts page's rate in bits/s
    (10_000_000, "b/s", 3, "10.0 Mb/s"),             # and its threshold, read alike
    (1_000_000_000, "b/s", 3, "1.00 Gb/s"),
    (999_700, "b/s", 3, "1.00 Mb/s"),                # rounding carries into the next prefix
    (999.4, "b/s", 3, "999 b/s"),
    (0.5, "b/s", 3, "0.500 b/s"),
    (0, "b/s", 3, "0 b/s"),
    (-2_500, "cells/s", 3, "-2.50 kcells/s"),
    (353_207, "cells/s", 4, "353.2 kcells/s"),
    (2.4e13, "b/s", 3, "24.0 Tb/s"),
    (3.2e16, "b/s", 3, "32000 Tb/s"),                # beyond the last prefix: whole numbers, no exponent
    (92.04, "%", 3, "92.0 %"),                       # a percentage takes no prefix
    (100, "%", 3, "100 %"),
    (4_000, "%", 3, "4000 %"),
    (0.004, "%", 3, "0.00400 %"),
])
def test_rate_text_carries_its_unit_with_sensible_digits(value, unit, digits, text):
    assert facts.rate_text(value, unit, digits) == text


@pytest.mark.parametrize("value, unit, text", [
    (None, "b/s", "–"), (8e6, "b/s", "8.00 Mb/s"), (55.5, "%", "55.5 %"), (600.4, "s", "600 s"),
    (12_345, "s", "12,345 s"), (3, "failed checks", "3 failed checks"), (2.5, "s", "2.50 s"),
])
def test_quantity_writes_rates_and_counts(value, unit, text):
    assert facts.quantity(value, unit) == text
