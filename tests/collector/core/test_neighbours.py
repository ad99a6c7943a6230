"""Neighbour claims from walked tables (collector/core/neighbours.py): pure, no agent."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from collector.core.names import interface_key, label_matches_name, strip_board
from collector.core.neighbours import lldp_local_port, parse_neighbours
from collector.core.profiles import object_by_name


@dataclass
class P:
    key: str
    name: str
    label: str = ""
    description: str = ""
    if_index: int | None = None


def walk(**columns) -> dict:
    return {object_by_name(name).oid: rows for name, rows in columns.items()}


PORTS = [P("1", "Gi1/0/1", "uplink", "GigabitEthernet1/0/1", 1), P("2", "Gi1/0/2", "", "GigabitEthernet1/0/2", 2),
         P("543", "ge-0/0/1", "Connect to core", "ge-0/0/1", 543)]


@pytest.mark.parametrize("num, loc, bridge, want, why", [
    # lldpLocPortTable: an interface name in any spelling
    (7, {7: (5, b"GigabitEthernet 1/0/2", "")}, {}, "2", ""),
    (7, {7: (5, b"Gi1/0/1\x00\x00", "")}, {}, "1", ""),
    # an alias
    (7, {7: (1, b"uplink", "")}, {}, "1", ""),
    # a local id that is the number itself, where that ifIndex exists (juniper)
    (543, {543: (7, b"543", "")}, {}, "543", ""),
    # a local id that is some other number: not an ifIndex by any rule, only its description helps
    (9, {9: (7, b"17", "Connect to core")}, {}, "543", ""),
    (9, {9: (7, b"17", "")}, {}, None, "lldpLocPortTable row names no port"),
    # no row: the bridge port table (an H3C)
    (24, {}, {24: 2}, "2", ""),
    (24, {}, {}, None, "local port number in neither lldpLocPortTable nor dot1dBasePortIfIndex"),
    # never the number taken as an ifIndex without a rule saying so
    (2, {}, {}, None, "local port number in neither lldpLocPortTable nor dot1dBasePortIfIndex"),
])
def test_lldp_local_port_by_stated_rules_only(num, loc, bridge, want, why):
    port, reason = lldp_local_port(num, loc, bridge, PORTS)
    assert (port.key if port else None) == want and reason == why


def test_lldp_claims_identity_and_unmatched_rows_are_counted():
    mac = bytes.fromhex("a8d0e5f7b7c0")
    w = walk(
        lldpLocPortIdSubtype={(1,): 5, (2,): 5}, lldpLocPortId={(1,): b"Gi1/0/1", (2,): b"Gi1/0/2"},
        lldpLocPortDesc={(1,): b"", (2,): b""},
        lldpRemChassisIdSubtype={(0, 1, 1): 4, (0, 9, 1): 4}, lldpRemChassisId={(0, 1, 1): mac, (0, 9, 1): mac},
        lldpRemPortIdSubtype={(0, 1, 1): 7, (0, 9, 1): 5}, lldpRemPortId={(0, 1, 1): b"760", (0, 9, 1): b"xe-0/0/0"},
        lldpRemSysName={(0, 1, 1): b"re0-core-2", (0, 9, 1): b"x"},
        lldpRemManAddrIfSubtype={(0, 1, 1, 1, 4, 10, 1, 123, 2): 2})
    facts = parse_neighbours(w, {"lldpLocChassisIdSubtype": 4, "lldpLocChassisId": bytes.fromhex("001b2c000000"),
                                 "lldpLocSysName": b"sw1"}, PORTS)
    assert facts.identity.lldp_chassis == "4:001b2c000000" and facts.identity.lldp_sys_name == "sw1"
    assert facts.identity.lldp_port_ids == {"1": "5:Gi1/0/1", "2": "5:Gi1/0/2"}
    [claim] = facts.claims
    assert claim.kind == "lldp" and claim.port_key == "1"
    assert claim.far == {"chassis": "4:a8d0e5f7b7c0", "sys_name": "re0-core-2", "port_id": "7:760", "port_desc": "",
                         "addresses": ["10.1.123.2"]}
    assert "a8:d0:e5:f7:b7:c0" in claim.says
    assert facts.unmatched == {"LLDP neighbour on local port 9: local port number in neither lldpLocPortTable "
                               "nor dot1dBasePortIfIndex": 1}


def test_ilmi_fore_signalling_and_spans_topology():
    own = bytes.fromhex("f21a00017f000101")
    other = bytes.fromhex("f21a00027f000102")
    ports = [P("3", "A4", if_index=4), P("24", "D1", if_index=25)]
    w = walk(atmInterfaceMyNeighborIpAddress={(25,): "127.0.1.3", (4,): "0.0.0.0", (99,): "10.0.0.1"},
             atmInterfaceMyNeighborIfName={(25,): b"atm1/0/0"},
             sigPathRemoteIpAddress={(3, 0): "127.0.1.2", (24, 0): "0.0.0.0"}, sigPathRemoteAtmAddress={(3, 0): other},
             sigPathType={(3, 0): 2}, sigPathOperStatus={(3, 0): 1},
             linkCapacity={tuple(own) + tuple(other): 353207, tuple(other) + tuple(own): 353207})
    facts = parse_neighbours(w, {"atmAddress": own}, ports)
    kinds = {(c.kind, c.port_key): c.far for c in facts.claims}
    assert kinds == {("ilmi", "24"): {"address": "127.0.1.3", "port_name": "atm1/0/0"},
                     ("fore-signalling", "3"): {"address": "127.0.1.2", "atm_address": other.hex(), "nni": True},
                     ("fore-topology", None): {"atm_address": other.hex()}}       # only the links from itself
    assert facts.identity.atm_address == own.hex()
    assert facts.unmatched == {"ILMI neighbour on ifIndex 99: no such port": 1}


def test_names():
    assert strip_board("2A1") == "A1" and strip_board("1CTL") == "CTL" and strip_board("A1") == "A1"
    assert interface_key("Gi1/1/1") == interface_key("GigabitEthernet 1/1/1") == "gigabitethernet1/1/1"
    assert interface_key("Ten-GigabitEthernet1/0/28") == interface_key("Te1/0/28")
    assert interface_key("xe-3/1/1") != interface_key("xe-3/1/2")
    assert label_matches_name("asx200bx-b.ukans", "asx200bx-b.ukans.aai.net")
    assert not label_matches_name("asx200bx", "asx200bx-b.ukans.aai.net")


def test_name_index_finds_exactly_what_comparing_with_every_name_finds():
    from collector.core.names import NameIndex, label_matches_name

    names = ["merlin-atm.edc", "merlin-atm.edc.aai.net", "punx-atm.tioc.magic.net", "houdini.tioc", "ab",
             "Gamma.Example", "gamma", "host-0001.example", "host-0001.example.org", "x.y", "192.0.2.7",
             "houdini.tioc.aai.net", "merlin"]
    labels = ["merlin-atm.edc", "punx-atm.tioc.m", "houdini.tioc.", "HOUDINI.TIOC", "gamma.example", "gam",
              "host-0001", "host-0001.example", "ab", "x.y.z", "192.0.2.7", "merlin", "merlin-atm", "",
              " gamma.example.com ", "houdini.tioc.aai.net.x", "unrelated"]
    index = NameIndex((n, i) for i, n in enumerate(names))
    for label in labels:
        want = [i for i, n in enumerate(names) if label_matches_name(label, n)]
        assert sorted(index.matches(label)) == want, label
    assert sorted(index.matches("punx-atm.tioc.m")) == [2]         # FORE's 15-character truncation
