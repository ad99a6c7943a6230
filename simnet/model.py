"""The simulated network as Python data.

Everything here is plain data plus small pure helpers; `simnet.recording` turns it into
snmprec records.  Rates are cells/s (ATM) or octets/s and packets/s (IP), all integers and
constant per series, so the value of every counter at time t is exactly computable
(see `simnet.manifest.expected_value`).

Topology (one ATM network + one IP switch + hosts):

    mauchly-atm.ukans --1A1[asx200bx-b]1A4 ==trunk== A4[asx200bx]B4-- houdini.tioc.
    eckert-atm.ukans  --1A2                         A1 merlin-atm.edc, B1 blackstone-atm ...
    hopper-atm.ukans  --1A3 (port down)              D1 ==WAN== atm1/0/0[atm2sw]...

  * asx200bx   FORE ASX-200BX, 17 ports A1..D4 + CTL laid out like tables 2b/2c of the seed
               (names, speeds, initial cell counts, states).  Deviation: A4 is up here (it is
               down in table 2c) because it carries the trunk to asx200bx-b.
  * asx200bx-b FORE ASX-200BX, 4 ports 1A1..1A4; 1A4 is the trunk to asx200bx A4.
               PVC path mauchly -> houdini: asx200bx-b 1A1 0/210 -> 1A4 0/210 ->
               asx200bx A4 0/210 -> B4 0/210 (table 2d), and the reverse path.
  * atm2sw     standard ATM-MIB/ATM2-MIB switch; atm1/0/0 (ifIndex 1) is the far end of
               asx200bx D1 (ILMI neighbour = asx200bx's management address, ifName "1D1").
  * ipsw48     48-port IP switch (IF-MIB with 64-bit counters).

Link consistency: the cell rate a port transmits equals the rate its link peer receives
(asx200bx A4 <-> asx200bx-b 1A4, asx200bx D1 <-> atm2sw ifIndex 1).  The peers' "extra"
(unmodelled) traffic is derived from the other end so this holds by construction.

FORE port numbering (documented choice, no MIB text available to verify):
    portNumber = 8 * module + (port - 1), module A=0, B=1, C=2, D=3 (board 1 only)
    -> A1..A4 = 0..3, B1..B4 = 8..11, C1..C4 = 16..19, D1..D4 = 24..27, CTL = 56
    hwPortTable index = (board 0, module 0..3, port 0..3); CTL = (0, 7, 0)
    hwPortName (BNP) = "1A1".."1D4", "1CTL"; portName = the label of table 2b.
    hwPortIfIndex = portNumber + 1 (the FORE agent serves no ifTable here).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# --------------------------------------------------------------------------- constants

CELL_OCTETS = 53
TICKS_PER_SECOND = 100
DAY = 86400

# Maximum cell rates (cells/s) per port type; see shared notes "Cell arithmetic".
OC3_CELLS = 353207            # OC-3c, 149.76 Mb/s payload
TAXI100_CELLS = 235849        # TAXI 100 Mb/s / 424 bits
DS3_CELLS = 96000             # DS3 with PLCP
E3_CELLS = 80000              # E3 G.832
CTL_CELLS = 188679            # CTL port: 80 Mb/s (table 2b "Max 80000" kb/s) / 424 bits

FORE_ENTERPRISE = "1.3.6.1.4.1.326"
ASX200BX_OID = "1.3.6.1.4.1.326.2.2.5"
# RFC 5612 documentation enterprise number 32473: made-up sysObjectIDs for the two
# non-FORE devices (they must not be mistaken for a real vendor's product).
ATM2SW_OID = "1.3.6.1.4.1.32473.2.1"
IPSW48_OID = "1.3.6.1.4.1.32473.2.2"

# The exactly-one 32-bit counter initialised close to wrapping (wraps `wrap_in` seconds
# after the recording start) and the one 64-bit counter near 2^64 (wraps after `wrap64_in`).
NEAR_WRAP_32 = ("asx200bx", "portTransmittedCells", "D1")
NEAR_WRAP_64 = ("ipsw48", "ifHCInOctets", 48)
DEFAULT_WRAP_IN = 60.0
DEFAULT_WRAP64_IN = 90.0


def hms(days: int = 0, hours: int = 0, minutes: int = 0, seconds: int = 0) -> int:
    """Duration in TimeTicks (1/100 s)."""
    return (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * TICKS_PER_SECOND


# --------------------------------------------------------------------------- FORE switches

FORE_PORT_KINDS = {
    # kind: (hwPortModel, max cells/s, hwPortSpeed kbit/s)
    "oc3": (4, OC3_CELLS, 155520),
    "taxi100": (1, TAXI100_CELLS, 100000),
    "ds3": (3, DS3_CELLS, 44736),
    "ctl": (7, CTL_CELLS, 80000),
}


@dataclass(frozen=True)
class ForePort:
    name: str                    # "A1" .. "D4", "CTL"
    label: str                   # portName (table 2b "Name"); "" if none
    kind: str                    # key of FORE_PORT_KINDS
    admin_up: bool = True
    oper_up: bool = True
    state_ticks: int = 0         # portTime at recording start (time in current state)
    rx_total_initial: int = 0    # portReceivedCells at start (table 2c "Cells" in)
    tx_total_initial: int = 0    # portTransmittedCells at start (table 2c "Cells" out)
    rx_extra: int = 0            # cells/s received on unmodelled VCs (counted in VPI 0)
    tx_extra: int = 0            # cells/s transmitted from unmodelled VCs
    overflow_rate: int = 0       # hwPortOverflows cells/s
    overflow_initial: int = 0

    @property
    def module(self) -> int:
        return 7 if self.name == "CTL" else "ABCD".index(self.name[0])

    @property
    def hw_port(self) -> int:
        return 0 if self.name == "CTL" else int(self.name[1:]) - 1

    @property
    def number(self) -> int:
        """Flat FORE portNumber (see module docstring)."""
        return 8 * self.module + self.hw_port

    @property
    def bnp(self) -> str:
        return "1CTL" if self.name == "CTL" else f"1{self.name}"

    @property
    def max_cells(self) -> int:
        return FORE_PORT_KINDS[self.kind][1]


@dataclass(frozen=True)
class ForeVC:
    """A unidirectional PVC: channelTable row (input side) + channelRouteTable row."""
    in_port: str
    in_vpi: int
    in_vci: int
    out_port: str
    out_vpi: int
    out_vci: int
    rate: int                    # cells/s switched (chanCells growth)
    initial: int = 0             # chanCells at start
    name: str = ""
    servcat: int = 5             # chanServCat (assumed enum: 1 cbr 2 rtvbr 3 nrtvbr 4 abr 5 ubr)
    alloc: int = 0               # chanAllocBandwidth cells/s (CBR PCR)
    reject_rate: int = 0         # chanRejectedCells growth
    reject_initial: int = 0


@dataclass(frozen=True)
class ForeVP:
    """A VP cross-connect (through path): pathRouteTable row; its input is a pathTable row."""
    in_port: str
    in_vpi: int
    out_port: str
    out_vpi: int
    rate: int
    initial: int = 0
    name: str = ""
    alloc: int = 0
    reject_rate: int = 0
    reject_initial: int = 0


@dataclass(frozen=True)
class ForePath:
    """Derived pathTable row (input port, VPI)."""
    port: str
    vpi: int
    rate: int
    initial: int
    reject_rate: int
    reject_initial: int
    alloc: int
    uptime_ticks: int
    through: bool


@dataclass(frozen=True)
class ForeSwitch:
    name: str
    sys_name: str
    sys_descr: str
    sys_location: str
    mgmt_address: str
    uptime_ticks: int
    ports: tuple[ForePort, ...]
    vcs: tuple[ForeVC, ...]
    vps: tuple[ForeVP, ...] = ()
    sys_object_id: str = ASX200BX_OID
    hardware_version: int = 0x10       # displayed "1.0" (hex nibbles; 0x1 would be rev A)
    software_version: int = 0x030001   # 3.0.1
    software_text: str = "S_ForeThought_3.0.1 (1.13)"
    switch_type: int = 5               # assumed enum value for asx200bx (unverified)
    max_paths: int = 1024
    max_channels: int = 4096
    # portTransmittedCells initial overrides (near-wrap counter), port name -> value
    tx_initial_override: tuple[tuple[str, int], ...] = ()
    profile: str = "fore-asx"

    def port(self, name: str) -> ForePort:
        for p in self.ports:
            if p.name == name:
                return p
        raise KeyError(f"{self.name}: no port {name}")

    # ---- derived traffic (pure functions of the data above)

    def vc_uptime(self, vc: ForeVC | ForeVP) -> int:
        a, b = self.port(vc.in_port), self.port(vc.out_port)
        return min(a.state_ticks, b.state_ticks, self.uptime_ticks)

    def paths(self) -> list[ForePath]:
        """pathTable rows: every (input port, VPI) carrying VCs, plus VPI 0 of every port with
        unmodelled traffic or cells, plus the input side of each VP cross-connect.
        VPI 0 also carries the port's unmodelled traffic (rx_extra)."""
        out: dict[tuple[str, int], dict] = {}

        def row(port: str, vpi: int) -> dict:
            key = (port, vpi)
            if key not in out:
                out[key] = dict(rate=0, initial=0, rej=0, rej0=0, alloc=0, through=False)
            return out[key]

        for vc in self.vcs:
            r = row(vc.in_port, vc.in_vpi)
            r["rate"] += vc.rate
            r["initial"] += vc.initial
            r["rej"] += vc.reject_rate
            r["rej0"] += vc.reject_initial
            r["alloc"] += vc.alloc
        for vp in self.vps:
            r = row(vp.in_port, vp.in_vpi)
            r["rate"] += vp.rate
            r["initial"] += vp.initial
            r["rej"] += vp.reject_rate
            r["rej0"] += vp.reject_initial
            r["alloc"] += vp.alloc
            r["through"] = True
        for p in self.ports:
            vp_initial = sum(v.initial for v in self.vps if v.in_port == p.name)
            vc0 = [v for v in self.vcs if v.in_port == p.name and v.in_vpi == 0]
            extra_initial = p.rx_total_initial - vp_initial - sum(
                v.initial for v in self.vcs if v.in_port == p.name)
            if extra_initial < 0:
                raise ValueError(f"{self.name} {p.name}: VC/VP initials exceed port rx initial")
            if p.rx_extra or extra_initial or vc0 or (p.name, 0) in out:
                r = row(p.name, 0)
                r["rate"] += p.rx_extra
                r["initial"] += extra_initial
        paths = []
        for (port, vpi), r in sorted(out.items(), key=lambda kv: (self.port(kv[0][0]).number, kv[0][1])):
            p = self.port(port)
            paths.append(ForePath(port, vpi, r["rate"], r["initial"], r["rej"], r["rej0"],
                                  r["alloc"], min(p.state_ticks, self.uptime_ticks), r["through"]))
        return paths

    def rx_rate(self, port: str) -> int:
        return sum(p.rate for p in self.paths() if p.port == port)

    def rx_initial(self, port: str) -> int:
        return sum(p.initial for p in self.paths() if p.port == port)

    def tx_rate(self, port: str) -> int:
        p = self.port(port)
        return (sum(v.rate for v in self.vcs if v.out_port == port)
                + sum(v.rate for v in self.vps if v.out_port == port) + p.tx_extra)

    def tx_initial(self, port: str) -> int:
        override = dict(self.tx_initial_override)
        p = self.port(port)
        routed = (sum(v.initial for v in self.vcs if v.out_port == port)
                  + sum(v.initial for v in self.vps if v.out_port == port))
        total = override.get(port, p.tx_total_initial)
        if total < routed:
            raise ValueError(f"{self.name} {port}: routed initials exceed port tx initial")
        return total

    def alloc_in(self, port: str) -> int:
        return sum(p.alloc for p in self.paths() if p.port == port)

    def alloc_out(self, port: str) -> int:
        return (sum(v.alloc for v in self.vcs if v.out_port == port)
                + sum(v.alloc for v in self.vps if v.out_port == port))


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


