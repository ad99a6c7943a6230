"""collector/inventory/ports.py: names that stay unique, and references as operators type them."""
from __future__ import annotations

import pytest

from collector.inventory.models import Port, Switch
from collector.inventory.ports import PortLookupError, find_port, unique_names


@pytest.mark.parametrize("ports, expected", [
    ([("1", "eth0", 1), ("2", "eth1", 2)], {"1": "eth0", "2": "eth1"}),
    ([("1", "lo0", 1), ("16", "lo0", 16), ("2", "em0", 2)],
     {"1": "lo0 (ifIndex 1)", "16": "lo0 (ifIndex 16)", "2": "em0"}),
    ([("33", "A1", None), ("65", "A1", None)], {"33": "A1 (port 33)", "65": "A1 (port 65)"}),
    # a qualified name that another agent name already is: that one is qualified by its key too
    ([("1", "x", 1), ("2", "x", 2), ("3", "x (ifIndex 1)", 3)],
     {"1": "x (ifIndex 1) [1]", "2": "x (ifIndex 2)", "3": "x (ifIndex 1) [3]"}),
    ([("4160777152", "adsl", 4160777152)], {"4160777152": "adsl"}),
])
def test_unique_names(ports, expected):
    names = unique_names(ports)
    assert names == expected
    assert len(set(names.values())) == len(names)
    assert unique_names(reversed(ports)) == names          # the order of discovery does not matter


@pytest.fixture
def sw(db):
    s = Switch.objects.create(name="r1", address="127.0.0.1", community="x")
    for key, agent, name, gone in (("1", "lo0", "lo0 (ifIndex 1)", False), ("16", "lo0", "lo0 (ifIndex 16)", False),
                                   ("2", "Gi1/0/1", "Gi1/0/1", False), ("3", "old0", "old0", True)):
        Port.objects.create(switch=s, key=key, if_index=int(key), agent_name=agent, name=name,
                            gone_at="2026-01-01T00:00Z" if gone else None)
    return s


@pytest.mark.parametrize("ref, key", [
    ("Gi1/0/1", "2"), ("gi1/0/1", "2"), ("lo0 (ifIndex 16)", "16"), ("ifindex:16", "16"), ("ifIndex 1", "1"),
    ("IFINDEX=2", "2"), ("16", "16"), ("old0", "3"),
])
def test_references(sw, ref, key):
    assert find_port(sw, ref).key == key


@pytest.mark.parametrize("ref, message", [
    ("lo0", "ambiguous: it names lo0 \\(ifIndex 1\\), lo0 \\(ifIndex 16\\)"),
    ("ifindex:99", "no port 'ifindex:99' on r1"),
    ("Gi1/0/2", "did you mean Gi1/0/1"),
])
def test_bad_references_name_the_candidates(sw, ref, message):
    with pytest.raises(PortLookupError, match=message):
        find_port(sw, ref)


def test_a_gone_port_is_not_found_when_only_present_ones_are_asked(sw):
    with pytest.raises(PortLookupError):
        find_port(sw, "old0", include_gone=False)


def test_the_database_refuses_two_ports_with_one_name(sw):
    from django.db import IntegrityError, connection, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET CONSTRAINTS port_unique_name IMMEDIATE")    # deferred: checked at commit
        Port.objects.create(switch=sw, key="9", name="Gi1/0/1")


@pytest.fixture
def fore(db):
    """A single-board ASX-200BX (names without the board digit) and an ASX-1000 with boards 1-3."""
    single = Switch.objects.create(name="asx200", address="127.0.0.1", community="x")
    for key, bnp in (("0", "1A1"), ("1", "1A2"), ("56", "1CTL")):
        Port.objects.create(switch=single, key=key, agent_name=bnp[1:], name=bnp[1:], description=bnp)
    multi = Switch.objects.create(name="asx1000", address="127.0.0.2", community="x")
    for key, bnp in (("0", "1A1"), ("1", "1A2"), ("64", "2A1"), ("128", "3A1"), ("129", "3B2")):
        Port.objects.create(switch=multi, key=key, agent_name=bnp, name=bnp, description=bnp)
    return single, multi


@pytest.mark.parametrize("switch, ref, name", [
    ("asx200", "A1", "A1"), ("asx200", "1A1", "A1"), ("asx200", "1CTL", "CTL"), ("asx200", "ctl", "CTL"),
    ("asx1000", "2A1", "2A1"), ("asx1000", "B2", "3B2"), ("asx1000", "A2", "1A2"), ("asx1000", "3b2", "3B2"),
])
def test_fore_ports_are_named_either_way_where_unambiguous(fore, switch, ref, name):
    assert find_port(Switch.objects.get(name=switch), ref).name == name


def test_an_ambiguous_fore_name_lists_its_candidates(fore):
    with pytest.raises(PortLookupError) as err:
        find_port(fore[1], "A1")
    assert err.value.ambiguous and err.value.candidates == ["1A1", "2A1", "3A1"]
    assert "ambiguous: it names 1A1, 2A1, 3A1" in str(err.value)
    with pytest.raises(PortLookupError) as err:
        find_port(fore[0], "2A1")                  # board 2 on a single-board switch: no such port
    assert not err.value.ambiguous
