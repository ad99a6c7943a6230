"""Pure parsers: walked inventory columns -> a snapshot of ports, VPs, VCs and cross-connects.

One function per kind of device turns the columns discovery walked into plain dataclasses; no ORM,
no SNMP here, so every layout rule (FORE port names, capacities by port model, ATM-MIB
cross-connect directions) is testable on recorded walks.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from collector.core.facts import line_cell_rate
from collector.core.names import strip_board
from collector.core.profiles import object_by_name
from collector.core.snmp_types import INT_TYPES, Value

if TYPE_CHECKING:
    from collector.core.neighbours import NeighbourFacts

Walk = Mapping[str, Mapping[tuple[int, ...], Value]]

# The lookup tables below are keyed by int | None: they are read with num(value), None when the
# agent did not answer, which finds the default.
# FORE hwPortModel -> (name, line bit/s, max cells/s of payload) from the port's physical layer.
FORE_MODELS: dict[int | None, tuple[str, int | None, int | None]] = {
    1: ("TAXI-100", 100_000_000, 235_849), 2: ("TAXI-140", 140_000_000, 330_188),
    3: ("DS3", 44_736_000, 96_000), 4: ("OC3", 155_520_000, 353_207), 7: ("CTL", 80_000_000, 188_679),
    8: ("OC12", 622_080_000, 1_412_830), 17: ("E3", 34_368_000, 80_000),
}
FORE_STATUS: dict[int | None, str] = {1: "up", 2: "down", 3: "up"}
FORE_ADMIN_STATUS: dict[int | None, str] = {2: "down", 3: "up"}
FORE_CHANR_STATUS: dict[int | None, str] = {1: "up", 2: "down"}   # chanrStatus (unknown: up)
IF_STATUS: dict[int | None, str] = {
    1: "up", 2: "down", 3: "testing", 4: "unknown", 5: "dormant", 6: "notPresent", 7: "lowerLayerDown",
}
# ifType -> port type (other ifTypes show their number).
IF_TYPES: dict[int | None, str] = {37: "atm", 49: "aal5", 39: "sonet", 30: "ds3", 6: "ethernet", 24: "loopback"}
# chanServCat: the order of ATM Forum TM 4.0 categories without ATM-TC-MIB's other(1). An
# assumption (no Fore-Switch-MIB text at hand), shared with simnet; check against a real agent.
FORE_SERVICE: dict[int | None, str] = {1: "CBR", 2: "rtVBR", 3: "nrtVBR", 4: "ABR", 5: "UBR"}
AAL_TYPES: dict[int | None, str] = {1: "aal1", 2: "aal34", 3: "aal5", 4: "other", 5: "unknown", 6: "aal2"}


@dataclass
class PortInfo:
    key: str
    name: str
    label: str = ""
    description: str = ""
    port_type: str = ""
    is_atm: bool = False
    if_index: int | None = None
    speed_bps: int | None = None
    capacity_cells: int | None = None
    admin_status: str = ""
    oper_status: str = ""
    state_age_cs: int | None = None      # how long it has been in its state, 1/100 s
    max_bw_in: int | None = None
    alloc_bw_in: int | None = None
    max_bw_out: int | None = None
    alloc_bw_out: int | None = None
    max_vpcs: int | None = None
    max_vccs: int | None = None
    neighbor_address: str = ""
    neighbor_ifname: str = ""
    hw_index: str = ""                   # FORE hwPortTable index "board.module.port" (counters of entity hwport)


@dataclass
class PathInfo:
    port_key: str
    vpi: int
    status: str = ""
    alloc_bw: int | None = None
    max_bw: int | None = None
    age_cs: int | None = None


@dataclass
class ChannelInfo:
    port_key: str
    vpi: int
    vci: int
    status: str = ""
    service_category: str = ""
    alloc_bw: int | None = None
    aal_type: str = ""
    age_cs: int | None = None


@dataclass
class CrossConnectInfo:
    kind: str
    in_port: str
    in_vpi: int
    in_vci: int | None
    out_port: str
    out_vpi: int
    out_vci: int | None
    name: str = ""
    status: str = ""
    age_cs: int | None = None


class SnapshotFacts(TypedDict, total=False):
    """What a discovery learned beside the tables' rows."""
    if_last_change: dict[str, int | None]   # ifLastChange (centiseconds of uptime) by port key
    walked: set[str]                         # the discovery columns that were walked (set by discovery)