# --------------------------------------------------------------------------- IF-MIB switch

@dataclass(frozen=True)
class EthPort:
    ifindex: int
    speed: int                   # bit/s
    alias: str = ""
    admin_up: bool = True
    oper_up: bool = True
    last_change_ticks: int = 0
    in_octets: int = 0           # octets/s
    out_octets: int = 0
    in_pkts: int = 0             # unicast packets/s
    out_pkts: int = 0
    in_octets_initial: int = 0   # ifHCInOctets at start (ifInOctets = this mod 2^32)
    out_octets_initial: int = 0
    in_pkts_initial: int = 0
    out_pkts_initial: int = 0
    in_discards: int = 0
    in_errors: int = 0
    out_discards: int = 0
    out_errors: int = 0
    err_initial: int = 0

    @property
    def name(self) -> str:
        return f"Gi1/0/{self.ifindex}" if self.speed <= 1_000_000_000 else f"Te1/1/{self.ifindex - 46}"

    @property
    def descr(self) -> str:
        return (f"GigabitEthernet1/0/{self.ifindex}" if self.speed <= 1_000_000_000
                else f"TenGigabitEthernet1/1/{self.ifindex - 46}")


@dataclass(frozen=True)
class IfSwitch:
    name: str
    sys_name: str
    sys_descr: str
    sys_location: str
    mgmt_address: str
    uptime_ticks: int
    ports: tuple[EthPort, ...]
    sys_object_id: str = IPSW48_OID
    profile: str = "if-mib"


