"""Candidates: devices the network already names that are not switches of the inventory yet.

Two sources: neighbour claims that named no known switch (LLDP, ILMI, FORE signalling: the
inventory keeps them as LinkEvidence with no far switch), and addresses that answered a sweep
(SweepAnswer). Each candidate carries the poller group of whoever saw it (a neighbour of a switch
is reached from that switch's poller), its address when one was said (an LLDP neighbour often
gives only its name: the operator then types the address) and where it was seen.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from collector.inventory.models import LinkEvidence, Switch
from collector.poller.models import SweepAnswer

CANDIDATES_MAX = 500
CLAIM_KINDS = ("lldp", "ilmi", "fore-signalling")


@dataclass
class Candidate:
    address: str
    name: str
    poller_group: str
    seen: list[str] = field(default_factory=list)     # "asx200bx port A1: LLDP: neighbour ..." / "sweep ..."
    description: str = ""

    @property
    def key(self) -> str:
        return self.address or f"name:{self.name}"


def _address_of(far: dict) -> str:
    if far.get("address"):
        return str(far["address"])
    addresses = far.get("addresses") or []
    return str(addresses[0]) if addresses else ""


def _order(c: Candidate) -> tuple:
    try:
        ip = ipaddress.ip_address(c.address)
        return (0, ip.version, int(ip), c.name)
    except ValueError:
        return (1 if c.address else 2, 0, 0, c.address or c.name)


def candidates(limit: int = CANDIDATES_MAX) -> tuple[list[Candidate], int]:
    """(up to `limit` candidates, by address then name; how many there are in all)."""
    known_addresses = set(Switch.objects.values_list("address", flat=True))
    known_names = {n.lower() for n in Switch.objects.values_list("name", flat=True)}
    found: dict[str, Candidate] = {}
    claims = (LinkEvidence.objects.filter(far_switch__isnull=True, kind__in=CLAIM_KINDS)
              .values_list("far", "says", "switch__name", "switch__poller_group", "port__name")
              .order_by("switch__name", "port__name"))
    for far, says, switch, group, port in claims.iterator():
        address, name = _address_of(far), str(far.get("sys_name") or "")
        if address in known_addresses or (name and name.lower() in known_names) or not (address or name):
            continue
        c = found.setdefault(address or f"name:{name}", Candidate(address, name, group))
        c.name = c.name or name
        c.seen.append(f"{switch}{' port ' + port if port else ''}: {says}")
    for a in SweepAnswer.objects.order_by("address").values(
            "address", "sys_name", "sys_descr", "poller_group", "found_at", "credential_set__name"):
        if a["address"] in known_addresses:
            continue
        c = found.setdefault(a["address"], Candidate(a["address"], a["sys_name"], a["poller_group"]))
        c.name = c.name or a["sys_name"]
        c.description = a["sys_descr"][:200]
        by = f" with credential set {a['credential_set__name']!r}" if a["credential_set__name"] else ""
        c.seen.append(f"sweep of {a['found_at']:%Y-%m-%d %H:%M} UTC: answered{by}")
    ordered = sorted(found.values(), key=_order)
    return ordered[:limit], len(ordered)
