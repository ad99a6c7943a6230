"""The concrete simulated network: its switches, hosts, links and PVC paths.

Built from the classes of `simnet.model` and `simnet.atm_model`; `build_network` returns
the whole `Network`.

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
"""

from __future__ import annotations

from dataclasses import replace

from .atm_model import AtmIf, AtmSwitch, AtmTermVcl, AtmVcXc, AtmVpXc, TrafficDescr
from .losses import Loss
from .losses import apply as apply_losses
from .model import (
    ASX1000_OID,
    DS3_CELLS,
    IPSW8_OID,
    OC3_CELLS,
    TICKS_PER_SECOND,
    EthPort,
    ForePort,
    ForeSignalling,
    ForeSwitch,
    ForeVC,
    ForeVP,
    Host,
    IfSwitch,
    Link,
    LldpNeighbour,
    Network,
    hms,
)

# The exactly-one 32-bit counter initialised close to wrapping (wraps `wrap_in` seconds
# after the recording start) and the one 64-bit counter near 2^64 (wraps after `wrap64_in`).
NEAR_WRAP_32 = ("asx200bx", "portTransmittedCells", "D1")
NEAR_WRAP_64 = ("ipsw48", "ifHCInOctets", 48)
DEFAULT_WRAP_IN = 60.0
DEFAULT_WRAP64_IN = 90.0


# --------------------------------------------------------------------------- hosts

NETNS_PREFIX = "cellar-sim-"         # + a digest of the state dir (simnet.hosts.netns_name)
LEGACY_NETNS = "cellar-simnet"        # before the checkout's own namespace (its csim-h0 was in the root namespace)
UNREACHABLE_VETH_HOST = "csim-h0"     # inside simnet's namespace, up, 198.18.0.1/30
UNREACHABLE_VETH_PEER = "csim-p0"     # its peer, in the same namespace, left DOWN
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

# SPANS addresses of the two FORE switches (atmAddress, 8 octets) and their SPANS topology
# database (linkTable), the same on both: the trunk, in each direction.
ASX_A_ATM = bytes.fromhex("f21a00017f000101")
ASX_B_ATM = bytes.fromhex("f21a00027f000102")
SPANS_LINKS = ((ASX_A_ATM, ASX_B_ATM), (ASX_B_ATM, ASX_A_ATM))

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
    signalling = (
        ForeSignalling("A4", 0, "127.0.1.2", ASX_B_ATM),                  # the trunk: NNI to asx200bx-b
        ForeSignalling("A1", 0, "127.0.0.15", nni=False),                 # UNI: merlin-atm.edc's adapter
        ForeSignalling("B4", 0, "127.0.0.13", nni=False),                 # UNI: houdini
    )
    sw = ForeSwitch(
        name="asx200bx", sys_name="asx200bx.tioc.aai.net",
        sys_descr="FORE Systems ASX-200BX, ForeThought 3.0.1, hardware 1.0",
        sys_location="TIOC, Lawrence KS (AAI)", mgmt_address="127.0.1.1",
        uptime_ticks=up, ports=ports, vcs=vcs, vps=vps, atm_address=ASX_A_ATM, signalling=signalling,
        spans_links=SPANS_LINKS)
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
    signalling = (
        ForeSignalling("A4", 0, "127.0.1.1", ASX_A_ATM),                  # the trunk: NNI to asx200bx
        ForeSignalling("A1", 0, "127.0.0.11", nni=False),                 # UNI: mauchly
        ForeSignalling("A2", 0, "127.0.0.12", nni=False),                 # UNI: eckert
    )
    return ForeSwitch(
        name="asx200bx-b", sys_name="asx200bx-b.ukans.aai.net",
        sys_descr="FORE Systems ASX-200BX, ForeThought 3.0.1, hardware 1.0",
        sys_location="University of Kansas (AAI)", mgmt_address="127.0.1.2",
        uptime_ticks=up, ports=ports, vcs=vcs, atm_address=ASX_B_ATM, signalling=signalling,
        spans_links=SPANS_LINKS)


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
        ports=tuple(ports), lldp_chassis=IPSW48_MAC, lldp_neighbours=IPSW48_LLDP)