# --------------------------------------------------------------------------- hosts

@dataclass(frozen=True)
class Host:
    name: str
    address: str                 # "" = assigned at run time (unreachable host)
    reachable: bool
    description: str = ""


UNREACHABLE_NETNS = "cellar-simnet"
UNREACHABLE_VETH_HOST = "csim-h0"     # root-namespace side (up, 198.18.0.1/30)
UNREACHABLE_VETH_PEER = "csim-p0"     # inside the namespace, left DOWN
UNREACHABLE_LOCAL = "198.18.0.1"      # RFC 2544 benchmarking range, unused here
UNREACHABLE_ADDRESS = "198.18.0.2"

HOSTS = (
    Host("mauchly-atm.ukans", "127.0.0.11", True, "behind asx200bx-b 1A1 (table 1: responding)"),
    Host("eckert-atm.ukans", "127.0.0.12", True, "behind asx200bx-b 1A2 (table 1: responding)"),
    Host("houdini.tioc", "127.0.0.13", True, "behind asx200bx B3/B4"),
    Host("punx-atm.tioc", "127.0.0.14", True, "asx200bx CTL host"),
    Host("merlin-atm.edc", "127.0.0.15", True, "behind asx200bx A1"),
    Host("hopper-atm.ukans", "", False, "behind asx200bx-b 1A3, port down (table 1: unreachable)"),
)