@dataclass
class Snapshot:
    ports: list[PortInfo] = field(default_factory=list)
    paths: list[PathInfo] = field(default_factory=list)
    channels: list[ChannelInfo] = field(default_factory=list)
    cross_connects: list[CrossConnectInfo] = field(default_factory=list)
    facts: SnapshotFacts = field(default_factory=SnapshotFacts)
    neighbours: NeighbourFacts | None = None     # set by discovery (collector/core/neighbours.py)


def column(walk: Walk, name: str) -> Mapping[tuple[int, ...], Value]:
    return walk.get(object_by_name(name).oid) or {}


def text(value: Value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip("\x00 ").strip()
    return "" if value is None else str(value)


def num(value: Value) -> int | None:
    """An integer value as a plain int (a Counter64 too); None for anything else."""
    return int(value) if isinstance(value, int) and type(value) in INT_TYPES else None


def fore_port_name(hw_name: str, model: int | None, port_number: int, multi_board: bool = False) -> str:
    """The port's name from its BNP (hwPortName, "1A1": board 1, network module A, port 1).

    A single-board switch (ASX-200BX) implies the board digit: "1A1" -> "A1", "1CTL" -> "CTL", the
    names the seed's tables use. Where the switch has more than one board (ASX-1000, ASX-4000),
    1A1, 2A1 and 3A1 are different ports: the full BNP is the name ("2A1", "2CTL").
    """
    if multi_board and hw_name:
        return hw_name
    if model == 7:
        return "CTL"
    return strip_board(hw_name) or hw_name or str(port_number)


def parse_fore(walk: Walk) -> Snapshot:
    snap = Snapshot()
    hw_by_slot: dict[tuple[int | None, int | None], list[tuple[int, tuple[int, ...]]]] = {}
    for index in column(walk, "hwPortName") or column(walk, "hwPortModel"):
        if len(index) == 3:
            hw_by_slot.setdefault((index[0], index[1]), []).append((index[2], index))
    port_numbers = sorted(idx[0] for idx in column(walk, "portOperStatus") if len(idx) == 1)
    # Boards are the first index of hwPortTable: more than one, and the board digit is part of the name.
    multi_board = len({board for board, _ in hw_by_slot}) > 1
    all_hw = sorted(index for ports in hw_by_slot.values() for _, index in ports)
    by_slot: dict[tuple[int | None, int | None], list[int]] = {}
    for pn in port_numbers:
        slot = (num(column(walk, "portHwBoard").get((pn,))), num(column(walk, "portHwModule").get((pn,))))
        by_slot.setdefault(slot, []).append(pn)
    for pn in port_numbers:
        idx: tuple[int, ...] = (pn,)
        # portTable and hwPortTable describe the same ports keyed differently; portHwBoard and
        # portHwModule name the module, and ports keep their order within it. (hwPortIfIndex is
        # the port's ifIndex, whose relation to portNumber differs between releases.)
        slot = (num(column(walk, "portHwBoard").get(idx)), num(column(walk, "portHwModule").get(idx)))
        if slot in hw_by_slot:
            hw_ports = sorted(hw_by_slot[slot])
            pos = by_slot[slot].index(pn)
            hw = hw_ports[pos][1] if pos < len(hw_ports) else None
        else:
            # An agent without portHwBoard/Module: both tables list the same ports in order.
            hw = all_hw[port_numbers.index(pn)] if len(all_hw) == len(port_numbers) else None
        model = num(column(walk, "hwPortModel").get(hw)) if hw else None
        model_name, line_bps, cells = FORE_MODELS.get(model, ("", None, None))
        max_in = num(column(walk, "portMaxBandwidthIn").get(idx))
        bnp = text(column(walk, "hwPortName").get(hw)) if hw else ""
        snap.ports.append(PortInfo(
            key=str(pn), name=fore_port_name(bnp, model, pn, multi_board), description=bnp,
            if_index=num(column(walk, "hwPortIfIndex").get(hw)) if hw else None,
            hw_index=".".join(map(str, hw)) if hw else "",
            label=text(column(walk, "portName").get(idx)), port_type=model_name, is_atm=True,
            speed_bps=line_bps, capacity_cells=cells or max_in or None,
            admin_status=FORE_ADMIN_STATUS.get(num(column(walk, "portAdminStatus").get(idx)), ""),
            oper_status=FORE_STATUS.get(num(column(walk, "portOperStatus").get(idx)), ""),
            state_age_cs=num(column(walk, "portTime").get(idx)),
            max_bw_in=max_in, alloc_bw_in=num(column(walk, "portAllocBandwidthIn").get(idx)),
            max_bw_out=num(column(walk, "portMaxBandwidthOut").get(idx)),
            alloc_bw_out=num(column(walk, "portAllocBandwidthOut").get(idx))))
    for (port, vpi), up in column(walk, "pathUptime").items():
        snap.paths.append(PathInfo(str(port), vpi, "up", num(column(walk, "pathAllocBandwidth").get((port, vpi))),
                                   num(column(walk, "pathMaxBandwidth").get((port, vpi))), num(up)))
    for (port, vpi, vci), up in column(walk, "chanUptime").items():
        idx = (port, vpi, vci)
        snap.channels.append(ChannelInfo(
            str(port), vpi, vci, "up", FORE_SERVICE.get(num(column(walk, "chanServCat").get(idx)), ""),
            num(column(walk, "chanAllocBandwidth").get(idx)), "", num(up)))
    for idx, up in column(walk, "pathrUptime").items():
        if len(idx) == 4:
            snap.cross_connects.append(CrossConnectInfo(
                "vp", str(idx[0]), idx[1], None, str(idx[2]), idx[3], None,
                text(column(walk, "pathrName").get(idx)), "up", num(up)))
    for idx, status in column(walk, "chanrStatus").items():
        if len(idx) == 6:
            snap.cross_connects.append(CrossConnectInfo(
                "vc", str(idx[0]), idx[1], idx[2], str(idx[3]), idx[4], idx[5],
                text(column(walk, "chanrName").get(idx)), FORE_CHANR_STATUS.get(num(status), "up")))
    return snap


IF_TABLE_COLUMNS = ("ifDescr", "ifType", "ifSpeed", "ifAdminStatus", "ifOperStatus", "ifLastChange")


def parse_interfaces(walk: Walk) -> Snapshot:
    """IF-MIB ports (all profiles but FORE), with ATM-MIB interface configuration where answered."""
    snap = Snapshot()
    last_change: dict[str, int | None] = {}
    # Every ifTable row is a port, whichever of its columns the agent fills in (some leave out
    # ifDescr or ifType on a row); the index is the OID's, an unsigned 32-bit value.
    rows = sorted({idx for name in IF_TABLE_COLUMNS for idx in column(walk, name) if len(idx) == 1})
    for idx in rows:
        (if_index,) = idx
        descr = column(walk, "ifDescr").get(idx)
        if_type = num(column(walk, "ifType").get(idx))
        high = num(column(walk, "ifHighSpeed").get(idx))
        speed = num(column(walk, "ifSpeed").get(idx))
        # ifSpeed saturates at 2**32-1 (4.29 Gb/s): ifHighSpeed (Mb/s) is right above that.
        speed_bps = high * 1_000_000 if high and (speed is None or speed >= 4_294_967_295) else speed
        is_atm = if_type in (37, 49)
        cells = None
        if is_atm and speed_bps:
            cells = line_cell_rate(speed_bps)
        neighbor = column(walk, "atmInterfaceMyNeighborIpAddress").get(idx)
        snap.ports.append(PortInfo(
            key=str(if_index), if_index=if_index,
            name=text(column(walk, "ifName").get(idx)) or text(descr) or str(if_index),
            label=text(column(walk, "ifAlias").get(idx)), description=text(descr),
            port_type=IF_TYPES.get(if_type, str(if_type or "")),
            is_atm=is_atm, speed_bps=speed_bps or None, capacity_cells=cells,
            admin_status=IF_STATUS.get(num(column(walk, "ifAdminStatus").get(idx)), ""),
            oper_status=IF_STATUS.get(num(column(walk, "ifOperStatus").get(idx)), ""),
            state_age_cs=None,
            max_vpcs=num(column(walk, "atmInterfaceMaxVpcs").get(idx)),
            max_vccs=num(column(walk, "atmInterfaceMaxVccs").get(idx)),
            neighbor_address=neighbor if isinstance(neighbor, str) and neighbor != "0.0.0.0" else "",
            neighbor_ifname=text(column(walk, "atmInterfaceMyNeighborIfName").get(idx))))
        last_change[str(if_index)] = num(column(walk, "ifLastChange").get(idx))
    if last_change:
        snap.facts["if_last_change"] = last_change
    return snap


def parse_atm2(walk: Walk) -> Snapshot:
    snap = parse_interfaces(walk)
    for (if_index, vpi), oper in column(walk, "atmVplOperStatus").items():
        snap.paths.append(PathInfo(str(if_index), vpi, IF_STATUS.get(num(oper), "")))
    for (if_index, vpi, vci), oper in column(walk, "atmVclOperStatus").items():
        snap.channels.append(ChannelInfo(
            str(if_index), vpi, vci, IF_STATUS.get(num(oper), ""),
            aal_type=AAL_TYPES.get(num(column(walk, "atmVccAalType").get((if_index, vpi, vci))), "")))
    for kind, prefix, width in (("vp", "atmVpCrossConnect", 5), ("vc", "atmVcCrossConnect", 7)):
        for idx, l2h in column(walk, f"{prefix}L2HOperStatus").items():
            if len(idx) != width:
                continue
            h2l = column(walk, f"{prefix}H2LOperStatus").get(idx)
            half = (width - 1) // 2
            low, high = idx[1:1 + half], idx[1 + half:]
            low_vci = low[2] if kind == "vc" else None
            high_vci = high[2] if kind == "vc" else None
            # An ATM-MIB cross-connect is bidirectional: one row per direction of cell flow.
            snap.cross_connects.append(CrossConnectInfo(kind, str(low[0]), low[1], low_vci, str(high[0]), high[1],
                                                        high_vci, status=IF_STATUS.get(num(l2h), "")))
            snap.cross_connects.append(CrossConnectInfo(kind, str(high[0]), high[1], high_vci, str(low[0]), low[1],
                                                        low_vci, status=IF_STATUS.get(num(h2l), "")))
    return snap


# Parser by the name a profile's discovery.parser gives (profiles.DISCOVERY_PARSERS); what each
# walks is the profile's discovery.columns.
PARSERS = {"fore": parse_fore, "atm2": parse_atm2, "interfaces": parse_interfaces}

# The columns each parser builds its ports from first (if they cannot be walked, there is no port
# list), and the columns each port field comes from: when a column could not be walked,
# discovery keeps the field's stored value instead of overwriting it with a blank.
PORT_TABLE = {"fore": "portOperStatus", "interfaces": "ifDescr", "atm2": "ifDescr"}
_IF_FIELDS = {
    "agent_name": ("ifName", "ifDescr"), "label": ("ifAlias",), "description": ("ifDescr",),
    "port_type": ("ifType",), "is_atm": ("ifType",), "speed_bps": ("ifSpeed", "ifHighSpeed"),
    "capacity_cells": ("ifSpeed", "ifHighSpeed", "ifType"), "admin_status": ("ifAdminStatus",),
    "oper_status": ("ifOperStatus",), "status_since": ("ifLastChange",),
    "max_vpcs": ("atmInterfaceMaxVpcs",), "max_vccs": ("atmInterfaceMaxVccs",),
    "neighbor_address": ("atmInterfaceMyNeighborIpAddress",), "neighbor_ifname": ("atmInterfaceMyNeighborIfName",),
}
PORT_FIELD_SOURCES: dict[str, dict[str, tuple[str, ...]]] = {
    "interfaces": _IF_FIELDS, "atm2": _IF_FIELDS,
    "fore": {
        "agent_name": ("hwPortName", "hwPortModel", "portHwBoard", "portHwModule"), "label": ("portName",),
        "description": ("hwPortName",), "if_index": ("hwPortIfIndex",),
        "hw_index": ("hwPortName", "hwPortModel", "portHwBoard", "portHwModule"),
        "port_type": ("hwPortModel",), "speed_bps": ("hwPortModel",),
        "capacity_cells": ("hwPortModel", "portMaxBandwidthIn"), "admin_status": ("portAdminStatus",),
        "oper_status": ("portOperStatus",), "status_since": ("portTime",),
        "max_bw_in": ("portMaxBandwidthIn",), "alloc_bw_in": ("portAllocBandwidthIn",),
        "max_bw_out": ("portMaxBandwidthOut",), "alloc_bw_out": ("portAllocBandwidthOut",),
    },
}
