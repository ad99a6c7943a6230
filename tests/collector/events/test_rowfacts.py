"""collector/events/rowfacts.py: one fact per kind per row, never one per counter."""
from __future__ import annotations

from collector.core.facts import Flag
from collector.events.rowfacts import FlaggedRow, facts

R, W, S, G = int(Flag.REBOOT), int(Flag.WRAP), int(Flag.RESET), int(Flag.GAP)


def test_a_reboot_of_every_counter_is_one_fact_with_the_boot_time():
    (fact,) = facts(FlaggedRow(1, 1000.0, 4200, [1, 2, 3], [R, R | G, R]))
    assert fact.kind == "reboot" and fact.data["counters"] == 3
    assert fact.data["booted_at"] == 958.0 and "uptime went back" in fact.message


def test_wraps_and_resets_name_their_series():
    got = {f.kind: f for f in facts(FlaggedRow(1, 1000.0, 10**6, [1, 2, 3, 4], [W, 0, S, W | G]))}
    assert set(got) == {"wrap", "discontinuity"}
    assert got["wrap"].data == {"counters": 2, "series": [1, 4]}
    assert got["discontinuity"].data == {"counters": 1, "series": [3]}


def test_a_quiet_row_has_no_fact():
    assert facts(FlaggedRow(1, 1000.0, 10**6, [1, 2], [0, G])) == []