# --------------------------------------------------------------------------- the network

# Rates of the two-switch PVC (mauchly <-> houdini), shared by both FORE switches.
MAUCHLY_TO_HOUDINI = 85000
HOUDINI_TO_MAUCHLY = 30000


def _asx200bx(wrap_in: float) -> ForeSwitch:
    up = hms(10, 6, 26)                     # "ASX-200 switch up 10 days, 6:26"
    st = hms(10, 6, 27)                     # state time 10d 06:27 (capped at uptime)
    b3 = hms(3, 10, 30)                     # B3/B4 3d 10:30
    d1 = hms(0, 8, 52, 8)                   # D1 08:52:08
    M = 1_000_000
    ports = (
        ForePort("A1", "merlin-atm.edc", "oc3", True, True, st, 68 * M, 78 * M, 20000, 15000, 1, 5000),
        ForePort("A2", "gandalf-atm.msc", "oc3", True, True, st, 48 * M, 57 * M, 2000, 1000),
        ForePort("A3", "cardini-atm.bcb", "oc3", True, True, st, 38 * M, 135 * M, 500, 300),
        ForePort("A4", "asx200bx-b.ukans", "oc3", True, True, st, 135 * M, 226 * M, 1000, 800),
        ForePort("B1", "blackstone-atm", "taxi100", True, True, st, 15 * M, 11 * M, 1000, 3000),
        ForePort("B2", "slydini-atm", "taxi100", True, True, st, 7 * M, 8 * M, 200, 100),
        ForePort("B3", "houdini", "taxi100", True, True, b3, 321 * M, 124 * M, 2000, 1000),
        ForePort("B4", "houdini.tioc.", "taxi100", True, True, b3, 58 * M, 272 * M, 500, 700),
        ForePort("C1", "", "ds3", True, False, st, 0, 1 * M),
        ForePort("C2", "", "ds3", True, False, st, 873946, 2 * M),
        ForePort("C3", "", "ds3", True, False, st, 531871, 2 * M),
        ForePort("C4", "", "ds3", True, False, st, 0, 1 * M),
        ForePort("D1", "134.207.18.71", "oc3", True, True, d1, 276 * M, 66 * M, 5000, 10000, 3, 20000),
        ForePort("D2", "", "oc3", True, False, st, 0, 1 * M),
        ForePort("D3", "", "oc3", True, False, st, 0, 1 * M),
        ForePort("D4", "", "oc3", False, False, st, 0, 1 * M),
        ForePort("CTL", "punx-atm.tioc.m", "ctl", True, True, st, 88 * M, 64 * M, 300, 400),
    )
    vcs = (
        # figures 15/16: VC 0/201 on A1 and B1
        ForeVC("A1", 0, 201, "B1", 0, 201, 120000, 8 * M, "edc-iss->gsfc", reject_rate=2, reject_initial=12000),
        ForeVC("B1", 0, 201, "A1", 0, 201, 4000, 1_500_000, "gsfc->edc-iss"),
        # table 2d
        ForeVC("A4", 0, 210, "B4", 0, 210, MAUCHLY_TO_HOUDINI, 1 * M, "mauchly->houdini"),
        ForeVC("B4", 0, 210, "A4", 0, 210, HOUDINI_TO_MAUCHLY, 1 * M, "houdini->mauchly"),
        ForeVC("A2", 0, 100, "D1", 0, 100, 60000, 9 * M, "gandalf->wan"),
        ForeVC("D1", 0, 100, "A2", 0, 100, 110000, 30 * M, "wan->gandalf"),
        ForeVC("A3", 0, 120, "D1", 0, 120, 20000, 4 * M, "cardini->wan"),
        ForeVC("D1", 0, 120, "A3", 0, 120, 31000, 60 * M, "wan->cardini"),
        ForeVC("B2", 0, 130, "CTL", 0, 130, 500, 2 * M, "slydini->punx", servcat=1, alloc=1000),
        ForeVC("CTL", 0, 130, "B2", 0, 130, 600, 3 * M, "punx->slydini", servcat=1, alloc=1000),
        ForeVC("B3", 0, 140, "D1", 0, 140, 90000, 200 * M, "houdini->wan", reject_rate=1, reject_initial=3400),
        ForeVC("D1", 0, 140, "B3", 0, 140, 50000, 80 * M, "wan->houdini"),
        ForeVC("A1", 0, 15, "CTL", 0, 65, 10, 50000, "spans A1", servcat=1, alloc=100),
        ForeVC("CTL", 0, 65, "A1", 0, 15, 9, 45000, "spans A1", servcat=1, alloc=100),
        ForeVC("D1", 0, 16, "CTL", 0, 66, 12, 70000, "ilmi D1", servcat=1, alloc=100),
        ForeVC("CTL", 0, 66, "D1", 0, 16, 14, 70000, "ilmi D1", servcat=1, alloc=100),
        ForeVC("C2", 0, 60, "D2", 0, 60, 0, 873946, "c2->d2"),
        ForeVC("C3", 0, 61, "D3", 0, 61, 0, 531871, "c3->d3"),
    )
    vps = (
        ForeVP("D1", 5, "A2", 5, 25000, 20 * M, "wan vp5->gandalf"),
        ForeVP("A2", 5, "D1", 5, 8000, 10 * M, "gandalf vp5->wan"),
        ForeVP("D1", 7, "B3", 7, 15000, 30 * M, "wan vp7->houdini"),
    )
    sw = ForeSwitch(
        name="asx200bx", sys_name="asx200bx.tioc.aai.net",
        sys_descr="FORE Systems ASX-200BX, ForeThought 3.0.1, hardware 1.0",
        sys_location="TIOC, Lawrence KS (AAI)", mgmt_address="127.0.1.1",
        uptime_ticks=up, ports=ports, vcs=vcs, vps=vps)
    rate = sw.tx_rate("D1")
    near = 2 ** 32 - int(round(rate * wrap_in))
    return replace(sw, tx_initial_override=(("D1", near),))


