"""collector/core/readings.py: varbinds -> counter readings, interface by interface, by its rules.

Table-driven: each case gives what the agent answered in a counter's 64-bit column and in its
32-bit fallback for some instances, and what Cellar must make of it (value, width) and note.
"""
from __future__ import annotations

import pytest

from collector.core import profiles
from collector.core.readings import (
    NEGATIVE,
    NOT_ANSWERED,
    READ_AS_32,
    READ_AS_64,
    WRONG_TYPE,
    ValueNote,
    readings_from_walk,
    summarize,
    summary_text,
)
from collector.core.snmp_codec import Counter64Value as C64

IF_MIB = profiles.get_profile("if-mib")
HC_IN = profiles.object_by_name("ifHCInOctets").oid
IN32 = profiles.object_by_name("ifInOctets").oid
ERR_IN = profiles.object_by_name("ifInErrors").oid


def run(hc=None, low=None, errors=None, version="2c", expected=None):
    walked = {}
    for oid, rows in ((HC_IN, hc), (IN32, low), (ERR_IN, errors)):
        if rows is not None:
            walked[oid] = {(int(k),): v for k, v in rows.items()}
    readings, _, missing, notes = readings_from_walk(IF_MIB, version, walked, expected)
    got = {k[1]: (r.value, r.width) for k, r in readings.items() if k[0] == "ifHCInOctets"}
    errs = {k[1]: (r.value, r.width) for k, r in readings.items() if k[0] == "ifInErrors"}
    return got, errs, {(n.object, n.index, n.reason, n.used) for n in notes}, missing


@pytest.mark.parametrize("hc, low, want, notes", [
    # the 64-bit column answers: used, 64-bit
    ({1: C64(2**40)}, {1: 5}, {"1": (2**40, 64)}, set()),
    # an interface without it: its 32-bit fallback, 32-bit (the router's serial links)
    ({1: C64(9)}, {1: 5, 2: 7}, {"1": (9, 64), "2": (7, 32)}, set()),
    # the fallback column answers Counter64 values: read as 64-bit, noted (the firewall)
    (None, {1: C64(5), 2: C64(2**32 + 1)}, {"1": (5, 64), "2": (2**32 + 1, 64)},
     {("ifHCInOctets", "1", READ_AS_64, True), ("ifHCInOctets", "2", READ_AS_64, True)}),
    # a Counter32 in the 64-bit column: read as 32-bit, noted
    ({1: 123}, None, {"1": (123, 32)}, {("ifHCInOctets", "1", READ_AS_32, True)}),
    # an unusable 64-bit value with a usable fallback: the fallback, nothing lost, nothing noted
    ({1: b"n/a"}, {1: 77}, {"1": (77, 32)}, set()),
    # unusable everywhere: noted, not used
    ({1: b"n/a"}, None, {}, {("ifHCInOctets", "1", WRONG_TYPE, False)}),
    ({1: None}, {1: -3}, {}, {("ifHCInOctets", "1", WRONG_TYPE, False)}),
    (None, {1: -3}, {}, {("ifHCInOctets", "1", NEGATIVE, False)}),
])
def test_values_by_rule(hc, low, want, notes):
    got, _, found, _ = run(hc, low)
    assert got == want
    assert found == notes


def test_a_32_bit_only_counter_reads_a_counter64_as_64_bit():
    _, errs, notes, _ = run(errors={1: 5, 2: C64(6), 3: -1})
    assert errs == {"1": (5, 32), "2": (6, 64)}
    assert ("ifInErrors", "2", READ_AS_64, True) in notes and ("ifInErrors", "3", NEGATIVE, False) in notes


def test_expected_interfaces_that_answer_nothing_are_noted():
    got, _, notes, missing = run(hc={1: C64(1)}, errors={1: 0}, expected={"port": {"1", "2"}})
    assert got == {"1": (1, 64)} and missing != []        # other counters not walked at all
    assert ("ifHCInOctets", "2", NOT_ANSWERED, False) in notes
    assert ("ifInErrors", "2", NOT_ANSWERED, False) in notes
    assert not any(n[1] == "1" for n in notes)


def test_snmpv1_never_reads_a_64_bit_column():
    got, _, notes, _ = run(hc={1: C64(10)}, low={1: 4}, version="1")
    assert got == {"1": (4, 32)} and notes == set()


def test_values_and_indexes_above_2_31_are_kept_as_unsigned():
    got, _, _, _ = run(hc={4_160_777_152: C64(2**64 - 1)})
    assert got == {"4160777152": (2**64 - 1, 64)}


def test_summary_counts_reasons_and_keeps_examples():
    notes = [ValueNote("ifHCInOctets", "1", READ_AS_64, "5", True),
             ValueNote("ifInErrors", "2", WRONG_TYPE, "n/a", False),
             ValueNote("ifInErrors", "3", WRONG_TYPE, "x", False)]
    s = summarize(notes, examples=2)
    assert s == {"not_used": {WRONG_TYPE: 2}, "read_by_rule": {READ_AS_64: 1},
                 "examples": [["ifInErrors", "2", WRONG_TYPE, "n/a"], ["ifInErrors", "3", WRONG_TYPE, "x"]]}
    assert summary_text(s) == (f"2 values not used ({WRONG_TYPE}: 2); 1 value read by a rule ({READ_AS_64}: 1)")
    assert summarize([]) is None and summary_text(None) == ""
