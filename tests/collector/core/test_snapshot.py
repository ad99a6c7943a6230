"""collector/core/snapshot.py: FORE port names and the matching of portTable to hwPortTable rows."""
from __future__ import annotations

import pytest

from collector.core.snapshot import (
    fore_port_name,
    parse_fore,
)


@pytest.mark.parametrize("hw_name, model, expected", [
    ("1A1", 4, "A1"), ("1D4", 4, "D4"), ("1CTL", 7, "CTL"), ("2B3", 1, "B3"), ("", 4, "5"),
])
def test_fore_port_names(hw_name, model, expected):
    assert fore_port_name(hw_name, model, 5) == expected


@pytest.mark.parametrize("hw_name, model, expected", [
    ("1A1", 4, "1A1"), ("2A1", 4, "2A1"), ("2CTL", 7, "2CTL"), ("", 4, "5"),
])
def test_fore_port_names_on_a_switch_with_several_boards_keep_the_board(hw_name, model, expected):
    assert fore_port_name(hw_name, model, 5, multi_board=True) == expected


def test_a_multi_board_switch_names_every_port_by_its_full_bnp():
    P, H = "1.3.6.1.4.1.326.2.2.2.1.2.2.1", "1.3.6.1.4.1.326.2.2.1.1.2.3.1"
    walk = {
        f"{P}.3": {(0,): 1, (56,): 1, (64,): 1, (120,): 1},
        f"{P}.19": {(0,): 0, (56,): 0, (64,): 1, (120,): 1},
        f"{P}.20": {(0,): 0, (56,): 7, (64,): 0, (120,): 7},
        f"{H}.13": {(0, 0, 0): b"1A1", (0, 7, 0): b"1CTL", (1, 0, 0): b"2A1", (1, 7, 0): b"2CTL"},
        f"{H}.5": {(0, 0, 0): 4, (0, 7, 0): 7, (1, 0, 0): 4, (1, 7, 0): 7},
    }
    names = {p.key: (p.name, p.description) for p in parse_fore(walk).ports}
    assert names == {"0": ("1A1", "1A1"), "56": ("1CTL", "1CTL"), "64": ("2A1", "2A1"), "120": ("2CTL", "2CTL")}


def test_fore_layout_is_matched_by_position_within_each_module():
    # portTable keyed by portNumber, hwPortTable by (board, module, port): numbering schemes
    # differ between releases, the order of ports within a module does not.
    P, H = "1.3.6.1.4.1.326.2.2.2.1.2.2.1", "1.3.6.1.4.1.326.2.2.1.1.2.3.1"
    walk = {
        f"{P}.3": {(40,): 1, (41,): 2, (9,): 1},
        f"{P}.19": {(40,): 1, (41,): 1, (9,): 1},
        f"{P}.20": {(40,): 0, (41,): 0, (9,): 1},
        f"{P}.62": {(40,): b"merlin", (41,): b"", (9,): b"blackstone"},
        f"{H}.13": {(1, 0, 0): b"1A1", (1, 0, 1): b"1A2", (1, 1, 0): b"1B1"},
        f"{H}.5": {(1, 0, 0): 4, (1, 0, 1): 4, (1, 1, 0): 1},
    }
    snap = parse_fore(walk)
    by_key = {p.key: p for p in snap.ports}
    assert (by_key["40"].name, by_key["41"].name, by_key["9"].name) == ("A1", "A2", "B1")
    assert by_key["40"].capacity_cells == 353_207 and by_key["9"].port_type == "TAXI-100"
    assert by_key["41"].oper_status == "down" and by_key["40"].label == "merlin"


def test_fore_layout_without_board_and_module_columns_falls_back_to_order():
    P, H = "1.3.6.1.4.1.326.2.2.2.1.2.2.1", "1.3.6.1.4.1.326.2.2.1.1.2.3.1"
    walk = {
        f"{P}.3": {(1,): 1, (2,): 1, (3,): 2},
        f"{H}.13": {(1, 0, 0): b"1A1", (1, 0, 1): b"1A2", (1, 7, 0): b"1CTL"},
        f"{H}.5": {(1, 0, 0): 4, (1, 0, 1): 4, (1, 7, 0): 7},
    }
    names = [p.name for p in parse_fore(walk).ports]
    assert names == ["A1", "A2", "CTL"]