def _asx200bx_b(peer: ForeSwitch) -> ForeSwitch:
    up = hms(3, 2, 0)
    M = 1_000_000
    vcs = (
        ForeVC("A1", 0, 210, "A4", 0, 210, MAUCHLY_TO_HOUDINI, 1 * M, "mauchly->houdini"),
        ForeVC("A4", 0, 210, "A1", 0, 210, HOUDINI_TO_MAUCHLY, 1 * M, "houdini->mauchly"),
        ForeVC("A1", 0, 100, "A2", 0, 100, 4000, 500_000, "mauchly->eckert"),
        ForeVC("A2", 0, 100, "A1", 0, 100, 3500, 400_000, "eckert->mauchly"),
    )
    # trunk A4 <-> peer A4: what the peer transmits we receive, and vice versa
    rx_routed = sum(v.rate for v in vcs if v.in_port == "A4")
    tx_routed = sum(v.rate for v in vcs if v.out_port == "A4")
    trunk_rx_extra = peer.tx_rate("A4") - rx_routed
    trunk_tx_extra = peer.rx_rate("A4") - tx_routed
    assert trunk_rx_extra >= 0 and trunk_tx_extra >= 0
    ports = (
        ForePort("A1", "mauchly-atm.ukans", "oc3", True, True, up, 20 * M, 9 * M, 500, 300),
        ForePort("A2", "eckert-atm.ukans", "oc3", True, True, up, 2 * M, 3 * M, 200, 150),
        ForePort("A3", "hopper-atm.ukans", "oc3", True, False, hms(1, 4, 12), 700_000, 650_000),
        ForePort("A4", "asx200bx.tioc", "oc3", True, True, up, 8 * M, 25 * M,
                 trunk_rx_extra, trunk_tx_extra),
    )
    return ForeSwitch(
        name="asx200bx-b", sys_name="asx200bx-b.ukans.aai.net",
        sys_descr="FORE Systems ASX-200BX, ForeThought 3.0.1, hardware 1.0",
        sys_location="University of Kansas (AAI)", mgmt_address="127.0.1.2",
        uptime_ticks=up, ports=ports, vcs=vcs)


