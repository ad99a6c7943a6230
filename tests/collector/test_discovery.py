"""Discovery keeps history: what vanishes from the agent is marked gone, never deleted."""
from __future__ import annotations

import pytest

from collector.inventory.discovery import apply_snapshot
from collector.core.snapshot import ChannelInfo, CrossConnectInfo, PathInfo, PortInfo, Snapshot, fore_port_name, parse_fore
from collector.inventory.models import CrossConnect, Port, Switch, VirtualChannel, VirtualPath

pytestmark = pytest.mark.django_db


def _snapshot(ports=("0", "1"), vcs=((0, 0, 100), (1, 0, 100))) -> Snapshot:
    return Snapshot(
        ports=[PortInfo(key=k, name=f"A{int(k) + 1}", oper_status="up", capacity_cells=353_207) for k in ports],
        paths=[PathInfo(port_key=str(p), vpi=v) for p, v, _ in vcs],
        channels=[ChannelInfo(port_key=str(p), vpi=v, vci=c) for p, v, c in vcs],
        cross_connects=[CrossConnectInfo("vc", "0", 0, 100, "1", 0, 100)] if len(ports) > 1 else [])


def test_vanished_entities_are_marked_gone_and_come_back():
    switch = Switch.objects.create(name="gone-test", address="127.0.0.1", detected_profile="fore-asx")
    first = apply_snapshot(switch, _snapshot())
    assert first.counts == {"ports": 2, "VPs": 2, "VCs": 2, "cross-connects": 1}
    # Port A2 (key 1) and its VC disappear from the agent.
    second = apply_snapshot(switch, _snapshot(ports=("0",), vcs=((0, 0, 100),)))
    assert second.gone == {"ports": 1, "VPs": 1, "VCs": 1, "cross-connects": 1}
    a2 = Port.objects.get(switch=switch, key="1")
    assert a2.gone_at is not None                        # kept, with its history
    assert Port.objects.filter(switch=switch).present().count() == 1
    assert CrossConnect.objects.get(switch=switch).gone_at is not None
    # It comes back: the same rows, no longer gone.
    apply_snapshot(switch, _snapshot())
    a2.refresh_from_db()
    assert a2.gone_at is None and Port.objects.filter(switch=switch).count() == 2
    assert VirtualChannel.objects.filter(switch=switch, gone_at__isnull=True).count() == 2
    assert VirtualPath.objects.filter(switch=switch).count() == 2


@pytest.mark.parametrize("hw_name, model, expected", [
    ("1A1", 4, "A1"), ("1D4", 4, "D4"), ("1CTL", 7, "CTL"), ("2B3", 1, "B3"), ("", 4, "5"),
])
def test_fore_port_names(hw_name, model, expected):
    assert fore_port_name(hw_name, model, 5) == expected


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
