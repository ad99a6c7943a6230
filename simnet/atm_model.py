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


@dataclass(frozen=True)
class AtmVcXc:
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
class AtmVpXc:
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
        out = []
        for x in self.vc_xcs:
            out.append(AtmVcl(x.low_if, x.low_vpi, x.low_vci,
                              x.l2h_rate + x.low_discard_rate, x.h2l_rate,
                              x.l2h_initial, x.h2l_initial, x.low_discard_rate,
                              x.index, x.oper_up, None, x.traffic_descr))
            out.append(AtmVcl(x.high_if, x.high_vpi, x.high_vci,
                              x.h2l_rate + x.high_discard_rate, x.l2h_rate,
                              x.h2l_initial, x.l2h_initial, x.high_discard_rate,
                              x.index, x.oper_up, None, x.traffic_descr))
        for t in self.terminated:
            i = self.iface(t.ifindex)
            out.append(AtmVcl(t.ifindex, t.vpi, t.vci, t.in_cells, t.out_cells,
                              t.in_pkts_initial * t.cells_per_pdu(t.in_pdu),
                              t.out_pkts_initial * t.cells_per_pdu(t.out_pdu), 0, 0,
                              i.oper_up, t, 1))
        return sorted(out, key=lambda v: (v.ifindex, v.vpi, v.vci))

    def vpls(self) -> list[AtmVpl]:
        rows: dict[tuple[int, int], dict] = {}
        for v in self.vcls():
            r = rows.setdefault((v.ifindex, v.vpi), dict(i=0, o=0, i0=0, o0=0, d=0, xc=0, td=1))
            r["i"] += v.in_rate
            r["o"] += v.out_rate
            r["i0"] += v.in_initial
            r["o0"] += v.out_initial
            r["d"] += v.discard_rate
        for i in self.interfaces:
            if i.in_extra or i.out_extra or i.in_extra_initial or i.out_extra_initial:
                r = rows.setdefault((i.ifindex, 0), dict(i=0, o=0, i0=0, o0=0, d=0, xc=0, td=1))
                r["i"] += i.in_extra
                r["o"] += i.out_extra
                r["i0"] += i.in_extra_initial
                r["o0"] += i.out_extra_initial
        for x in self.vp_xcs:
            for ifx, vpi, i, o, i0, o0 in ((x.low_if, x.low_vpi, x.l2h_rate, x.h2l_rate,
                                            x.l2h_initial, x.h2l_initial),
                                           (x.high_if, x.high_vpi, x.h2l_rate, x.l2h_rate,
                                            x.h2l_initial, x.l2h_initial)):
                if (ifx, vpi) in rows:
                    raise ValueError(f"VPL {ifx}/{vpi} both cross-connected and terminating")
                rows[(ifx, vpi)] = dict(i=i, o=o, i0=i0, o0=o0, d=0, xc=x.index,
                                        td=x.traffic_descr, up=x.oper_up)
        out = []
        for (ifx, vpi), r in sorted(rows.items()):
            up = r.get("up", self.iface(ifx).oper_up)
            out.append(AtmVpl(ifx, vpi, r["i"], r["o"], r["i0"], r["o0"], r["d"], r["xc"],
                              up, r["td"]))
        return out

    def in_cells(self, ifindex: int) -> tuple[int, int]:
        """(rate, initial) of cells received on an interface."""
        v = [p for p in self.vpls() if p.ifindex == ifindex]
        return sum(p.in_rate for p in v), sum(p.in_initial for p in v)

    def out_cells(self, ifindex: int) -> tuple[int, int]:
        v = [p for p in self.vpls() if p.ifindex == ifindex]
        return sum(p.out_rate for p in v), sum(p.out_initial for p in v)

    def discards(self, ifindex: int) -> int:
        return sum(v.discard_rate for v in self.vcls() if v.ifindex == ifindex)