# ipsw48 runs LLDP (LLDP-MIB); ipsw8 does not. Port 40 of ipsw48 is cabled to port 8 of ipsw8: the
# link is known from one side only. The core switches behind the uplinks are not in the inventory
# (RFC 7042 documentation MACs, RFC 5737 addresses), and one row names a local port the switch does
# not have: neither may become a link.
IPSW48_MAC = bytes.fromhex("001b2c000000")
IPSW8_MAC = bytes.fromhex("001b2c080000")
IPSW48_UPLINK = 40          # ipsw48 port to ipsw8
IPSW8_UPLINK = 8            # ipsw8 port to ipsw48
IPSW48_LLDP = (
    LldpNeighbour(IPSW48_UPLINK, IPSW8_MAC, f"Gi1/0/{IPSW8_UPLINK}", "ipsw8.tioc.aai.net", "uplink to ipsw48",
                  "127.0.1.5"),
    LldpNeighbour(47, bytes.fromhex("00005e0053a1"), "Te1/0/1", "core-a.tioc.aai.net", "to ipsw48", "192.0.2.1"),
    LldpNeighbour(48, bytes.fromhex("00005e0053a2"), "Te1/0/1", "core-b.tioc.aai.net", "to ipsw48", "192.0.2.2"),
    LldpNeighbour(99, bytes.fromhex("00005e0053a3"), "ge-0/0/0", "phantom.tioc.aai.net"),
)


