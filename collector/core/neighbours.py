"""What an agent says about its neighbours, as claims: pure parsing, no ORM, no SNMP.

Discovery walks the neighbour tables of the profile (ATM-MIB ILMI neighbour, FORE signalling
paths and SPANS topology, LLDP-MIB) beside the port tables; this module turns the walk into

* an `Identity`: how neighbours may name this switch (FORE SPANS address, LLDP chassis id and
  system name, the LLDP port id of each port);
* `Claim`s: "my port P is cabled to something that calls itself X (and its port Y)", as the agent
  said it, with the reporting port matched to a port of the snapshot. Which inventory switch and
  port X and Y are is decided later, by the inventory (collector/inventory/linkinfer.py), because
  the far switch may be discovered after this one.

Real agents number LLDP ports their own way (lldpRemLocalPortNum is an ifIndex, a bridge port,
or a number only lldpLocPortTable explains). A reporting port is matched only by a stated rule
(`lldp_local_port`); a row whose port cannot be matched is counted with its reason in
`NeighbourFacts.unmatched`, never guessed.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from collector.core.names import interface_key
from collector.core.profiles import object_by_name
from collector.core.snmp_types import INT_TYPES, Value

Walk = Mapping[str, Mapping[tuple[int, ...], Value]]

# LLDP-MIB LldpChassisIdSubtype / LldpPortIdSubtype values this module reads.
CHASSIS_MAC = 4
PORT_ALIAS, PORT_MAC, PORT_NAME, PORT_LOCAL = 1, 3, 5, 7
NNI = 2                      # FORE sigPathType nni(2): the signalling path leads to another switch
SIG_DOWN = 2                 # sigPathOperStatus down(2)


class PortLike(Protocol):
    key: str
    name: str
    label: str
    description: str
    if_index: int | None


@dataclass(frozen=True)
class Claim:
    kind: str                  # ilmi | fore-signalling | fore-topology | lldp
    port_key: str | None       # the reporting port (agent index); None: about the switch as a whole
    says: str                  # in words, as the agent said it
    far: dict                  # what names the far end: address, atm_address, chassis, sys_name, port_id ...


@dataclass
class Identity:
    atm_address: str = ""                                   # FORE SPANS address, hex
    lldp_chassis: str = ""                                  # "<subtype>:<hex>"
    lldp_sys_name: str = ""
    lldp_port_ids: dict[str, str] = field(default_factory=dict)   # port key -> "<subtype>:<id>"

    def as_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v}


@dataclass
class NeighbourFacts:
    identity: Identity = field(default_factory=Identity)
    claims: list[Claim] = field(default_factory=list)
    unmatched: Counter = field(default_factory=Counter)     # reason -> rows not turned into claims


def column(walk: Walk, name: str) -> Mapping[tuple[int, ...], Value]:
    return walk.get(object_by_name(name).oid) or {}


def _num(value: Value) -> int | None:
    return int(value) if type(value) in INT_TYPES else None      # type: ignore[arg-type]


def as_text(value: Value) -> str:
    """Printable text of an OCTET STRING (NUL padding dropped), else "" for binary values."""
    if isinstance(value, bytes):
        raw = value.rstrip(b"\x00")
        try:
            decoded = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ""
        return decoded.strip() if decoded.isprintable() else ""
    return "" if value is None else str(value).strip()


def as_hex(value: Value) -> str:
    if isinstance(value, bytes):
        return value.hex()
    return as_text(value).encode().hex()


def mac_text(hex_value: str) -> str:
    return ":".join(hex_value[i:i + 2] for i in range(0, len(hex_value), 2))


def lldp_id(subtype: int | None, value: Value) -> str:
    """An LLDP chassis or port id as "<subtype>:<value>": MAC addresses in hex, names as text."""
    if subtype in (CHASSIS_MAC, PORT_MAC) and isinstance(value, bytes) and len(value) == 6:
        return f"{subtype}:{value.hex()}"
    text = as_text(value)
    return f"{subtype}:{text}" if text else f"{subtype}:{as_hex(value)}"


def _port_by_names(ports: Sequence[PortLike], text: str) -> list[PortLike]:
    key = interface_key(text)
    if not key:
        return []
    return [p for p in ports if key in {interface_key(p.name), interface_key(p.description)}]


def lldp_local_port(num: int, loc: Mapping[int, tuple[int | None, Value, str]], bridge: Mapping[int, int],
                    ports: Sequence[PortLike]) -> tuple[PortLike | None, str]:
    """The port an LLDP local port number stands for, by these rules in order, or (None, why):

    1. its lldpLocPortTable row: an interfaceName id names one port (any spelling); an
       interfaceAlias id equals one port's alias; a local id that is the number itself, where an
       ifIndex of that number exists (LLDP-MIB: a system that is not a bridge numbers ports by
       ifIndex); else its lldpLocPortDesc equals one port's alias or description;
    2. BRIDGE-MIB dot1dBasePortIfIndex (on a bridge the LLDP port number is the bridge port);
    Anything else (no row, no bridge port, several or no ports) is not matched.
    """
    by_ifindex = {p.if_index: p for p in ports if p.if_index is not None}
    row = loc.get(num)
    if row is not None:
        subtype, value, desc = row
        text = as_text(value)
        found: list[PortLike] = []
        if subtype == PORT_NAME:
            found = _port_by_names(ports, text)
        elif subtype == PORT_ALIAS and text:
            found = [p for p in ports if p.label == text]
        elif subtype == PORT_LOCAL and text == str(num) and num in by_ifindex:
            found = [by_ifindex[num]]
        if not found and desc.strip():
            found = [p for p in ports if desc.strip() in (p.label, p.description)]
        if len(found) == 1:
            return found[0], ""
        if len(found) > 1:
            return None, "lldpLocPortTable names several ports"
    if num in bridge and bridge[num] in by_ifindex:
        return by_ifindex[bridge[num]], ""
    if row is not None:
        return None, "lldpLocPortTable row names no port"
    return None, "local port number in neither lldpLocPortTable nor dot1dBasePortIfIndex"


def _lldp(walk: Walk, scalars: Mapping[str, Value], ports: Sequence[PortLike], facts: NeighbourFacts) -> None:
    ident = facts.identity
    chassis = scalars.get("lldpLocChassisId")
    if chassis not in (None, b""):
        ident.lldp_chassis = lldp_id(_num(scalars.get("lldpLocChassisIdSubtype")), chassis)
    ident.lldp_sys_name = as_text(scalars.get("lldpLocSysName"))
    loc = {idx[0]: (_num(column(walk, "lldpLocPortIdSubtype").get(idx)), value,
                    as_text(column(walk, "lldpLocPortDesc").get(idx)))
           for idx, value in column(walk, "lldpLocPortId").items() if len(idx) == 1}
    bridge = {idx[0]: v for idx, v in ((i, _num(v)) for i, v in column(walk, "dot1dBasePortIfIndex").items())
              if len(idx) == 1 and v is not None}
    for num, (subtype, value, _desc) in loc.items():
        port, _ = lldp_local_port(num, loc, bridge, ports)
        if port is not None:
            ident.lldp_port_ids[port.key] = lldp_id(subtype, value)
    # lldpRemManAddrTable, where a profile walks it (the built-in ones do not: a Ruijie N18010 answers
    # it out of order, which stops the walk, and the chassis id and system name identify as well).
    mgmt: dict[tuple[int, ...], list[str]] = {}
    for idx in column(walk, "lldpRemManAddrIfSubtype"):
        # index: time mark, local port, remote index, address subtype, length-prefixed address
        if len(idx) == 9 and idx[3] == 1 and idx[4] == 4:
            mgmt.setdefault(idx[:3], []).append(".".join(str(b) for b in idx[5:9]))
    for idx, chassis_value in column(walk, "lldpRemChassisId").items():
        if len(idx) != 3:
            facts.unmatched["lldpRemTable row with a malformed index"] += 1
            continue
        port, why = lldp_local_port(idx[1], loc, bridge, ports)
        if port is None:
            facts.unmatched[f"LLDP neighbour on local port {idx[1]}: {why}"] += 1
            continue
        chassis_id = lldp_id(_num(column(walk, "lldpRemChassisIdSubtype").get(idx)), chassis_value)
        port_subtype = _num(column(walk, "lldpRemPortIdSubtype").get(idx))
        port_id = lldp_id(port_subtype, column(walk, "lldpRemPortId").get(idx))
        sys_name = as_text(column(walk, "lldpRemSysName").get(idx))
        far = {"chassis": chassis_id, "sys_name": sys_name, "port_id": port_id,
               "port_desc": as_text(column(walk, "lldpRemPortDesc").get(idx)), "addresses": mgmt.get(idx, [])}
        shown_chassis = mac_text(chassis_id[2:]) if chassis_id.startswith(f"{CHASSIS_MAC}:") else chassis_id[2:]
        says = (f"LLDP: neighbour {sys_name or '(no name)'} (chassis {shown_chassis}) port {port_id.split(':', 1)[1]}"
                + (f", management {', '.join(far['addresses'])}" if far["addresses"] else ""))
        facts.claims.append(Claim("lldp", port.key, says, far))


def _ilmi(walk: Walk, ports: Sequence[PortLike], facts: NeighbourFacts) -> None:
    by_ifindex = {p.if_index: p for p in ports if p.if_index is not None}
    names = column(walk, "atmInterfaceMyNeighborIfName")
    for idx, address in column(walk, "atmInterfaceMyNeighborIpAddress").items():
        ifname = as_text(names.get(idx))
        if not isinstance(address, str) or address == "0.0.0.0" or len(idx) != 1:
            continue
        port = by_ifindex.get(idx[0])
        if port is None:
            facts.unmatched[f"ILMI neighbour on ifIndex {idx[0]}: no such port"] += 1
            continue
        facts.claims.append(Claim("ilmi", port.key, f"ILMI: neighbour {address} interface {ifname or '?'}",
                                  {"address": address, "port_name": ifname}))


def _fore(walk: Walk, scalars: Mapping[str, Value], ports: Sequence[PortLike], facts: NeighbourFacts) -> None:
    own = scalars.get("atmAddress")
    if isinstance(own, bytes) and own.strip(b"\x00"):
        facts.identity.atm_address = own.hex()
    keys = {p.key for p in ports}
    for idx, ip in column(walk, "sigPathRemoteIpAddress").items():
        if len(idx) != 2 or _num(column(walk, "sigPathOperStatus").get(idx)) == SIG_DOWN:
            continue
        atm = column(walk, "sigPathRemoteAtmAddress").get(idx)
        atm_hex = atm.hex() if isinstance(atm, bytes) and atm.strip(b"\x00") else ""
        ip_text = ip if isinstance(ip, str) and ip != "0.0.0.0" else ""
        if not ip_text and not atm_hex:
            continue
        if str(idx[0]) not in keys:
            facts.unmatched[f"signalling path on port {idx[0]}: no such port"] += 1
            continue
        nni = _num(column(walk, "sigPathType").get(idx)) == NNI
        facts.claims.append(Claim(
            "fore-signalling", str(idx[0]),
            f"SPANS signalling path VPI {idx[1]} ({'NNI' if nni else 'UNI'}) to {ip_text or atm_hex}",
            {"address": ip_text, "atm_address": atm_hex, "nni": nni}))
    mine = facts.identity.atm_address
    for idx in column(walk, "linkCapacity"):
        src, dst = _spans_pair(idx)
        if mine and src == mine and dst:
            facts.claims.append(Claim("fore-topology", None, f"SPANS topology: a link to switch {dst}",
                                      {"atm_address": dst}))


def _spans_pair(idx: tuple[int, ...]) -> tuple[str, str]:
    """linkTable's index (linkSrc, linkDest), two 8-octet SpansAddress values: fixed size, no length
    prefix; an agent that prefixes the length (8) is read too."""
    if len(idx) == 16:
        a, b = idx[:8], idx[8:]
    elif len(idx) == 18 and idx[0] == 8 and idx[9] == 8:
        a, b = idx[1:9], idx[10:]
    else:
        return "", ""
    return bytes(a).hex(), bytes(b).hex()


def parse_neighbours(walk: Walk, scalars: Mapping[str, Value], ports: Iterable[PortLike]) -> NeighbourFacts:
    """Identity and claims from whatever neighbour tables the profile walked (absent tables: none)."""
    facts = NeighbourFacts()
    port_list = list(ports)
    _ilmi(walk, port_list, facts)
    _fore(walk, scalars, port_list, facts)
    _lldp(walk, scalars, port_list, facts)
    return facts
