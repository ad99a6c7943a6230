"""The data model of the simulated network: constants, dataclasses and their rate arithmetic.

Everything here is plain data plus small pure helpers: the FORE ASX switch (ports, PVCs,
VP cross-connects and the pathTable traffic derived from them), the IF-MIB switch, hosts,
links and the `Network` that holds them.  The ATM-MIB/ATM2-MIB switch is modelled in
`simnet.atm_model`; `simnet.network` builds the concrete network from these classes, and
`simnet.recording` turns it into snmprec records.  Rates are cells/s (ATM) or octets/s and
packets/s (IP), all integers and constant per series, so the value of every counter at
time t is exactly computable (see `simnet.manifest.expected_value`).

FORE port numbering (documented choice, no MIB text available to verify):
    portNumber = 64 * (board - 1) + 8 * module + (port - 1), module A=0, B=1, C=2, D=3
    -> A1..A4 = 0..3, B1..B4 = 8..11, C1..C4 = 16..19, D1..D4 = 24..27, CTL = 56
    hwPortTable index = (board - 1, module 0..3, port 0..3); CTL = (board - 1, 7, 0)
    hwPortName (BNP) = "1A1".."1D4", "1CTL"; portName = the label of table 2b.
    hwPortIfIndex = portNumber + 1 (the FORE agent serves no ifTable here).
"""

from __future__ import annotations

from dataclasses import dataclass

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
IPSW8_OID = "1.3.6.1.4.1.32473.2.3"
ASX1000_OID = "1.3.6.1.4.1.326.2.2.8"     # FORE ASX-1000 (several switch boards)


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
    name: str                    # "A1" .. "D4", "CTL" (board 1), or with its board: "2A1", "2CTL"
    label: str                   # portName (table 2b "Name"); "" if none
    kind: str                    # key of FORE_PORT_KINDS
    admin_up: bool = True
    oper_up: bool = True
    state_ticks: int = 0         # portTime at recording start (time in current state)
    rx_total_initial: int = 0    # portReceivedCells at start (table 2c "Cells" in)
    tx_total_initial: int = 0    # portTransmittedCells at start (table 2c "Cells" out)
    rx_extra: int = 0            # cells/s received on unmodelled VCs (counted in VPI 0)
    tx_extra: int = 0            # cells/s transmitted from unmodelled VCs
    overflow_rate: int = 0       # hwPortOverflows cells/s (besides the cells its connections lose: drop_out)
    overflow_initial: int = 0
    shmem: bool = False          # a shared-memory network module: answers the *Shmem* tables (output side)

    @property
    def board(self) -> int:
        digits = self.name[:len(self.name) - len(self.name.lstrip("0123456789"))]
        return int(digits) if digits else 1

    @property
    def local(self) -> str:
        """The name on its board: "A1", "CTL"."""
        return self.name.lstrip("0123456789")

    @property
    def module(self) -> int:
        return 7 if self.local == "CTL" else "ABCD".index(self.local[0])

    @property
    def hw_port(self) -> int:
        return 0 if self.local == "CTL" else int(self.local[1:]) - 1

    @property
    def number(self) -> int:
        """Flat FORE portNumber (see module docstring); boards after the first add 64 each."""
        return 64 * (self.board - 1) + 8 * self.module + self.hw_port

    @property
    def bnp(self) -> str:
        return f"{self.board}{self.local}"

    @property
    def max_cells(self) -> int:
        return FORE_PORT_KINDS[self.kind][1]


@dataclass(frozen=True)
class ForeSignalling:
    """A SPANS signalling path (sigPathTable row): port, VPI, the far end's IP and ATM address."""
    port: str
    vpi: int
    remote_ip: str
    remote_atm: bytes = b""
    nni: bool = True
    up: bool = True


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
    reject_rate: int = 0         # chanRejectedCells growth (counted only: seed 002's unreliable counts)
    reject_initial: int = 0
    drop_in: int = 0             # cells/s of `rate` rejected at the input (chanRejectedCells; simnet.losses)
    drop_out: int = 0            # cells/s of `rate` lost at the output buffer (hwPortOverflows of out_port)

    @property
    def sent(self) -> int:
        """Cells/s transmitted on the output port: received less what the switch lost."""
        return self.rate - self.drop_in - self.drop_out


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
    drop_in: int = 0
    drop_out: int = 0

    @property
    def sent(self) -> int:
        return self.rate - self.drop_in - self.drop_out


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
    atm_address: bytes = b""                          # atmAddress: the switch's SPANS address (8 octets)
    signalling: tuple[ForeSignalling, ...] = ()       # sigPathTable
    spans_links: tuple[tuple[bytes, bytes], ...] = ()  # linkTable (src, dest): the SPANS topology database

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
            r["rej"] += vc.reject_rate + vc.drop_in
            r["rej0"] += vc.reject_initial
            r["alloc"] += vc.alloc
        for vp in self.vps:
            r = row(vp.in_port, vp.in_vpi)
            r["rate"] += vp.rate
            r["initial"] += vp.initial
            r["rej"] += vp.reject_rate + vp.drop_in
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
        return (sum(v.sent for v in self.vcs if v.out_port == port)
                + sum(v.sent for v in self.vps if v.out_port == port) + p.tx_extra)

    def overflow_rate(self, port: str) -> int:
        """hwPortOverflows growth: the port's own count plus the cells its output buffer lost."""
        return self.port(port).overflow_rate + self.lost_out(port)

    def lost_out(self, port: str) -> int:
        """Cells/s lost at the port's output buffer (portShmem3OverflowLostCells)."""
        conns: list[ForeVC | ForeVP] = [*self.vcs, *self.vps]
        return sum(v.drop_out for v in conns if v.out_port == port)

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
    lldp_chassis: bytes = b""                         # lldpLocChassisId (a MAC); empty: no LLDP agent
    lldp_neighbours: tuple[LldpNeighbour, ...] = ()   # lldpRemTable rows


@dataclass(frozen=True)
class LldpNeighbour:
    """One lldpRemTable row: what a neighbour advertised on a local port (LLDP port number)."""
    local_port: int
    chassis: bytes               # a MAC (chassis id subtype 4)
    port_id: str                 # an interface name (port id subtype 5)
    sys_name: str
    port_desc: str = ""
    mgmt_ip: str = ""


# --------------------------------------------------------------------------- hosts

@dataclass(frozen=True)
class Host:
    name: str
    address: str                 # "" = assigned at run time (unreachable host)
    reachable: bool
    description: str = ""


# --------------------------------------------------------------------------- links, the network

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
    losses: tuple = ()           # simnet.losses.Loss: cells lost at known hops (the manifest's truth)

    def switch(self, name: str):
        for s in self.switches:
            if s.name == name:
                return s
        raise KeyError(name)