def _ipsw8(peer: IfSwitch) -> IfSwitch:
    """An 8-port edge switch without LLDP; port 8 carries what ipsw48 port 40 sends and receives."""
    up = hms(12, 4, 0, 0)
    up_s = up // TICKS_PER_SECOND
    uplink = next(p for p in peer.ports if p.ifindex == IPSW48_UPLINK)

    def far(initial: int) -> int:
        """Below 2^31: no 32-bit counter starts near its wrap (one does, on purpose: NEAR_WRAP_32)."""
        return initial % 2 ** 31
    ports = []
    for n in range(1, 9):
        if n == IPSW8_UPLINK:
            i, o = uplink.out_octets, uplink.in_octets
            pi, po = uplink.out_pkts, uplink.in_pkts
        else:
            i, o = 1_000_000 * n, 800_000 * n
            pi, po = i // 700, o // 800
        ports.append(EthPort(ifindex=n, speed=1_000_000_000, alias="uplink ipsw48" if n == IPSW8_UPLINK else f"lab-{n}",
                             last_change_ticks=(n * 3571 * 100) % up, in_octets=i, out_octets=o, in_pkts=pi,
                             out_pkts=po, in_octets_initial=far(i * up_s // 3),
                             out_octets_initial=far(o * up_s // 3), in_pkts_initial=far(pi * up_s // 3),
                             out_pkts_initial=far(po * up_s // 3), err_initial=100 + n))
    return IfSwitch(
        name="ipsw8", sys_name="ipsw8.tioc.aai.net", sys_descr="Simulated 8-port edge switch (IF-MIB, no LLDP)",
        sys_location="TIOC lab", mgmt_address="127.0.1.5", uptime_ticks=up, ports=tuple(ports),
        sys_object_id=IPSW8_OID)


def build_network(wrap_in: float = DEFAULT_WRAP_IN, wrap64_in: float = DEFAULT_WRAP64_IN,
                  losses: tuple[Loss, ...] | list[Loss] = (), shmem: tuple[tuple[str, str], ...] = ()) -> Network:
    """The whole simulated network.  `wrap_in`/`wrap64_in`: seconds after the recording start
    at which the near-wrap Counter32 (asx200bx D1 portTransmittedCells) and Counter64
    (ipsw48 ifIndex 48 ifHCInOctets) wrap. `losses`: cells lost at known hops (simnet.losses):
    the hop's loss counters and every later hop's cell counts say so. `shmem`: (FORE switch, port)
    on a shared-memory network module, which answers the output-side *Shmem* tables."""
    if wrap_in <= 0 or wrap64_in <= 0:
        raise ValueError("wrap times must be positive")
    asx = _asx200bx(wrap_in)
    asxb = _asx200bx_b(asx)
    atm = _atm2sw(asx)
    ip = _ipsw48(wrap64_in)
    ip8 = _ipsw8(ip)
    links = (
        Link("asx200bx", "A4", "asx200bx-b", "A4", "atm-trunk"),
        Link("asx200bx", "D1", "atm2sw", "atm1/0/0", "atm-wan"),
        Link("ipsw48", f"Gi1/0/{IPSW48_UPLINK}", "ipsw8", f"Gi1/0/{IPSW8_UPLINK}", "ethernet"),
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
    for name, port in shmem:
        sw = {"asx200bx": asx, "asx200bx-b": asxb}[name]
        sw = replace(sw, ports=tuple(replace(p, shmem=True) if p.name == port else p for p in sw.ports))
        asx, asxb = (sw, asxb) if name == "asx200bx" else (asx, sw)
    net = Network((asx, asxb, atm, ip, ip8), HOSTS, links, pvc_paths, wrap_in, wrap64_in)
    if not losses:
        return net
    net = apply_losses(net, losses)
    # The near-wrap counter still wraps `wrap_in` s after the start, whatever the losses did to its rate.
    fore = net.switch("asx200bx")
    near = 2 ** 32 - int(round(replace(fore, tx_initial_override=()).tx_rate("D1") * wrap_in))
    return replace(net, switches=tuple(replace(sw, tx_initial_override=(("D1", near),)) if sw is fore else sw
                                       for sw in net.switches))


def build_multiboard_network() -> Network:
    """One FORE ASX-1000 with three switch boards (BNP names 1A1, 2A1, 3A1 ..., a control port per
    board): the port names must stay distinct everywhere. Not part of `build_network`."""
    up = hms(4, 1, 0)
    M = 1_000_000
    ports = (
        ForePort("1A1", "ws-1", "oc3", True, True, up, 5 * M, 4 * M, 1000, 900),
        ForePort("1A2", "ws-2", "oc3", True, True, up, 3 * M, 3 * M, 400, 300),
        ForePort("1B1", "", "taxi100", True, False, up, 0, 0),
        ForePort("1CTL", "", "ctl", True, True, up, 2 * M, 2 * M, 20, 20),
        ForePort("2A1", "ws-3", "oc3", True, True, up, 7 * M, 6 * M, 2000, 1500),
        ForePort("2A2", "", "oc3", True, False, up, 0, 0),
        ForePort("2CTL", "", "ctl", True, True, up, 1 * M, 1 * M, 10, 10),
        ForePort("3A1", "ws-4", "ds3", True, True, up, 1 * M, 1 * M, 300, 200),
        ForePort("3CTL", "", "ctl", True, True, up, 1 * M, 1 * M, 10, 10),
    )
    vcs = (
        ForeVC("1A1", 0, 100, "2A1", 0, 100, 1200, 2 * M, "ws-1->ws-3"),
        ForeVC("2A1", 0, 100, "1A1", 0, 100, 900, 1 * M, "ws-3->ws-1"),
        ForeVC("3A1", 0, 120, "1A2", 0, 120, 700, 1 * M, "ws-4->ws-2"),
        ForeVC("1A2", 0, 120, "3A1", 0, 120, 500, 1 * M, "ws-2->ws-4"),
    )
    sw = ForeSwitch(
        name="asx1000", sys_name="asx1000.tioc.aai.net",
        sys_descr="FORE Systems ASX-1000, ForeThought 5.3.1, hardware 1.0",
        sys_location="TIOC, Lawrence KS (AAI)", mgmt_address="127.0.1.6", uptime_ticks=up, ports=ports, vcs=vcs,
        sys_object_id=ASX1000_OID, switch_type=8, software_version=0x050301, software_text="S_ForeThought_5.3.1")
    return Network((sw,), (), (), (), DEFAULT_WRAP_IN, DEFAULT_WRAP64_IN)