def _atm2sw(fore: ForeSwitch) -> AtmSwitch:
    M = 1_000_000
    up = hms(21, 3, 7, 12)
    nocl = "1.3.6.1.2.1.37.1.1.2"  # atmNoClpNoScr
    tds = (
        TrafficDescr(1, nocl, OC3_CELLS, 6),   # UBR, PCR = line rate
        TrafficDescr(2, nocl, DS3_CELLS, 6),
        TrafficDescr(3, nocl, 1000, 2),        # CBR 1000 cells/s (signalling/management)
    )
    vc_xcs = (
        AtmVcXc(1, 1, 0, 100, 2, 0, 100, 60000, 110000, 3 * M, 7 * M, high_discard_rate=3),
        AtmVcXc(2, 1, 0, 120, 3, 0, 120, 20000, 31000, 1 * M, 2 * M),
        AtmVcXc(3, 1, 0, 140, 2, 0, 140, 90000, 50000, 9 * M, 5 * M),
        AtmVcXc(4, 3, 0, 400, 4, 0, 400, 0, 0, 250_000, 310_000, oper_up=False),
        AtmVcXc(5, 3, 0, 300, 5, 0, 300, 4000, 5000, 400_000, 500_000, traffic_descr=2),
    )
    vp_xcs = (
        AtmVpXc(1, 1, 5, 3, 5, 8000, 25000, 2 * M, 6 * M),
        AtmVpXc(2, 1, 7, 5, 7, 0, 15000, 0, 3 * M, traffic_descr=2),
    )
    terminated = (
        AtmTermVcl(1, 0, 16, 7, 6, 60, 60, 35000, 30000, encaps=9),    # ILMI (other encaps)
        AtmTermVcl(2, 0, 32, 25, 20, 552, 552, 200000, 150000),        # IP management, LLC
    )
    # ifIndex 1 is the far end of the FORE's D1: derive its unmodelled traffic from it.
    base = AtmSwitch("atm2sw", "", "", "", "", 0,
                     (AtmIf(1, "atm1/0/0", "oc3"), AtmIf(2, "atm1/0/1", "oc3"),
                      AtmIf(3, "atm1/0/2", "oc3"), AtmIf(4, "atm1/0/3", "oc3"),
                      AtmIf(5, "atm3/0/0", "ds3"), AtmIf(6, "atm3/0/1", "e3")),
                     vc_xcs, vp_xcs, terminated, tds)
    in1 = base.in_cells(1)[0]
    out1 = base.out_cells(1)[0]
    if1_in_extra = fore.tx_rate("D1") - in1
    if1_out_extra = fore.rx_rate("D1") - out1
    assert if1_in_extra >= 0 and if1_out_extra >= 0, (if1_in_extra, if1_out_extra)
    ifs = (
        AtmIf(1, "atm1/0/0", "oc3", "to asx200bx D1 (TIOC)", True, True, hms(0, 0, 0, 41),
              fore.mgmt_address, "1D1", if1_in_extra, if1_out_extra, 12 * M, 8 * M),
        AtmIf(2, "atm1/0/1", "oc3", "to GSFC", True, True, hms(0, 0, 0, 41),
              in_extra=4000, out_extra=2500, in_extra_initial=14 * M, out_extra_initial=9 * M),
        AtmIf(3, "atm1/0/2", "oc3", "to EDC", True, True, hms(2, 1, 0, 0),
              in_extra=1000, out_extra=800, in_extra_initial=3 * M, out_extra_initial=2 * M),
        AtmIf(4, "atm1/0/3", "oc3", "spare (no light)", True, False, hms(5, 0, 0, 0)),
        AtmIf(5, "atm3/0/0", "ds3", "to NCSA DS3", True, True, hms(0, 0, 1, 2),
              in_extra=200, out_extra=100, in_extra_initial=1 * M, out_extra_initial=700_000),
        AtmIf(6, "atm3/0/1", "e3", "unused", False, False, 0),
    )
    return AtmSwitch(
        name="atm2sw", sys_name="wan-atm.aai.net",
        sys_descr="Simulated standard ATM switch (ATM-MIB RFC 2515, ATM2-MIB RFC 3606)",
        sys_location="AAI WAN hub", mgmt_address="127.0.1.3", uptime_ticks=up,
        interfaces=ifs, vc_xcs=vc_xcs, vp_xcs=vp_xcs, terminated=terminated,
        traffic_descrs=tds)


