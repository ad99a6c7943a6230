"""The data model of the standard ATM switch (ATM-MIB RFC 2515, ATM2-MIB RFC 3606).

Plain data plus small pure helpers, like `simnet.model` (whose constants it uses): the
interfaces, VC and VP cross-connects, VCLs terminated by the switch itself and traffic
descriptors of an `AtmSwitch`, and the VCL/VPL rows and interface cell counts derived from
them.  `simnet.network` builds the concrete atm2sw from these classes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import ATM2SW_OID, DS3_CELLS, E3_CELLS, OC3_CELLS

# --------------------------------------------------------------------------- ATM-MIB switch

ATM_IF_KINDS = {
    # kind: (ifSpeed bit/s, ifHighSpeed Mb/s, max cells/s, descr)
    "oc3": (155520000, 156, OC3_CELLS, "OC-3c SONET"),
    "ds3": (44736000, 45, DS3_CELLS, "DS3 PLCP"),
    "e3": (34368000, 34, E3_CELLS, "E3 G.832"),
}


@dataclass(frozen=True)
class AtmIf:
    ifindex: int
    name: str                    # ifName
    kind: str
    alias: str = ""
    admin_up: bool = True
    oper_up: bool = True
    last_change_ticks: int = 0
    neighbor_ip: str = "0.0.0.0"
    neighbor_ifname: str = ""
    in_extra: int = 0            # cells/s on unmodelled VCLs in VPI 0 (received)
    out_extra: int = 0           # cells/s transmitted on unmodelled VCLs
    in_extra_initial: int = 0
    out_extra_initial: int = 0
    max_vpcs: int = 255
    max_vccs: int = 4096
    unknown_rate: int = 0        # cells/s received with a VPI/VCI no connection has (ifInUnknownProtos)


@dataclass(frozen=True, kw_only=True)
class XcLosses:
    """Loss and tagging of a VC or VP cross-connect (simnet.losses sets them), cells/s: lost at the
    output toward the high (l2h) or low (h2l) interface (ifOutDiscards), lost on the line into the
    low/high interface before any count (ifInErrors: HEC), CLP=0 cells tagged CLP=1 by policing at
    the low/high ingress (Clp0Tagged), CLP=1 cells among those arriving at the low/high side
    (tagged upstream). Keyword-only: they follow each cross-connect's own fields."""
    l2h_drop: int = 0
    h2l_drop: int = 0
    low_hec: int = 0
    high_hec: int = 0
    low_tagged: int = 0
    high_tagged: int = 0
    low_clp1: int = 0
    high_clp1: int = 0


@dataclass(frozen=True)
class AtmVcXc(XcLosses):
    """Bidirectional VC cross-connect low <-> high (atmVcCrossConnectTable row), with the
    two VCLs it joins.  l2h = cells/s switched from the low VCL to the high VCL."""
    index: int
    low_if: int
    low_vpi: int
    low_vci: int
    high_if: int
    high_vpi: int
    high_vci: int
    l2h_rate: int
    h2l_rate: int
    l2h_initial: int = 0
    h2l_initial: int = 0
    low_discard_rate: int = 0    # cells/s discarded at the low VCL's ingress
    high_discard_rate: int = 0
    oper_up: bool = True
    traffic_descr: int = 1


@dataclass(frozen=True)
class AtmVpXc(XcLosses):
    index: int
    low_if: int
    low_vpi: int
    high_if: int
    high_vpi: int
    l2h_rate: int
    h2l_rate: int
    l2h_initial: int = 0
    h2l_initial: int = 0
    oper_up: bool = True
    traffic_descr: int = 1
    low_discard_rate: int = 0    # as AtmVcXc
    high_discard_rate: int = 0


