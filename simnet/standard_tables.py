"""Records of the switches described by standard MIBs: the IF-MIB switch (ifTable, ifXTable)
and the ATM switch (ifTable/ifXTable of its ATM interfaces, ATM-MIB RFC 2515 and ATM2-MIB
RFC 3606 tables), each with its system group."""

from __future__ import annotations

from .atm_model import ATM_IF_KINDS, AtmSwitch
from .model import CELL_OCTETS, IfSwitch
from .records import (
    TAG_COUNTER32,
    TAG_COUNTER64,
    TAG_GAUGE32,
    TAG_IPADDRESS,
    TAG_OCTETS,
    TAG_OID,
    Builder,
    Record,
    static_int,
    static_text,
    system_group,
)

# --------------------------------------------------------------------------- IF-MIB

IF_NUMBER = "1.3.6.1.2.1.2.1"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
IFX_TABLE = "1.3.6.1.2.1.31.1.1.1"


def _if_common(b: Builder, ifindex: int, descr: str, iftype: int, mtu: int, speed: int,
               phys: bytes, admin: bool, oper: bool, last_change: int, name: str, alias: str):
    i = (ifindex,)
    static_int(b, IF_TABLE + ".1", i, ifindex, "ifIndex")
    static_text(b, IF_TABLE + ".2", i, descr, "ifDescr")
    static_int(b, IF_TABLE + ".3", i, iftype, "ifType")
    static_int(b, IF_TABLE + ".4", i, mtu, "ifMtu")
    b.static(IF_TABLE + ".5", i, TAG_GAUGE32, min(speed, 4294967295), "ifSpeed")
    b.static(IF_TABLE + ".6", i, TAG_OCTETS, phys, "ifPhysAddress")
    static_int(b, IF_TABLE + ".7", i, 1 if admin else 2, "ifAdminStatus")
    static_int(b, IF_TABLE + ".8", i, 1 if oper else 2, "ifOperStatus")
    b.stamp(IF_TABLE + ".9", i, last_change, "ifLastChange")
    static_text(b, IFX_TABLE + ".1", i, name, "ifName")
    b.static(IFX_TABLE + ".15", i, TAG_GAUGE32, speed // 1_000_000, "ifHighSpeed")
    static_text(b, IFX_TABLE + ".18", i, alias, "ifAlias")
    b.stamp(IFX_TABLE + ".19", i, 0, "ifCounterDiscontinuityTime")


def _if_octets(b: Builder, ix: int, direction: str, initial: int, rate: int, **lab):
    """ifIn/OutOctets (Counter32) and ifHCIn/OutOctets (Counter64) of the same count."""
    i = (ix,)
    c32, c64, n32, n64 = ((".10", ".6", "ifInOctets", "ifHCInOctets") if direction == "in"
                          else (".16", ".10", "ifOutOctets", "ifHCOutOctets"))
    b.grow(IF_TABLE + c32, i, TAG_COUNTER32, initial, rate, n32, direction, **lab)
    b.grow(IFX_TABLE + c64, i, TAG_COUNTER64, initial, rate, n64, direction, **lab)


def ifmib_records(sw: IfSwitch, fresh: bool = False) -> list[Record]:
    b = Builder(fresh)
    system_group(b, sw)
    static_int(b, IF_NUMBER, (0,), len(sw.ports), "ifNumber")
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
    if sw.lldp_chassis:
        _lldp(b, sw)
    return b.records


LLDP_LOC = "1.0.8802.1.1.2.1.3"
LLDP_REM = "1.0.8802.1.1.2.1.4.1.1"
LLDP_MAN = "1.0.8802.1.1.2.1.4.2.1"


def _lldp(b: Builder, sw: IfSwitch) -> None:
    """LLDP-MIB: the switch's own chassis, name and ports (port number = ifIndex, id = ifName), and
    its neighbours (time mark 0, remote index 1)."""
    static_int(b, LLDP_LOC + ".1", (0,), 4, "lldpLocChassisIdSubtype")
    b.static(LLDP_LOC + ".2", (0,), TAG_OCTETS, sw.lldp_chassis, "lldpLocChassisId")
    static_text(b, LLDP_LOC + ".3", (0,), sw.sys_name, "lldpLocSysName")
    for p in sw.ports:
        static_int(b, LLDP_LOC + ".7.1.2", (p.ifindex,), 5, "lldpLocPortIdSubtype")
        static_text(b, LLDP_LOC + ".7.1.3", (p.ifindex,), p.name, "lldpLocPortId")
        static_text(b, LLDP_LOC + ".7.1.4", (p.ifindex,), p.alias, "lldpLocPortDesc")
    for n in sw.lldp_neighbours:
        i = (0, n.local_port, 1)
        static_int(b, LLDP_REM + ".4", i, 4, "lldpRemChassisIdSubtype")
        b.static(LLDP_REM + ".5", i, TAG_OCTETS, n.chassis, "lldpRemChassisId")
        static_int(b, LLDP_REM + ".6", i, 5, "lldpRemPortIdSubtype")
        static_text(b, LLDP_REM + ".7", i, n.port_id, "lldpRemPortId")
        static_text(b, LLDP_REM + ".8", i, n.port_desc, "lldpRemPortDesc")
        static_text(b, LLDP_REM + ".9", i, n.sys_name, "lldpRemSysName")
        if n.mgmt_ip:
            addr = tuple(int(x) for x in n.mgmt_ip.split("."))
            static_int(b, LLDP_MAN + ".3", i + (1, 4) + addr, 2, "lldpRemManAddrIfSubtype")


# --------------------------------------------------------------------------- ATM-MIB / ATM2-MIB

ATM = "1.3.6.1.2.1.37.1"
ATM_IFCONF = ATM + ".2.1"
ATM_TC = ATM + ".4.1"                     # atmInterfaceTCTable entry (ATM-MIB: atmMIBObjects 4)
ATM_AAL5VCC = ATM + ".12.1"               # aal5VccTable entry (ATM-MIB: atmMIBObjects 12)
ATM_TD = ATM + ".5.1"
ATM_VPL = ATM + ".6.1"
ATM_VCL = ATM + ".7.1"
ATM_VPXC = ATM + ".9.1"
ATM_VCXC = ATM + ".11.1"
ATM2 = ATM + ".14.1"
ATM2_VPLSTAT = ATM2 + ".9.1"
ATM2_VCLSTAT = ATM2 + ".11.1"
ATM2_AAL5STAT = ATM2 + ".12.1"


def _stat_columns(b: Builder, base: str, i: tuple, v, lab):
    """atmVplStatTable / atmVclStatTable columns of a VPL/VCL `v` (simnet.atm_model AtmVpl/AtmVcl):
    cells arrive CLP=0 unless tagged upstream (clp1_in); policing discards CLP=0 cells only."""
    d0 = 0 if not v.discard_rate else 1000
    name = base_name(base)
    b.grow(base + ".1", i, TAG_COUNTER32, v.in_initial, v.in_rate, name + "TotalCellIns", "in", **lab)
    b.grow(base + ".2", i, TAG_COUNTER32, v.in_initial, v.in_rate - v.clp1_in, name + "Clp0CellIns", "in", **lab)
    b.grow(base + ".3", i, TAG_COUNTER32, d0, v.discard_rate, name + "TotalDiscards", "in", **lab)
    b.grow(base + ".4", i, TAG_COUNTER32, d0, v.discard_rate, name + "Clp0Discards", "in", **lab)
    b.grow(base + ".5", i, TAG_COUNTER32, v.out_initial, v.out_rate, name + "TotalCellOuts", "out", **lab)
    b.grow(base + ".6", i, TAG_COUNTER32, v.out_initial, v.out_rate - v.clp1_out, name + "Clp0CellOuts", "out",
           **lab)
    b.grow(base + ".7", i, TAG_COUNTER32, 0, v.tagged, name + "Clp0Tagged", "in", **lab)


def base_name(base: str) -> str:
    return {ATM2_VPLSTAT: "atmVplStat", ATM2_VCLSTAT: "atmVclStat"}[base]


def atm2_records(sw: AtmSwitch, fresh: bool = False) -> list[Record]:
    i: tuple[int, ...]                  # a row's index
    b = Builder(fresh)
    system_group(b, sw)
    static_int(b, IF_NUMBER, (0,), len(sw.interfaces), "ifNumber")
    vpls, vcls = sw.vpls(), sw.vcls()
    for f in sw.interfaces:
        speed, _, _, descr = ATM_IF_KINDS[f.kind]
        i = (f.ifindex,)
        lab = dict(ifindex=f.ifindex, ifname=f.name)
        _if_common(b, f.ifindex, f"ATM interface {f.name} ({descr})", 37, 9180, speed, b"",
                   f.admin_up, f.oper_up, f.last_change_ticks, f.name, f.alias)
        in_rate, in0 = sw.in_cells(f.ifindex)
        out_rate, out0 = sw.out_cells(f.ifindex)
        _if_octets(b, f.ifindex, "in", in0 * CELL_OCTETS, in_rate * CELL_OCTETS, **lab)
        _if_octets(b, f.ifindex, "out", out0 * CELL_OCTETS, out_rate * CELL_OCTETS, **lab)
        # RFC 2515: an ATM layer ifTable row counts cells. Discards: policing at the input, the output
        # buffer; errors: cells lost to uncorrectable HEC errors; unknown protos: unknown VPI/VCI.
        disc = sw.discards(f.ifindex)
        b.grow(IF_TABLE + ".13", i, TAG_COUNTER32, 1000 if disc else 0, disc, "ifInDiscards", "in", **lab)
        for col, name, rate, d in ((".14", "ifInErrors", sw.hec_errors(f.ifindex), "in"),
                                   (".15", "ifInUnknownProtos", f.unknown_rate, "in"),
                                   (".19", "ifOutDiscards", sw.out_discards(f.ifindex), "out"),
                                   (".20", "ifOutErrors", 0, "out")):
            b.grow(IF_TABLE + col, i, TAG_COUNTER32, 0, rate, name, d, **lab)
        # atmInterfaceTCTable (SONET/DS3/E3 TC sublayer): an OCD event is seven consecutive cells with
        # HEC violations: one per 7 cells lost to HEC errors.
        b.grow(ATM_TC + ".1", i, TAG_COUNTER32, 0, sw.hec_errors(f.ifindex) // 7, "atmInterfaceOCDEvents", "in",
               **lab)
        static_int(b, ATM_TC + ".2", i, 1, "atmInterfaceTCAlarmState")
        # atmInterfaceConfTable
        static_int(b, ATM_IFCONF + ".1", i, f.max_vpcs, "atmInterfaceMaxVpcs")
        static_int(b, ATM_IFCONF + ".2", i, f.max_vccs, "atmInterfaceMaxVccs")
        static_int(b, ATM_IFCONF + ".3", i, sum(1 for v in vpls if v.ifindex == f.ifindex), "atmInterfaceConfVpcs")
        static_int(b, ATM_IFCONF + ".4", i, sum(1 for v in vcls if v.ifindex == f.ifindex), "atmInterfaceConfVccs")
        static_int(b, ATM_IFCONF + ".5", i, 8, "atmInterfaceMaxActiveVpiBits")
        static_int(b, ATM_IFCONF + ".6", i, 12, "atmInterfaceMaxActiveVciBits")
        static_int(b, ATM_IFCONF + ".7", i, 0, "atmInterfaceIlmiVpi")
        static_int(b, ATM_IFCONF + ".8", i, 16, "atmInterfaceIlmiVci")
        b.static(ATM_IFCONF + ".11", i, TAG_IPADDRESS, f.neighbor_ip, "atmInterfaceMyNeighborIpAddress")
        static_text(b, ATM_IFCONF + ".12", i, f.neighbor_ifname, "atmInterfaceMyNeighborIfName")
        static_int(b, ATM_IFCONF + ".13", i, 8, "atmInterfaceCurrentMaxVpiBits")
        static_int(b, ATM_IFCONF + ".14", i, 12, "atmInterfaceCurrentMaxVciBits")

    for td in sw.traffic_descrs:
        i = (td.index,)
        b.static(ATM_TD + ".2", i, TAG_OID, td.type_oid, "atmTrafficDescrType")
        static_int(b, ATM_TD + ".3", i, td.pcr, "atmTrafficDescrParam1")
        for n in (4, 5, 6, 7):
            static_int(b, ATM_TD + f".{n}", i, 0, f"atmTrafficDescrParam{n - 2}")
        static_int(b, ATM_TD + ".9", i, 1, "atmTrafficDescrRowStatus")
        static_int(b, ATM_TD + ".10", i, td.service_category, "atmServiceCategory")
        static_int(b, ATM_TD + ".11", i, 1, "atmTrafficFrameDiscard")

    for v in vpls:
        i = (v.ifindex, v.vpi)
        lab = dict(ifindex=v.ifindex, vpi=v.vpi)
        static_int(b, ATM_VPL + ".2", i, 1, "atmVplAdminStatus")
        static_int(b, ATM_VPL + ".3", i, 1 if v.oper_up else 2, "atmVplOperStatus")
        b.stamp(ATM_VPL + ".4", i, sw.iface(v.ifindex).last_change_ticks, "atmVplLastChange")
        static_int(b, ATM_VPL + ".5", i, v.traffic_descr, "atmVplReceiveTrafficDescrIndex")
        static_int(b, ATM_VPL + ".6", i, v.traffic_descr, "atmVplTransmitTrafficDescrIndex")
        static_int(b, ATM_VPL + ".7", i, v.xc_index, "atmVplCrossConnectIdentifier")
        static_int(b, ATM_VPL + ".8", i, 1, "atmVplRowStatus")
        static_int(b, ATM_VPL + ".9", i, 1, "atmVplCastType")
        static_int(b, ATM_VPL + ".10", i, 1, "atmVplConnKind")
        _stat_columns(b, ATM2_VPLSTAT, i, v, lab)

    for vc in vcls:
        i = (vc.ifindex, vc.vpi, vc.vci)
        lab = dict(ifindex=vc.ifindex, vpi=vc.vpi, vci=vc.vci)
        static_int(b, ATM_VCL + ".3", i, 1, "atmVclAdminStatus")
        static_int(b, ATM_VCL + ".4", i, 1 if vc.oper_up else 2, "atmVclOperStatus")
        b.stamp(ATM_VCL + ".5", i, sw.iface(vc.ifindex).last_change_ticks, "atmVclLastChange")
        static_int(b, ATM_VCL + ".6", i, vc.traffic_descr, "atmVclReceiveTrafficDescrIndex")
        static_int(b, ATM_VCL + ".7", i, vc.traffic_descr, "atmVclTransmitTrafficDescrIndex")
        if vc.aal5 is not None:       # AAL columns exist only where the VCC terminates here
            static_int(b, ATM_VCL + ".8", i, 3, "atmVccAalType")
            static_int(b, ATM_VCL + ".9", i, 9188, "atmVccAal5CpcsTransmitSduSize")
            static_int(b, ATM_VCL + ".10", i, 9188, "atmVccAal5CpcsReceiveSduSize")
            static_int(b, ATM_VCL + ".11", i, vc.aal5.encaps, "atmVccAal5EncapsType")
        else:
            static_int(b, ATM_VCL + ".12", i, vc.xc_index, "atmVclCrossConnectIdentifier")
        static_int(b, ATM_VCL + ".13", i, 1, "atmVclRowStatus")
        static_int(b, ATM_VCL + ".14", i, 1, "atmVclCastType")
        static_int(b, ATM_VCL + ".15", i, 1, "atmVclConnKind")
        _stat_columns(b, ATM2_VCLSTAT, i, vc, lab)
        if vc.aal5 is not None:
            t = vc.aal5
            b.grow(ATM2_AAL5STAT + ".1", i, TAG_COUNTER32, t.in_pkts_initial, t.in_pkts,
                   "atmAal5VclInPkts", "in", **lab)
            b.grow(ATM2_AAL5STAT + ".2", i, TAG_COUNTER32, t.out_pkts_initial, t.out_pkts,
                   "atmAal5VclOutPkts", "out", **lab)
            b.grow(ATM2_AAL5STAT + ".3", i, TAG_COUNTER32, t.in_pkts_initial * t.in_pdu,
                   t.in_pkts * t.in_pdu, "atmAal5VclInOctets", "in", **lab)
            b.grow(ATM2_AAL5STAT + ".4", i, TAG_COUNTER32, t.out_pkts_initial * t.out_pdu,
                   t.out_pkts * t.out_pdu, "atmAal5VclOutOctets", "out", **lab)
            # ATM-MIB aal5VccTable, indexed here by the ATM interface (RFC 2515 says "the AAL5
            # interface"; Cellar's simulated switch has no separate aal5 ifTable rows).
            for col, name, rate in ((".3", "aal5VccCrcErrors", t.crc_errors), (".4", "aal5VccSarTimeOuts",
                                    t.sar_timeouts), (".5", "aal5VccOverSizedSDUs", t.oversized)):
                b.grow(ATM_AAL5VCC + col, i, TAG_COUNTER32, 0, rate, name, "in", **lab)

    static_int(b, ATM + ".8", (0,), len(sw.vp_xcs) + 1, "atmVpCrossConnectIndexNext")
    for x in sw.vp_xcs:
        i = (x.index, x.low_if, x.low_vpi, x.high_if, x.high_vpi)
        st = 1 if x.oper_up else 2
        static_int(b, ATM_VPXC + ".6", i, 1, "atmVpCrossConnectAdminStatus")
        static_int(b, ATM_VPXC + ".7", i, st, "atmVpCrossConnectL2HOperStatus")
        static_int(b, ATM_VPXC + ".8", i, st, "atmVpCrossConnectH2LOperStatus")
        b.stamp(ATM_VPXC + ".9", i, 0, "atmVpCrossConnectL2HLastChange")
        b.stamp(ATM_VPXC + ".10", i, 0, "atmVpCrossConnectH2LLastChange")
        static_int(b, ATM_VPXC + ".11", i, 1, "atmVpCrossConnectRowStatus")
    static_int(b, ATM + ".10", (0,), len(sw.vc_xcs) + 1, "atmVcCrossConnectIndexNext")
    for xc in sw.vc_xcs:
        i = (xc.index, xc.low_if, xc.low_vpi, xc.low_vci, xc.high_if, xc.high_vpi, xc.high_vci)
        st = 1 if xc.oper_up else 2
        static_int(b, ATM_VCXC + ".8", i, 1, "atmVcCrossConnectAdminStatus")
        static_int(b, ATM_VCXC + ".9", i, st, "atmVcCrossConnectL2HOperStatus")
        static_int(b, ATM_VCXC + ".10", i, st, "atmVcCrossConnectH2LOperStatus")
        b.stamp(ATM_VCXC + ".11", i, 0, "atmVcCrossConnectL2HLastChange")
        b.stamp(ATM_VCXC + ".12", i, 0, "atmVcCrossConnectH2LLastChange")
        static_int(b, ATM_VCXC + ".13", i, 1, "atmVcCrossConnectRowStatus")
    static_int(b, ATM + ".13", (0,), len(sw.traffic_descrs) + 1, "atmTrafficDescrParamIndexNext")
    return b.records