def _ipsw48(wrap64_in: float) -> IfSwitch:
    up = hms(47, 5, 12, 33)
    up_s = up // TICKS_PER_SECOND
    G = 1_000_000_000
    aliases = {1: "mauchly-eth", 2: "houdini-eth", 3: "eckert-eth", 4: "merlin-eth",
               5: "punx-eth", 45: "fileserver-1", 46: "backup-1", 47: "uplink core-a",
               48: "uplink core-b"}
    ports = []
    for n in range(1, 49):
        speed = 10 * G if n >= 47 else G
        admin_up = n != 44
        oper_up = admin_up and n not in (13, 27, 38)
        if n == 45:
            i, o = 110_000_000, 95_000_000           # 880 / 760 Mb/s
        elif n == 46:
            i, o = 62_500_000, 50_000_000
        elif n == 47:
            i, o = 450_000_000, 390_000_000          # 3.6 / 3.12 Gb/s
        elif n == 48:
            i, o = 280_000_000, 310_000_000
        else:
            i = G // 8 * (2 + (n * 29) % 71) // 100  # 2..72 % of 1 Gb/s
            o = G // 8 * (2 + (n * 17 + 11) % 63) // 100
        if not oper_up:
            i = o = 0
        age = up_s * (30 + n % 50) // 100            # counters grew for part of the uptime
        i0 = i * age if i else 1_234_567 * n
        o0 = o * age if o else 7_654_321 * n
        ports.append(EthPort(
            ifindex=n, speed=speed, alias=aliases.get(n, f"desk-{n:02d}" if n % 3 else ""),
            admin_up=admin_up, oper_up=oper_up,
            last_change_ticks=(n * 7919 * 100) % up,
            in_octets=i, out_octets=o, in_pkts=i // 750, out_pkts=o // 900,
            in_octets_initial=i0, out_octets_initial=o0,
            in_pkts_initial=i0 // 750, out_pkts_initial=o0 // 900,
            in_discards=5 if n == 45 else 0, in_errors=2 if n == 7 else 0,
            out_discards=1 if n == 47 else 0, err_initial=1000 + n))
    # the 64-bit counter near 2^64
    p48 = ports[47]
    near = 2 ** 64 - int(round(p48.in_octets * wrap64_in))
    ports[47] = replace(p48, in_octets_initial=near)
    return IfSwitch(
        name="ipsw48", sys_name="ipsw48.tioc.aai.net",
        sys_descr="Simulated 48-port IP switch (IF-MIB, 64-bit counters)",
        sys_location="TIOC machine room", mgmt_address="127.0.1.4", uptime_ticks=up,
        ports=tuple(ports))


