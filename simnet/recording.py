"""Pure functions: simulated switch -> snmprec records / text, and manifest series.

snmprec line format (snmpsim 1.2.2, `snmpsim/grammar/snmprec.py`): ``OID|TAG|VALUE`` with
tags 2 Integer32, 4 OctetString (``4x`` = hex value), 6 OID, 64 IpAddress, 65 Counter32,
66 Gauge32, 67 TimeTicks, 70 Counter64.  Growing values use the numeric variation module
(``snmpsim/variation/numeric.py``)::

    OID|65:numeric|atime=1,rate=R,offset=-R*T0,initial=I,wrap=1,max=4294967296

With ``atime`` the module uses absolute wall-clock time t (time.time() in the agent), so
the served value is, in float arithmetic exactly as snmpsim evaluates it::

    v = (t * R) + float(-R*T0)       # function = identity of t*rate, then += offset
    v = v + float(I)                 # += initial
    if v > max: v = v % max          # wrap=1 (min is 0); max = 2**width
    value = int(v)                   # pyasn1 Counter32/Counter64/TimeTicks(float) truncates

i.e. value(t) = (I + R*(t - T0)) mod 2**width, independent of when the agent process
started (without ``atime`` the time base would be the agent's module import time, which
is not knowable from outside).  `simnet.manifest.expected_value` implements this.
Series with rate 0 are written as static values (``OID|65|I``).
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass

from . import model as m

TAG_INTEGER = 2
TAG_OCTETS = 4
TAG_OID = 6
TAG_IPADDRESS = 64
TAG_COUNTER32 = 65
TAG_GAUGE32 = 66
TAG_TIMETICKS = 67
TAG_COUNTER64 = 70

SYNTAX = {TAG_COUNTER32: ("Counter32", 32), TAG_COUNTER64: ("Counter64", 64),
          TAG_TIMETICKS: ("TimeTicks", 32)}

# Placed after every table of every recording, so a GETNEXT/GETBULK past the last real
# object has a successor inside the file.
SENTINEL_OID = (1, 3, 6, 1, 4, 1, 32473, 999, 0)
SENTINEL_VALUE = "end-of-simnet-recording"


@dataclass(frozen=True)
class Series:
    """A value that grows linearly with time (counter or uptime)."""
    initial: int
    rate: int
    direction: str | None = None        # "in" | "out" | None
    labels: tuple = ()                  # (("port", "A1"), ...) for humans and tests


@dataclass(frozen=True)
class Record:
    oid: tuple
    tag: int
    value: object = None                # static value (ignored when series is set)
    name: str = ""                      # MIB object name
    column: tuple = ()                  # OID of the column/scalar (oid = column + index)
    series: Series | None = None

    @property
    def index(self) -> tuple:
        return self.oid[len(self.column):]


def oid_t(dotted: str) -> tuple:
    return tuple(int(x) for x in dotted.strip(".").split("."))


def oid_s(oid: Iterable[int]) -> str:
    return ".".join(str(x) for x in oid)


class _Builder:
    """Collects records; `fresh` = just rebooted (every series and timestamp starts at 0)."""

    def __init__(self, fresh: bool):
        self.fresh = fresh
        self.records: list[Record] = []

    def static(self, column: str | tuple, index: tuple, tag: int, value, name: str):
        col = oid_t(column) if isinstance(column, str) else tuple(column)
        self.records.append(Record(col + tuple(index), tag, value, name, col))

    def stamp(self, column, index, ticks: int, name: str):
        """A static TimeTicks timestamp (TimeStamp / ifLastChange): 0 after a reboot."""
        self.static(column, index, TAG_TIMETICKS, 0 if self.fresh else ticks, name)

    def grow(self, column, index, tag: int, initial: int, rate: int, name: str,
             direction: str | None = None, **labels):
        col = oid_t(column) if isinstance(column, str) else tuple(column)
        width = SYNTAX[tag][1]
        init = 0 if self.fresh else initial % (2 ** width)
        s = Series(init, rate, direction, tuple(sorted(labels.items())))
        self.records.append(Record(col + tuple(index), tag, None, name, col, s))

    def uptime(self, column, index, ticks: int, name: str, **labels):
        self.grow(column, index, TAG_TIMETICKS, ticks, m.TICKS_PER_SECOND, name, **labels)


def _text(b: _Builder, column, index, value: str, name: str):
    b.static(column, index, TAG_OCTETS, value, name)


def _int(b: _Builder, column, index, value: int, name: str):
    b.static(column, index, TAG_INTEGER, int(value), name)


# --------------------------------------------------------------------------- system group

SYSTEM = "1.3.6.1.2.1.1"


def _system(b: _Builder, sw) -> None:
    _text(b, SYSTEM + ".1", (0,), sw.sys_descr, "sysDescr")
    b.static(SYSTEM + ".2", (0,), TAG_OID, sw.sys_object_id, "sysObjectID")
    b.uptime(SYSTEM + ".3", (0,), sw.uptime_ticks, "sysUpTime")
    _text(b, SYSTEM + ".4", (0,), "noc@cellar.invalid", "sysContact")
    _text(b, SYSTEM + ".5", (0,), sw.sys_name, "sysName")
    _text(b, SYSTEM + ".6", (0,), sw.sys_location, "sysLocation")
    _int(b, SYSTEM + ".7", (0,), 2 if sw.profile != "if-mib" else 6, "sysServices")


# --------------------------------------------------------------------------- FORE

FORE_SW = "1.3.6.1.4.1.326.2.2.2.1"
FORE_SCALAR = FORE_SW + ".1"              # switchGroup .N.0
FORE_NPORTS = FORE_SW + ".2.1"            # numberOfPorts .0
FORE_PORT = FORE_SW + ".2.2.1"            # portTable .N.portNumber
FORE_HWPORT = "1.3.6.1.4.1.326.2.2.1.1.2.3.1"   # hwPortTable .N.board.module.port
FORE_PATH = FORE_SW + ".3.1.1"            # pathTable .N.port.vpi
FORE_PATHR = FORE_SW + ".3.2.1"           # pathRouteTable .N.inport.invpi.outport.outvpi
FORE_CHAN = FORE_SW + ".4.1.1"            # channelTable .N.port.vpi.vci
FORE_CHANR = FORE_SW + ".4.2.1"           # channelRouteTable .N.in(port,vpi,vci).out(...)


def fore_records(sw: m.ForeSwitch, fresh: bool = False) -> list[Record]:
    b = _Builder(fresh)
    _system(b, sw)
    up = sw.uptime_ticks
    _int(b, FORE_SCALAR + ".1", (0,), sw.hardware_version, "hardwareVersion")
    _int(b, FORE_SCALAR + ".2", (0,), sw.software_version, "softwareVersion")
    _int(b, FORE_SCALAR + ".3", (0,), sw.max_paths, "maxPaths")
    _int(b, FORE_SCALAR + ".4", (0,), sw.max_channels, "maxChannels")
    b.uptime(FORE_SCALAR + ".6", (0,), up, "uptime")
    _text(b, FORE_SCALAR + ".9", (0,), sw.software_text, "softwareVersionText")
    _int(b, FORE_SCALAR + ".10", (0,), sw.switch_type, "switchType")
    b.stamp(FORE_SCALAR + ".32", (0,), 0, "switchCounterResetTime")
    _int(b, FORE_NPORTS, (0,), len(sw.ports), "numberOfPorts")

    for p in sw.ports:
        i = (p.number,)
        lab = dict(port=p.name)
        _int(b, FORE_PORT + ".2", i, 3 if p.admin_up else 2, "portAdminStatus")
        _int(b, FORE_PORT + ".3", i, 1 if p.oper_up else 2, "portOperStatus")
        b.uptime(FORE_PORT + ".4", i, min(p.state_ticks, up), "portTime", **lab)
        _int(b, FORE_PORT + ".9", i, p.max_cells, "portMaxBandwidthIn")
        b.static(FORE_PORT + ".10", i, TAG_GAUGE32, sw.alloc_in(p.name), "portAllocBandwidthIn")
        b.grow(FORE_PORT + ".12", i, TAG_COUNTER32, sw.rx_initial(p.name), sw.rx_rate(p.name),
               "portReceivedCells", "in", **lab)
        _int(b, FORE_PORT + ".15", i, p.max_cells, "portMaxBandwidthOut")
        b.static(FORE_PORT + ".16", i, TAG_GAUGE32, sw.alloc_out(p.name), "portAllocBandwidthOut")
        b.grow(FORE_PORT + ".18", i, TAG_COUNTER32, sw.tx_initial(p.name), sw.tx_rate(p.name),
               "portTransmittedCells", "out", **lab)
        _int(b, FORE_PORT + ".19", i, 0, "portHwBoard")
        _int(b, FORE_PORT + ".20", i, p.module, "portHwModule")
        _text(b, FORE_PORT + ".62", i, p.label, "portName")

        h = (0, p.module, p.hw_port)
        model_no, _, kbps = m.FORE_PORT_KINDS[p.kind]
        _int(b, FORE_HWPORT + ".5", h, model_no, "hwPortModel")
        _int(b, FORE_HWPORT + ".6", h, 1 if p.oper_up else 2, "hwPortOperStatus")
        b.grow(FORE_HWPORT + ".9", h, TAG_COUNTER32, p.overflow_initial, p.overflow_rate,
               "hwPortOverflows", "in", **lab)
        _text(b, FORE_HWPORT + ".13", h, p.bnp, "hwPortName")
        _int(b, FORE_HWPORT + ".19", h, p.number + 1, "hwPortIfIndex")
        _int(b, FORE_HWPORT + ".23", h, kbps, "hwPortSpeed")

    for path in sw.paths():
        p = sw.port(path.port)
        i = (p.number, path.vpi)
        lab = dict(port=path.port, vpi=path.vpi)
        _int(b, FORE_PATH + ".7", i, p.max_cells, "pathMaxBandwidth")
        _int(b, FORE_PATH + ".8", i, path.alloc, "pathAllocBandwidth")
        b.grow(FORE_PATH + ".10", i, TAG_COUNTER32, path.initial, path.rate, "pathCells", "in", **lab)
        b.uptime(FORE_PATH + ".11", i, path.uptime_ticks, "pathUptime", **lab)
        b.grow(FORE_PATH + ".13", i, TAG_COUNTER32, path.reject_initial, path.reject_rate,
               "pathRejectedCells", "in", **lab)

    for vp in sw.vps:
        i = (sw.port(vp.in_port).number, vp.in_vpi, sw.port(vp.out_port).number, vp.out_vpi)
        lab = dict(port=vp.in_port, vpi=vp.in_vpi, out_port=vp.out_port, out_vpi=vp.out_vpi)
        b.grow(FORE_PATHR + ".8", i, TAG_COUNTER32, vp.initial, vp.rate, "pathrCells", "in", **lab)
        b.uptime(FORE_PATHR + ".9", i, sw.vc_uptime(vp), "pathrUptime", **lab)
        b.grow(FORE_PATHR + ".11", i, TAG_COUNTER32, vp.reject_initial, vp.reject_rate,
               "pathrRejectedCells", "in", **lab)
        _text(b, FORE_PATHR + ".14", i, vp.name, "pathrName")

    for vc in sw.vcs:
        pin, pout = sw.port(vc.in_port), sw.port(vc.out_port)
        i = (pin.number, vc.in_vpi, vc.in_vci)
        lab = dict(port=vc.in_port, vpi=vc.in_vpi, vci=vc.in_vci)
        _int(b, FORE_CHAN + ".6", i, vc.alloc, "chanAllocBandwidth")
        b.grow(FORE_CHAN + ".8", i, TAG_COUNTER32, vc.initial, vc.rate, "chanCells", "in", **lab)
        b.uptime(FORE_CHAN + ".9", i, sw.vc_uptime(vc), "chanUptime", **lab)
        b.grow(FORE_CHAN + ".11", i, TAG_COUNTER32, vc.reject_initial, vc.reject_rate,
               "chanRejectedCells", "in", **lab)
        _int(b, FORE_CHAN + ".15", i, vc.servcat, "chanServCat")
        _int(b, FORE_CHAN + ".17", i, vc.alloc, "chanQosPCR")
        _int(b, FORE_CHAN + ".18", i, 0, "chanQosSCR")
        _int(b, FORE_CHAN + ".19", i, 0, "chanQosMBS")
        _int(b, FORE_CHAN + ".20", i, 0, "chanQosCDVT")
        r = i + (pout.number, vc.out_vpi, vc.out_vci)
        _int(b, FORE_CHANR + ".7", r, 1 if (pin.oper_up and pout.oper_up) else 2, "chanrStatus")
        _text(b, FORE_CHANR + ".9", r, vc.name, "chanrName")
        _int(b, FORE_CHANR + ".10", r, 1, "chanrConnectionType")
    return b.records


# --------------------------------------------------------------------------- IF-MIB

IF_NUMBER = "1.3.6.1.2.1.2.1"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
IFX_TABLE = "1.3.6.1.2.1.31.1.1.1"


def _if_common(b: _Builder, ifindex: int, descr: str, iftype: int, mtu: int, speed: int,
               phys: bytes, admin: bool, oper: bool, last_change: int, name: str, alias: str):
    i = (ifindex,)
    _int(b, IF_TABLE + ".1", i, ifindex, "ifIndex")
    _text(b, IF_TABLE + ".2", i, descr, "ifDescr")
    _int(b, IF_TABLE + ".3", i, iftype, "ifType")
    _int(b, IF_TABLE + ".4", i, mtu, "ifMtu")
    b.static(IF_TABLE + ".5", i, TAG_GAUGE32, min(speed, 4294967295), "ifSpeed")
    b.static(IF_TABLE + ".6", i, TAG_OCTETS, phys, "ifPhysAddress")
    _int(b, IF_TABLE + ".7", i, 1 if admin else 2, "ifAdminStatus")
    _int(b, IF_TABLE + ".8", i, 1 if oper else 2, "ifOperStatus")
    b.stamp(IF_TABLE + ".9", i, last_change, "ifLastChange")
    _text(b, IFX_TABLE + ".1", i, name, "ifName")
    b.static(IFX_TABLE + ".15", i, TAG_GAUGE32, speed // 1_000_000, "ifHighSpeed")
    _text(b, IFX_TABLE + ".18", i, alias, "ifAlias")
    b.stamp(IFX_TABLE + ".19", i, 0, "ifCounterDiscontinuityTime")


def _if_octets(b: _Builder, ix: int, direction: str, initial: int, rate: int, **lab):
    """ifIn/OutOctets (Counter32) and ifHCIn/OutOctets (Counter64) of the same count."""
    i = (ix,)
    c32, c64, n32, n64 = ((".10", ".6", "ifInOctets", "ifHCInOctets") if direction == "in"
                          else (".16", ".10", "ifOutOctets", "ifHCOutOctets"))
    b.grow(IF_TABLE + c32, i, TAG_COUNTER32, initial, rate, n32, direction, **lab)
    b.grow(IFX_TABLE + c64, i, TAG_COUNTER64, initial, rate, n64, direction, **lab)


def ifmib_records(sw: m.IfSwitch, fresh: bool = False) -> list[Record]:
    b = _Builder(fresh)
    _system(b, sw)
    _int(b, IF_NUMBER, (0,), len(sw.ports), "ifNumber")
    for p in sw.ports:
        i = (p.ifindex,)
        lab = dict(ifindex=p.ifindex, ifname=p.name)
        _if_common(b, p.ifindex, p.descr, 6, 1500, p.speed,
                   bytes([0x00, 0x1B, 0x2C, 0x00, 0x00, p.ifindex]),
                   p.admin_up, p.oper_up, p.last_change_ticks, p.name, p.alias)
        _if_octets(b, p.ifindex, "in", p.in_octets_initial, p.in_octets, **lab)
        _if_octets(b, p.ifindex, "out", p.out_octets_initial, p.out_octets, **lab)
        for col32, col64, name32, name64, init, rate, d in (
                (".11", ".7", "ifInUcastPkts", "ifHCInUcastPkts", p.in_pkts_initial, p.in_pkts, "in"),
                (".17", ".11", "ifOutUcastPkts", "ifHCOutUcastPkts", p.out_pkts_initial, p.out_pkts, "out")):
            b.grow(IF_TABLE + col32, i, TAG_COUNTER32, init, rate, name32, d, **lab)
            b.grow(IFX_TABLE + col64, i, TAG_COUNTER64, init, rate, name64, d, **lab)
        for col, name, rate, d in ((".13", "ifInDiscards", p.in_discards, "in"),
                                   (".14", "ifInErrors", p.in_errors, "in"),
                                   (".19", "ifOutDiscards", p.out_discards, "out"),
                                   (".20", "ifOutErrors", p.out_errors, "out")):
            b.grow(IF_TABLE + col, i, TAG_COUNTER32, p.err_initial if rate else 0, rate, name, d, **lab)
    return b.records


# --------------------------------------------------------------------------- ATM-MIB / ATM2-MIB

ATM = "1.3.6.1.2.1.37.1"
ATM_IFCONF = ATM + ".2.1"
ATM_TD = ATM + ".5.1"
ATM_VPL = ATM + ".6.1"
ATM_VCL = ATM + ".7.1"
ATM_VPXC = ATM + ".9.1"
ATM_VCXC = ATM + ".11.1"
ATM2 = ATM + ".14.1"
ATM2_VPLSTAT = ATM2 + ".9.1"
ATM2_VCLSTAT = ATM2 + ".11.1"
ATM2_AAL5STAT = ATM2 + ".12.1"


def _stat_columns(b: _Builder, base: str, i: tuple, in_rate, in0, out_rate, out0, disc, lab):
    """atmVplStatTable / atmVclStatTable columns (all cells CLP=0; none tagged)."""
    d0 = 0 if not disc else 1000
    b.grow(base + ".1", i, TAG_COUNTER32, in0, in_rate, base_name(base) + "TotalCellIns", "in", **lab)
    b.grow(base + ".2", i, TAG_COUNTER32, in0, in_rate, base_name(base) + "Clp0CellIns", "in", **lab)
    b.grow(base + ".3", i, TAG_COUNTER32, d0, disc, base_name(base) + "TotalDiscards", "in", **lab)
    b.grow(base + ".4", i, TAG_COUNTER32, d0, disc, base_name(base) + "Clp0Discards", "in", **lab)
    b.grow(base + ".5", i, TAG_COUNTER32, out0, out_rate, base_name(base) + "TotalCellOuts", "out", **lab)
    b.grow(base + ".6", i, TAG_COUNTER32, out0, out_rate, base_name(base) + "Clp0CellOuts", "out", **lab)
    b.grow(base + ".7", i, TAG_COUNTER32, 0, 0, base_name(base) + "Clp0Tagged", "in", **lab)


def base_name(base: str) -> str:
    return {ATM2_VPLSTAT: "atmVplStat", ATM2_VCLSTAT: "atmVclStat"}[base]


def atm2_records(sw: m.AtmSwitch, fresh: bool = False) -> list[Record]:
    b = _Builder(fresh)
    _system(b, sw)
    _int(b, IF_NUMBER, (0,), len(sw.interfaces), "ifNumber")
    vpls, vcls = sw.vpls(), sw.vcls()
    for f in sw.interfaces:
        speed, _, _, descr = m.ATM_IF_KINDS[f.kind]
        i = (f.ifindex,)
        lab = dict(ifindex=f.ifindex, ifname=f.name)
        _if_common(b, f.ifindex, f"ATM interface {f.name} ({descr})", 37, 9180, speed, b"",
                   f.admin_up, f.oper_up, f.last_change_ticks, f.name, f.alias)
        in_rate, in0 = sw.in_cells(f.ifindex)
        out_rate, out0 = sw.out_cells(f.ifindex)
        _if_octets(b, f.ifindex, "in", in0 * m.CELL_OCTETS, in_rate * m.CELL_OCTETS, **lab)
        _if_octets(b, f.ifindex, "out", out0 * m.CELL_OCTETS, out_rate * m.CELL_OCTETS, **lab)
        disc = sw.discards(f.ifindex)
        b.grow(IF_TABLE + ".13", i, TAG_COUNTER32, 1000 if disc else 0, disc, "ifInDiscards", "in", **lab)
        for col, name in ((".14", "ifInErrors"), (".19", "ifOutDiscards"), (".20", "ifOutErrors")):
            b.grow(IF_TABLE + col, i, TAG_COUNTER32, 0, 0, name, "in" if "In" in name else "out", **lab)
        # atmInterfaceConfTable
        _int(b, ATM_IFCONF + ".1", i, f.max_vpcs, "atmInterfaceMaxVpcs")
        _int(b, ATM_IFCONF + ".2", i, f.max_vccs, "atmInterfaceMaxVccs")
        _int(b, ATM_IFCONF + ".3", i, sum(1 for v in vpls if v.ifindex == f.ifindex), "atmInterfaceConfVpcs")
        _int(b, ATM_IFCONF + ".4", i, sum(1 for v in vcls if v.ifindex == f.ifindex), "atmInterfaceConfVccs")
        _int(b, ATM_IFCONF + ".5", i, 8, "atmInterfaceMaxActiveVpiBits")
        _int(b, ATM_IFCONF + ".6", i, 12, "atmInterfaceMaxActiveVciBits")
        _int(b, ATM_IFCONF + ".7", i, 0, "atmInterfaceIlmiVpi")
        _int(b, ATM_IFCONF + ".8", i, 16, "atmInterfaceIlmiVci")
        b.static(ATM_IFCONF + ".11", i, TAG_IPADDRESS, f.neighbor_ip, "atmInterfaceMyNeighborIpAddress")
        _text(b, ATM_IFCONF + ".12", i, f.neighbor_ifname, "atmInterfaceMyNeighborIfName")
        _int(b, ATM_IFCONF + ".13", i, 8, "atmInterfaceCurrentMaxVpiBits")
        _int(b, ATM_IFCONF + ".14", i, 12, "atmInterfaceCurrentMaxVciBits")

    for td in sw.traffic_descrs:
        i = (td.index,)
        b.static(ATM_TD + ".2", i, TAG_OID, td.type_oid, "atmTrafficDescrType")
        _int(b, ATM_TD + ".3", i, td.pcr, "atmTrafficDescrParam1")
        for n in (4, 5, 6, 7):
            _int(b, ATM_TD + f".{n}", i, 0, f"atmTrafficDescrParam{n - 2}")
        _int(b, ATM_TD + ".9", i, 1, "atmTrafficDescrRowStatus")
        _int(b, ATM_TD + ".10", i, td.service_category, "atmServiceCategory")
        _int(b, ATM_TD + ".11", i, 1, "atmTrafficFrameDiscard")

    for v in vpls:
        i = (v.ifindex, v.vpi)
        lab = dict(ifindex=v.ifindex, vpi=v.vpi)
        _int(b, ATM_VPL + ".2", i, 1, "atmVplAdminStatus")
        _int(b, ATM_VPL + ".3", i, 1 if v.oper_up else 2, "atmVplOperStatus")
        b.stamp(ATM_VPL + ".4", i, sw.iface(v.ifindex).last_change_ticks, "atmVplLastChange")
        _int(b, ATM_VPL + ".5", i, v.traffic_descr, "atmVplReceiveTrafficDescrIndex")
        _int(b, ATM_VPL + ".6", i, v.traffic_descr, "atmVplTransmitTrafficDescrIndex")
        _int(b, ATM_VPL + ".7", i, v.xc_index, "atmVplCrossConnectIdentifier")
        _int(b, ATM_VPL + ".8", i, 1, "atmVplRowStatus")
        _int(b, ATM_VPL + ".9", i, 1, "atmVplCastType")
        _int(b, ATM_VPL + ".10", i, 1, "atmVplConnKind")
        _stat_columns(b, ATM2_VPLSTAT, i, v.in_rate, v.in_initial, v.out_rate, v.out_initial,
                      v.discard_rate, lab)

    for v in vcls:
        i = (v.ifindex, v.vpi, v.vci)
        lab = dict(ifindex=v.ifindex, vpi=v.vpi, vci=v.vci)
        _int(b, ATM_VCL + ".3", i, 1, "atmVclAdminStatus")
        _int(b, ATM_VCL + ".4", i, 1 if v.oper_up else 2, "atmVclOperStatus")
        b.stamp(ATM_VCL + ".5", i, sw.iface(v.ifindex).last_change_ticks, "atmVclLastChange")
        _int(b, ATM_VCL + ".6", i, v.traffic_descr, "atmVclReceiveTrafficDescrIndex")
        _int(b, ATM_VCL + ".7", i, v.traffic_descr, "atmVclTransmitTrafficDescrIndex")
        if v.aal5 is not None:        # AAL columns exist only where the VCC terminates here
            _int(b, ATM_VCL + ".8", i, 3, "atmVccAalType")
            _int(b, ATM_VCL + ".9", i, 9188, "atmVccAal5CpcsTransmitSduSize")
            _int(b, ATM_VCL + ".10", i, 9188, "atmVccAal5CpcsReceiveSduSize")
            _int(b, ATM_VCL + ".11", i, v.aal5.encaps, "atmVccAal5EncapsType")
        else:
            _int(b, ATM_VCL + ".12", i, v.xc_index, "atmVclCrossConnectIdentifier")
        _int(b, ATM_VCL + ".13", i, 1, "atmVclRowStatus")
        _int(b, ATM_VCL + ".14", i, 1, "atmVclCastType")
        _int(b, ATM_VCL + ".15", i, 1, "atmVclConnKind")
        _stat_columns(b, ATM2_VCLSTAT, i, v.in_rate, v.in_initial, v.out_rate, v.out_initial,
                      v.discard_rate, lab)
        if v.aal5 is not None:
            t = v.aal5
            b.grow(ATM2_AAL5STAT + ".1", i, TAG_COUNTER32, t.in_pkts_initial, t.in_pkts,
                   "atmAal5VclInPkts", "in", **lab)
            b.grow(ATM2_AAL5STAT + ".2", i, TAG_COUNTER32, t.out_pkts_initial, t.out_pkts,
                   "atmAal5VclOutPkts", "out", **lab)
            b.grow(ATM2_AAL5STAT + ".3", i, TAG_COUNTER32, t.in_pkts_initial * t.in_pdu,
                   t.in_pkts * t.in_pdu, "atmAal5VclInOctets", "in", **lab)
            b.grow(ATM2_AAL5STAT + ".4", i, TAG_COUNTER32, t.out_pkts_initial * t.out_pdu,
                   t.out_pkts * t.out_pdu, "atmAal5VclOutOctets", "out", **lab)

    _int(b, ATM + ".8", (0,), len(sw.vp_xcs) + 1, "atmVpCrossConnectIndexNext")
    for x in sw.vp_xcs:
        i = (x.index, x.low_if, x.low_vpi, x.high_if, x.high_vpi)
        st = 1 if x.oper_up else 2
        _int(b, ATM_VPXC + ".6", i, 1, "atmVpCrossConnectAdminStatus")
        _int(b, ATM_VPXC + ".7", i, st, "atmVpCrossConnectL2HOperStatus")
        _int(b, ATM_VPXC + ".8", i, st, "atmVpCrossConnectH2LOperStatus")
        b.stamp(ATM_VPXC + ".9", i, 0, "atmVpCrossConnectL2HLastChange")
        b.stamp(ATM_VPXC + ".10", i, 0, "atmVpCrossConnectH2LLastChange")
        _int(b, ATM_VPXC + ".11", i, 1, "atmVpCrossConnectRowStatus")
    _int(b, ATM + ".10", (0,), len(sw.vc_xcs) + 1, "atmVcCrossConnectIndexNext")
    for x in sw.vc_xcs:
        i = (x.index, x.low_if, x.low_vpi, x.low_vci, x.high_if, x.high_vpi, x.high_vci)
        st = 1 if x.oper_up else 2
        _int(b, ATM_VCXC + ".8", i, 1, "atmVcCrossConnectAdminStatus")
        _int(b, ATM_VCXC + ".9", i, st, "atmVcCrossConnectL2HOperStatus")
        _int(b, ATM_VCXC + ".10", i, st, "atmVcCrossConnectH2LOperStatus")
        b.stamp(ATM_VCXC + ".11", i, 0, "atmVcCrossConnectL2HLastChange")
        b.stamp(ATM_VCXC + ".12", i, 0, "atmVcCrossConnectH2LLastChange")
        _int(b, ATM_VCXC + ".13", i, 1, "atmVcCrossConnectRowStatus")
    _int(b, ATM + ".13", (0,), len(sw.traffic_descrs) + 1, "atmTrafficDescrParamIndexNext")
    return b.records


# --------------------------------------------------------------------------- rendering

def switch_records(sw, fresh: bool = False) -> list[Record]:
    """All records of a switch, sorted numerically by OID (no sentinel)."""
    if isinstance(sw, m.ForeSwitch):
        recs = fore_records(sw, fresh)
    elif isinstance(sw, m.AtmSwitch):
        recs = atm2_records(sw, fresh)
    elif isinstance(sw, m.IfSwitch):
        recs = ifmib_records(sw, fresh)
    else:
        raise TypeError(type(sw))
    recs.sort(key=lambda r: r.oid)
    for a, b in zip(recs, recs[1:]):
        if a.oid == b.oid:
            raise ValueError(f"{sw.name}: duplicate OID {oid_s(a.oid)} ({a.name}, {b.name})")
    if recs[-1].oid >= SENTINEL_OID:
        raise ValueError("sentinel OID must follow every record")
    return recs


_PLAIN = set(string.ascii_letters + string.digits + " .,:;/_-+()<>#@=")


def _format_value(r: Record) -> tuple[str, str]:
    v = r.value
    if r.tag == TAG_OCTETS:
        raw = v if isinstance(v, bytes) else str(v).encode("ascii")
        text = raw.decode("ascii", "replace")
        if raw and (not set(text) <= _PLAIN or text != text.strip()):
            return "4x", raw.hex()
        if isinstance(v, bytes) and raw:
            return "4x", raw.hex()
        return "4", text
    if r.tag in (TAG_OID, TAG_IPADDRESS):
        return str(r.tag), str(v)
    return str(r.tag), str(int(v))


def numeric_args(series: Series, tag: int, start_time: int) -> str:
    """The numeric-variation argument string for a growing record."""
    width = SYNTAX[tag][1]
    return (f"atime=1,rate={series.rate},offset={-series.rate * start_time},"
            f"initial={series.initial},wrap=1,max={2 ** width}")


def render_line(r: Record, start_time: int) -> str:
    oid = oid_s(r.oid)
    if r.series is not None:
        if r.series.rate:
            return f"{oid}|{r.tag}:numeric|{numeric_args(r.series, r.tag, start_time)}"
        return f"{oid}|{r.tag}|{r.series.initial}"
    tag, value = _format_value(r)
    return f"{oid}|{tag}|{value}"


def render(records: list[Record], start_time: int) -> str:
    """snmprec text for `records` (already sorted) with the sentinel appended."""
    if int(start_time) != start_time:
        raise ValueError("start_time must be an integer epoch second")
    lines = [render_line(r, int(start_time)) for r in records]
    lines.append(f"{oid_s(SENTINEL_OID)}|4|{SENTINEL_VALUE}")
    return "\n".join(lines) + "\n"


def series_entries(records: list[Record], start_time: int) -> list[dict]:
    """Manifest entries for every Counter32/Counter64 record and every growing TimeTicks."""
    out = []
    for r in records:
        if r.series is None:
            continue
        syntax, width = SYNTAX[r.tag]
        if syntax == "TimeTicks" and not r.series.rate:
            continue
        s = r.series
        wraps_at = None
        if s.rate:
            wraps_at = start_time + (2 ** width - s.initial) / s.rate
        out.append({
            "object": r.name,
            "oid": oid_s(r.oid),
            "index": oid_s(r.index),
            "syntax": syntax,
            "width": width,
            "direction": s.direction,
            "initial": s.initial,
            "rate": s.rate,
            "wraps_at": wraps_at,
            "labels": dict(s.labels),
        })
    return out
