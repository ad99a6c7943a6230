"""Cells lost at a known hop: a model parameter of the simulated network, for the tests that must
find where a VCC loses cells (seed 002: cell counts per hop).

    net = build_network(losses=(Loss("asx200bx-b", "A1", 0, 210, 400, "overflow"),))

A `Loss` names the hop by where the connection ENTERS it (switch, the port the cells arrive on, VPI,
VCI; VCI None: a VP cross-connect) and says how many cells/s are lost there and how:

  overflow  lost inside the switch, at the output buffer of the port the connection leaves on:
            counted in at this hop, not out. FORE: hwPortOverflows of the output port (and, on a
            shared-memory module, vcShmem2TotalLostCells of the output VC, portShmem3OverflowLostCells);
            ATM2-MIB switch: ifOutDiscards of the output interface.
  discard   policed at this hop's input: counted in (before policing), not out. FORE:
            chanRejectedCells / pathRejectedCells; ATM2: atmV{c,p}lStatTotalDiscards and Clp0Discards
            of the input VCL/VPL, ifInDiscards of the input interface.
  line      lost on the link INTO this hop (uncorrectable HEC errors): the previous hop counted them
            out, this one never counts them in. ATM2: ifInErrors of the input interface and one
            atmInterfaceOCDEvents per 7 such cells; FORE answers no counter for it.
  unknown   (ATM2 only) arrived with a VPI/VCI no connection has here (a mis-set cross-connect
            upstream): counted in by the interface (ifInOctets, ifInUnknownProtos), not by the VCL.
  tag       not a loss: CLP=0 cells policing tags CLP=1 at this hop's input (ATM2 Clp0Tagged); this
            hop's output and every later hop count them in Total* but not in Clp0*.
  crc, sar_timeout, oversized   (ATM2, a VCL the switch terminates) AAL5 PDUs/s received with CRC
            errors, not reassembled in time, too large (ATM-MIB aal5VccTable).

Every later hop of the connection (followed through the switches' cross-connects and the network's
links, same VPI/VCI across a link) receives, counts and sends `rate` cells/s fewer (tag: fewer
CLP=0 cells). Ports keep their link consistency: what one end sends the other receives, except
`line` losses, which the receiving port counts neither in its cells nor its octets.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

from .atm_model import AtmSwitch, AtmTermVcl, AtmVcXc, AtmVpXc
from .model import ForeSwitch, ForeVC, ForeVP, Network

KINDS = ("overflow", "discard", "line", "unknown", "tag", "crc", "sar_timeout", "oversized")
AAL5_KINDS = {"crc": "crc_errors", "sar_timeout": "sar_timeouts", "oversized": "oversized"}


@dataclass(frozen=True)
class Loss:
    switch: str
    port: str                    # where the cells arrive: FORE port name ("A4"), ATM interface ifName ("atm1/0/0")
    vpi: int
    vci: int | None
    rate: int                    # cells/s (PDUs/s for the AAL5 kinds)
    kind: str = "overflow"

    def as_json(self) -> dict:
        return {"switch": self.switch, "port": self.port, "vpi": self.vpi, "vci": self.vci, "rate": self.rate,
                "kind": self.kind}

    @classmethod
    def parse(cls, text: str) -> Loss:
        """SWITCH:PORT:VPI[.VCI]:RATE[:KIND] (the `python -m simnet up --loss` form)."""
        parts = text.split(":")
        if len(parts) not in (4, 5):
            raise ValueError(f"loss {text!r}: SWITCH:PORT:VPI[.VCI]:RATE[:KIND]")
        vpi, _, vci = parts[2].partition(".")
        return cls(parts[0], parts[1], int(vpi), int(vci) if vci else None, int(parts[3]),
                   parts[4] if len(parts) == 5 else "overflow")


@dataclass(frozen=True)
class Hop:
    """A connection through one switch: where it enters (port name, VPI, VCI) and the cross-connect."""
    switch: str
    port: str
    vpi: int
    vci: int | None
    conn: object                 # ForeVC | ForeVP | (AtmVcXc | AtmVpXc, "low" | "high") | AtmTermVcl
    out: tuple[str, int, int | None] | None    # where it leaves (port, VPI, VCI); None: terminated here


def _fore_hop(sw: ForeSwitch, port: str, vpi: int, vci: int | None) -> Hop | None:
    if vci is not None:
        for vc in sw.vcs:
            if (vc.in_port, vc.in_vpi, vc.in_vci) == (port, vpi, vci):
                return Hop(sw.name, port, vpi, vci, vc, (vc.out_port, vc.out_vpi, vc.out_vci))
    for vp in sw.vps:
        if (vp.in_port, vp.in_vpi) == (port, vpi):
            return Hop(sw.name, port, vpi, vci, vp, (vp.out_port, vp.out_vpi, vci))
    return None


def _atm_hop(sw: AtmSwitch, port: str, vpi: int, vci: int | None) -> Hop | None:
    ifx = next((i.ifindex for i in sw.interfaces if i.name == port), None)
    if ifx is None:
        return None
    name = {i.ifindex: i.name for i in sw.interfaces}
    if vci is not None:
        for x in sw.vc_xcs:
            if (x.low_if, x.low_vpi, x.low_vci) == (ifx, vpi, vci):
                return Hop(sw.name, port, vpi, vci, (x, "low"), (name[x.high_if], x.high_vpi, x.high_vci))
            if (x.high_if, x.high_vpi, x.high_vci) == (ifx, vpi, vci):
                return Hop(sw.name, port, vpi, vci, (x, "high"), (name[x.low_if], x.low_vpi, x.low_vci))
        for t in sw.terminated:
            if (t.ifindex, t.vpi, t.vci) == (ifx, vpi, vci):
                return Hop(sw.name, port, vpi, vci, t, None)
    for p in sw.vp_xcs:
        if (p.low_if, p.low_vpi) == (ifx, vpi):
            return Hop(sw.name, port, vpi, vci, (p, "low"), (name[p.high_if], p.high_vpi, vci))
        if (p.high_if, p.high_vpi) == (ifx, vpi):
            return Hop(sw.name, port, vpi, vci, (p, "high"), (name[p.low_if], p.low_vpi, vci))
    return None


def hop_at(net: Network, switch: str, port: str, vpi: int, vci: int | None) -> Hop | None:
    sw = net.switch(switch)
    if isinstance(sw, ForeSwitch):
        return _fore_hop(sw, port, vpi, vci)
    if isinstance(sw, AtmSwitch):
        return _atm_hop(sw, port, vpi, vci)
    return None


def peer(net: Network, switch: str, port: str) -> tuple[str, str] | None:
    for link in net.links:
        if (link.a_switch, link.a_port) == (switch, port):
            return link.b_switch, link.b_port
        if (link.b_switch, link.b_port) == (switch, port):
            return link.a_switch, link.a_port
    return None


def trace(net: Network, switch: str, port: str, vpi: int, vci: int | None) -> list[Hop]:
    """The hops of the connection entering `switch` on (port, vpi, vci), in order, to where it
    leaves the network (a port without a link) or terminates."""
    hops: list[Hop] = []
    at: tuple[str, str, int, int | None] | None = (switch, port, vpi, vci)
    while at is not None and len(hops) < 64:
        hop = hop_at(net, *at)
        if hop is None:
            break
        hops.append(hop)
        if hop.out is None:
            break
        far = peer(net, hop.switch, hop.out[0])
        at = (far[0], far[1], hop.out[1], hop.out[2]) if far else None
    return hops


def _key(conn: object) -> tuple:
    if isinstance(conn, tuple):
        return (type(conn[0]).__name__, conn[0].index, conn[1])
    if isinstance(conn, ForeVC):
        return ("vc", conn.in_port, conn.in_vpi, conn.in_vci)
    if isinstance(conn, ForeVP):
        return ("vp", conn.in_port, conn.in_vpi)
    if isinstance(conn, AtmTermVcl):
        return ("term", conn.ifindex, conn.vpi, conn.vci)
    raise TypeError(type(conn))


def apply(net: Network, losses: tuple[Loss, ...] | list[Loss]) -> Network:
    """The network with every loss in place: the hop's counters and every later hop's cells."""
    # (switch, connection key) -> field -> cells/s to add (negative: fewer)
    deltas: dict[tuple[str, tuple], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    unknown: dict[tuple[str, str], int] = defaultdict(int)
    for loss in losses:
        if loss.kind not in KINDS:
            raise ValueError(f"{loss}: kind must be one of {', '.join(KINDS)}")
        if loss.rate <= 0:
            raise ValueError(f"{loss}: rate must be > 0")
        hops = trace(net, loss.switch, loss.port, loss.vpi, loss.vci)
        if not hops:
            raise ValueError(f"{loss}: no connection enters {loss.switch} on {loss.port} "
                             f"{loss.vpi}/{'' if loss.vci is None else loss.vci}")
        first, sw = hops[0], net.switch(loss.switch)
        fore = isinstance(sw, ForeSwitch)
        if loss.kind in AAL5_KINDS:
            if not isinstance(first.conn, AtmTermVcl):
                raise ValueError(f"{loss}: {loss.kind} happens where an AAL5 VCC terminates (an ATM2 switch's own VCL)")
            deltas[(sw.name, _key(first.conn))][AAL5_KINDS[loss.kind]] += loss.rate
            continue
        if isinstance(first.conn, AtmTermVcl):
            raise ValueError(f"{loss}: the VCL terminates in {loss.switch}: name a cross-connected one")
        if fore and loss.kind in ("unknown", "tag"):
            raise ValueError(f"{loss}: a FORE switch answers no counter for {loss.kind!r}")
        if loss.kind == "tag":
            for n, hop in enumerate(hops):
                if isinstance(hop.conn, tuple):
                    side = hop.conn[1]
                    if n == 0:
                        deltas[(hop.switch, _key(hop.conn))][f"{side}_tagged"] += loss.rate
                    else:
                        deltas[(hop.switch, _key(hop.conn))][f"{side}_clp1"] += loss.rate
            continue
        for n, hop in enumerate(hops):
            d = deltas[(hop.switch, _key(hop.conn))]
            lost_before = n > 0 or loss.kind in ("line", "unknown")
            if isinstance(hop.conn, ForeVC | ForeVP):
                if lost_before:
                    d["rate"] -= loss.rate
                else:
                    d["drop_in" if loss.kind == "discard" else "drop_out"] += loss.rate
                continue
            if isinstance(hop.conn, AtmTermVcl):
                break                         # the cells the VCL lost never reach it: its counts are PDUs
            assert isinstance(hop.conn, tuple)    # (a cross-connect, the side it enters by)
            side = hop.conn[1]
            switched = "l2h_rate" if side == "low" else "h2l_rate"
            if lost_before:
                d[switched] -= loss.rate
                if n == 0 and loss.kind == "line":
                    d[f"{side}_hec"] += loss.rate
                elif n == 0:
                    unknown[(hop.switch, hop.port)] += loss.rate
            elif loss.kind == "discard":
                d[switched] -= loss.rate
                d[f"{side}_discard_rate"] += loss.rate
            else:
                d["l2h_drop" if side == "low" else "h2l_drop"] += loss.rate
    switches = tuple(_changed(sw, deltas, unknown) for sw in net.switches)
    return replace(net, switches=switches, losses=tuple(net.losses) + tuple(losses))


def _bump(obj, changes: dict[str, int]):
    new = {k: getattr(obj, k) + v for k, v in changes.items()}
    for k, v in new.items():
        if v < 0:
            raise ValueError(f"{obj}: {k} would be {v} cells/s: more cells lost than the connection carries")
    return replace(obj, **new)


def _changed(sw, deltas: dict[tuple[str, tuple], dict[str, int]], unknown: dict[tuple[str, str], int]):
    if isinstance(sw, ForeSwitch):
        vcs = tuple(_bump(v, deltas.get((sw.name, _key(v)), {})) for v in sw.vcs)
        vps = tuple(_bump(v, deltas.get((sw.name, _key(v)), {})) for v in sw.vps)
        return replace(sw, vcs=vcs, vps=vps)
    if isinstance(sw, AtmSwitch):
        def xc(x: AtmVcXc | AtmVpXc):
            changes: dict[str, int] = defaultdict(int)
            for side in ("low", "high"):
                for k, v in deltas.get((sw.name, _key((x, side))), {}).items():
                    changes[k] += v
            return _bump(x, changes)
        terminated = tuple(_bump(t, deltas.get((sw.name, _key(t)), {})) for t in sw.terminated)
        ifs = tuple(replace(i, unknown_rate=i.unknown_rate + unknown.get((sw.name, i.name), 0))
                    for i in sw.interfaces)
        return replace(sw, vc_xcs=tuple(map(xc, sw.vc_xcs)), vp_xcs=tuple(map(xc, sw.vp_xcs)),
                       terminated=terminated, interfaces=ifs)
    return sw