@dataclass(frozen=True)
class Link:
    """A physical link; port names as the collector names ports: FORE "A4"/"CTL",
    others ifName."""
    a_switch: str
    a_port: str
    b_switch: str
    b_port: str
    kind: str


@dataclass(frozen=True)
class Network:
    switches: tuple
    hosts: tuple[Host, ...]
    links: tuple[Link, ...]
    pvc_paths: tuple[dict, ...]
    wrap_in: float
    wrap64_in: float

    def switch(self, name: str):
        for s in self.switches:
            if s.name == name:
                return s
        raise KeyError(name)


def build_network(wrap_in: float = DEFAULT_WRAP_IN, wrap64_in: float = DEFAULT_WRAP64_IN) -> Network:
    """The whole simulated network.  `wrap_in`/`wrap64_in`: seconds after the recording start
    at which the near-wrap Counter32 (asx200bx D1 portTransmittedCells) and Counter64
    (ipsw48 ifIndex 48 ifHCInOctets) wrap."""
    if wrap_in <= 0 or wrap64_in <= 0:
        raise ValueError("wrap times must be positive")
    asx = _asx200bx(wrap_in)
    asxb = _asx200bx_b(asx)
    atm = _atm2sw(asx)
    ip = _ipsw48(wrap64_in)
    links = (
        Link("asx200bx", "A4", "asx200bx-b", "A4", "atm-trunk"),
        Link("asx200bx", "D1", "atm2sw", "atm1/0/0", "atm-wan"),
    )
    pvc_paths = (
        {"name": "mauchly->houdini", "source": "mauchly-atm.ukans", "destination": "houdini.tioc",
         "hops": [{"switch": "asx200bx-b", "in": ["A1", 0, 210], "out": ["A4", 0, 210]},
                  {"switch": "asx200bx", "in": ["A4", 0, 210], "out": ["B4", 0, 210]}],
         "rate": MAUCHLY_TO_HOUDINI},
        {"name": "houdini->mauchly", "source": "houdini.tioc", "destination": "mauchly-atm.ukans",
         "hops": [{"switch": "asx200bx", "in": ["B4", 0, 210], "out": ["A4", 0, 210]},
                  {"switch": "asx200bx-b", "in": ["A4", 0, 210], "out": ["A1", 0, 210]}],
         "rate": HOUDINI_TO_MAUCHLY},
    )
    return Network((asx, asxb, atm, ip), HOSTS, links, pvc_paths, wrap_in, wrap64_in)
