"""Link inference rules (collector/inventory/linkinfer.py): pure, over plain records."""
from __future__ import annotations

import pytest

from collector.inventory import linkinfer as li

SWITCHES = [
    li.SwitchRec(1, "asx-a", "10.0.0.1", "asx-a.lab", {"atm_address": "aa"}),
    li.SwitchRec(2, "asx-b", "10.0.0.2", "asx-b.lab", {"atm_address": "bb"}),
    li.SwitchRec(3, "ip-1", "10.0.0.3", "ip-1.lab", {"lldp_chassis": "4:0011", "lldp_port_ids": {"7": "7:7"}}),
    li.SwitchRec(4, "ip-2", "10.0.0.4", "ip-2.lab", {}),
    li.SwitchRec(5, "gone-sw", "10.0.0.5", "gone.lab", {}, enabled=False),
]
PORTS = [
    li.PortRec(11, 1, "3", "A4", "A4", "1A4", "asx-b.lab"), li.PortRec(12, 1, "24", "D1", "D1", "1D1"),
    li.PortRec(13, 1, "25", "D2", "D2", "1D2"),
    li.PortRec(21, 2, "3", "A4", "A4", "1A4", "to the WAN"), li.PortRec(22, 2, "0", "A1", "A1", "1A1"),
    li.PortRec(31, 3, "7", "Gi1/0/7", "Gi1/0/7", "GigabitEthernet1/0/7"),
    li.PortRec(32, 3, "8", "Gi1/0/8", "Gi1/0/8", "GigabitEthernet1/0/8"),
    li.PortRec(41, 4, "1", "xe-0/0/1", "xe-0/0/1"), li.PortRec(42, 4, "2", "xe-0/0/2", "xe-0/0/2", gone=True),
    li.PortRec(51, 5, "1", "e1", "e1"),
]


def ev(switch, port, kind, far, weight=None) -> li.EvidenceRec:
    return li.EvidenceRec(None, switch, port, kind, f"{kind} says {far}", far, weight=weight)


def run(evidence, links=()):
    net = li.Network(SWITCHES, PORTS)
    return li.infer(net, evidence + net.label_claims(), list(links))


def pairs(outcome) -> dict:
    return {c.ports: (c.confidence, bool(c.conflict)) for c in outcome.candidates}


SIG_A = ev(1, 11, "fore-signalling", {"address": "10.0.0.2"})
SIG_B = ev(2, 21, "fore-signalling", {"address": "10.0.0.1"})
LLDP_IP1 = ev(3, 31, "lldp", {"chassis": "4:99", "sys_name": "ip-2.lab", "port_id": "5:xe-0/0/1"})
LLDP_IP2 = ev(4, 41, "lldp", {"chassis": "4:0011", "sys_name": "x", "port_id": "7:7"})


@pytest.mark.parametrize("evidence, expected", [
    # mutual switch-level claims, each the only port naming the other, pin the pair; labels add to them
    ([SIG_A, SIG_B], {(11, 21): (1 - 0.4 * 0.4 * 0.65, False)}),
    # one side only: labels alone from one side never pin a port
    ([SIG_A], {}),
    # LLDP from one side, far port by name in another spelling: lower confidence ...
    ([LLDP_IP1], {(31, 41): (0.8, False)}),
    # ... than from both sides (a local id resolved through the far switch's own port ids)
    ([LLDP_IP1, LLDP_IP2], {(31, 41): (0.96, False)}),
    # ILMI naming a FORE port by its BNP
    ([ev(3, 32, "ilmi", {"address": "10.0.0.1", "port_name": "1D1"})], {(12, 32): (0.8, False)}),
    # continuity alone, with its own weight
    ([ev(1, 12, "xc-continuity", {"port_id_db": 32, "switch_id": 3}, weight=0.7)], {(12, 32): (0.7, False)}),
    # too weak to be a link
    ([ev(1, 12, "xc-continuity", {"port_id_db": 32, "switch_id": 3}, weight=0.3)], {}),
])
def test_candidates_and_confidence(evidence, expected):
    got = pairs(run(evidence))
    rounded = {k: (round(v[0], 3), v[1]) for k, v in expected.items()}
    assert {k: (round(v[0], 3), v[1]) for k, v in got.items()} == rounded


def test_contradictory_evidence_is_a_conflict_on_both_candidates():
    out = run([ev(3, 32, "ilmi", {"address": "10.0.0.1", "port_name": "D1"}),
               ev(3, 32, "lldp", {"sys_name": "asx-a.lab", "port_id": "5:D2"})])
    got = pairs(out)
    assert got.keys() == {(12, 32), (13, 32)} and all(conflict for _, conflict in got.values())
    texts = " ".join(c for cand in out.candidates for c in cand.conflict)
    assert "asx-a D2" in texts and "claimed by another link too" in texts


def test_two_links_for_one_port_and_a_vanished_far_end():
    # a link entered by hand on ip-1 Gi1/0/7, and LLDP pinning the same port elsewhere
    out = run([LLDP_IP1], [li.LinkRec(7, 31, 32, None, "confirmed")])
    assert pairs(out) == {(31, 41): (0.8, True)}
    assert "claimed by another link too" in out.link_conflicts[7]
    # evidence naming a port that vanished
    out = run([ev(3, 32, "lldp", {"sys_name": "ip-2", "port_id": "5:xe-0/0/2"})])
    [cand] = out.candidates
    assert cand.ports == (32, 42) and "ip-2 xe-0/0/2 has vanished" in cand.conflict
    # a confirmed link to a switch that was disabled (no longer polled)
    out = run([], [li.LinkRec(8, 13, 51, None, "confirmed")])
    assert out.link_conflicts[8] == "switch gone-sw is disabled"


def test_a_rejected_link_claims_no_port():
    out = run([LLDP_IP1], [li.LinkRec(9, 31, 41, None, "rejected"), li.LinkRec(10, 31, 32, None, "rejected")])
    assert pairs(out) == {(31, 41): (0.8, False)}


def test_unknown_and_ambiguous_far_ends_are_counted_not_guessed():
    net = li.Network(SWITCHES + [li.SwitchRec(6, "twin", "10.0.0.9", "asx-b.lab", {})], PORTS)
    evidence = [ev(3, 31, "lldp", {"chassis": "4:77", "sys_name": "core-a", "port_id": "5:Te1/0/1"}),
                ev(3, 31, "lldp", {"sys_name": "asx-b.lab", "port_id": "5:A4"}),
                ev(1, 12, "fore-signalling", {"address": "10.0.0.1"})]
    out = li.infer(net, evidence, [])
    assert out.candidates == [] and out.unresolved == {"lldp": 2, "fore-signalling": 1}
    assert evidence[0].resolution == "no switch in the inventory is chassis 4:77 / sys name core-a"
    assert evidence[1].resolution == "sys name asx-b.lab could be asx-b, twin"
    assert evidence[2].resolution == "names its own switch"


def test_parallel_trunks_named_only_by_switch_are_not_paired():
    extra = li.PortRec(14, 1, "26", "D3", "D3", "1D3")
    net = li.Network(SWITCHES, PORTS + [extra])
    evidence = [SIG_A, SIG_B, ev(1, 14, "fore-signalling", {"address": "10.0.0.2"})]
    assert li.infer(net, evidence, []).candidates == []