@dataclass(frozen=True)
class AtmTermVcl:
    """A VCL terminated by the switch itself (AAL5, e.g. ILMI or IP management)."""
    ifindex: int
    vpi: int
    vci: int
    in_pkts: int                 # AAL5 PDUs/s received
    out_pkts: int
    in_pdu: int                  # octets per received PDU
    out_pdu: int
    in_pkts_initial: int = 0
    out_pkts_initial: int = 0
    encaps: int = 7              # atmVccAal5EncapsType llcEncapsulation(7)
    crc_errors: int = 0          # CPCS PDUs/s received with CRC-32 errors (aal5VccCrcErrors)
    sar_timeouts: int = 0        # PDUs/s not reassembled in time (aal5VccSarTimeOuts)
    oversized: int = 0           # PDUs/s discarded as too large (aal5VccOverSizedSDUs)

    @staticmethod
    def cells_per_pdu(octets: int) -> int:
        return -(-(octets + 8) // 48)

    @property
    def in_cells(self) -> int:
        return self.in_pkts * self.cells_per_pdu(self.in_pdu)

    @property
    def out_cells(self) -> int:
        return self.out_pkts * self.cells_per_pdu(self.out_pdu)


@dataclass(frozen=True)
class AtmVcl:
    """Derived VCL (one end of a cross-connect, or a terminated VCL)."""
    ifindex: int
    vpi: int
    vci: int
    in_rate: int                 # TotalCellIns growth (includes discards)
    out_rate: int
    in_initial: int
    out_initial: int
    discard_rate: int
    xc_index: int                # 0 if terminated
    oper_up: bool
    aal5: AtmTermVcl | None
    traffic_descr: int
    out_drop: int = 0            # cells/s lost at the output toward this VCL (its interface's ifOutDiscards)
    hec: int = 0                 # cells/s of this VCL lost on the line into its interface (ifInErrors)
    tagged: int = 0              # CLP=0 cells/s tagged CLP=1 at this VCL's ingress (Clp0Tagged)
    clp1_in: int = 0             # CLP=1 cells/s among in_rate (Clp0CellIns = in_rate - clp1_in)
    clp1_out: int = 0            # CLP=1 cells/s among out_rate


@dataclass(frozen=True)
class AtmVpl:
    ifindex: int
    vpi: int
    in_rate: int
    out_rate: int
    in_initial: int
    out_initial: int
    discard_rate: int
    xc_index: int                # VP cross-connect index, 0 if the VPL terminates VCCs
    oper_up: bool
    traffic_descr: int
    out_drop: int = 0
    hec: int = 0
    tagged: int = 0
    clp1_in: int = 0
    clp1_out: int = 0


@dataclass(frozen=True)
class TrafficDescr:
    index: int
    type_oid: str                # e.g. atmNoClpNoScr 1.3.6.1.2.1.37.1.1.2
    pcr: int
    service_category: int        # ATM-TC-MIB AtmServiceCategory: cbr(2) ... ubr(6)


@dataclass(frozen=True)
class AtmSwitch:
    name: str
    sys_name: str
    sys_descr: str
    sys_location: str
    mgmt_address: str
    uptime_ticks: int
    interfaces: tuple[AtmIf, ...]
    vc_xcs: tuple[AtmVcXc, ...]
    vp_xcs: tuple[AtmVpXc, ...]
    terminated: tuple[AtmTermVcl, ...]
    traffic_descrs: tuple[TrafficDescr, ...]
    sys_object_id: str = ATM2SW_OID
    profile: str = "atm2"

    def iface(self, ifindex: int) -> AtmIf:
        for i in self.interfaces:
            if i.ifindex == ifindex:
                return i
        raise KeyError(ifindex)

    def vcls(self) -> list[AtmVcl]:
        """Both VCLs of each VC cross-connect and the VCLs the switch terminates. A VCL's in_rate
        (TotalCellIns) counts what policing then discards; its out_rate (TotalCellOuts) what the
        switch sends after losing l2h_drop/h2l_drop at the output."""
        out = []
        for x in self.vc_xcs:
            out.append(AtmVcl(x.low_if, x.low_vpi, x.low_vci,
                              x.l2h_rate + x.low_discard_rate, x.h2l_rate - x.h2l_drop,
                              x.l2h_initial, x.h2l_initial, x.low_discard_rate,
                              x.index, x.oper_up, None, x.traffic_descr, out_drop=x.h2l_drop, hec=x.low_hec,
                              tagged=x.low_tagged, clp1_in=x.low_clp1, clp1_out=x.high_clp1 + x.high_tagged))
            out.append(AtmVcl(x.high_if, x.high_vpi, x.high_vci,
                              x.h2l_rate + x.high_discard_rate, x.l2h_rate - x.l2h_drop,
                              x.h2l_initial, x.l2h_initial, x.high_discard_rate,
                              x.index, x.oper_up, None, x.traffic_descr, out_drop=x.l2h_drop, hec=x.high_hec,
                              tagged=x.high_tagged, clp1_in=x.high_clp1, clp1_out=x.low_clp1 + x.low_tagged))
        for t in self.terminated:
            i = self.iface(t.ifindex)
            out.append(AtmVcl(t.ifindex, t.vpi, t.vci, t.in_cells, t.out_cells,
                              t.in_pkts_initial * t.cells_per_pdu(t.in_pdu),
                              t.out_pkts_initial * t.cells_per_pdu(t.out_pdu), 0, 0,
                              i.oper_up, t, 1))
        return sorted(out, key=lambda v: (v.ifindex, v.vpi, v.vci))

    def vpls(self) -> list[AtmVpl]:
        keys = ("i", "o", "i0", "o0", "d", "drop", "hec", "tag", "c1i", "c1o")
        rows: dict[tuple[int, int], dict] = {}
        for v in self.vcls():
            r = rows.setdefault((v.ifindex, v.vpi), dict.fromkeys(keys, 0) | dict(xc=0, td=1))
            for k, n in zip(keys, (v.in_rate, v.out_rate, v.in_initial, v.out_initial, v.discard_rate, v.out_drop,
                                   v.hec, v.tagged, v.clp1_in, v.clp1_out)):
                r[k] += n
        for f in self.interfaces:
            if f.in_extra or f.out_extra or f.in_extra_initial or f.out_extra_initial:
                r = rows.setdefault((f.ifindex, 0), dict.fromkeys(keys, 0) | dict(xc=0, td=1))
                r["i"] += f.in_extra
                r["o"] += f.out_extra
                r["i0"] += f.in_extra_initial
                r["o0"] += f.out_extra_initial
        for x in self.vp_xcs:
            for ifx, vpi, i, o, i0, o0, d, drop, hec, tag, c1i, c1o in (
                    (x.low_if, x.low_vpi, x.l2h_rate + x.low_discard_rate, x.h2l_rate - x.h2l_drop, x.l2h_initial,
                     x.h2l_initial, x.low_discard_rate, x.h2l_drop, x.low_hec, x.low_tagged, x.low_clp1,
                     x.high_clp1 + x.high_tagged),
                    (x.high_if, x.high_vpi, x.h2l_rate + x.high_discard_rate, x.l2h_rate - x.l2h_drop, x.h2l_initial,
                     x.l2h_initial, x.high_discard_rate, x.l2h_drop, x.high_hec, x.high_tagged, x.high_clp1,
                     x.low_clp1 + x.low_tagged)):
                if (ifx, vpi) in rows:
                    raise ValueError(f"VPL {ifx}/{vpi} both cross-connected and terminating")
                rows[(ifx, vpi)] = dict(i=i, o=o, i0=i0, o0=o0, d=d, drop=drop, hec=hec, tag=tag, c1i=c1i, c1o=c1o,
                                        xc=x.index, td=x.traffic_descr, up=x.oper_up)
        out = []
        for (ifx, vpi), r in sorted(rows.items()):
            up = r.get("up", self.iface(ifx).oper_up)
            out.append(AtmVpl(ifx, vpi, r["i"], r["o"], r["i0"], r["o0"], r["d"], r["xc"], up, r["td"],
                              out_drop=r["drop"], hec=r["hec"], tagged=r["tag"], clp1_in=r["c1i"], clp1_out=r["c1o"]))
        return out

    def in_cells(self, ifindex: int) -> tuple[int, int]:
        """(rate, initial) of cells received on an interface: its VPLs' and those no connection
        takes (unknown VPI/VCI: received, then discarded)."""
        v = [p for p in self.vpls() if p.ifindex == ifindex]
        return sum(p.in_rate for p in v) + self.iface(ifindex).unknown_rate, sum(p.in_initial for p in v)

    def out_cells(self, ifindex: int) -> tuple[int, int]:
        v = [p for p in self.vpls() if p.ifindex == ifindex]
        return sum(p.out_rate for p in v), sum(p.out_initial for p in v)

    def discards(self, ifindex: int) -> int:
        return sum(v.discard_rate for v in self.vcls() if v.ifindex == ifindex)

    def out_discards(self, ifindex: int) -> int:
        """Cells/s lost at the interface's output (ifOutDiscards): its VPLs' output drops."""
        return sum(v.out_drop for v in self.vpls() if v.ifindex == ifindex)

    def hec_errors(self, ifindex: int) -> int:
        """Cells/s lost on the line into the interface (ifInErrors: uncorrectable HEC)."""
        return sum(v.hec for v in self.vpls() if v.ifindex == ifindex)
