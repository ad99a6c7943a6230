"""VCC path tracing over inventory data: pure functions, no ORM, no I/O.

The caller (webapp.status.queries.load_network) builds a `Network` from the plain records of
webapp.status.pathmodel (inventory switches, ports, hosts, links, cross-connects, VC/VP endpoints
and latest cell rates); everything here is deterministic over them, so every rule is unit-testable.

How a connection is followed
----------------------------
Cells of a VC enter a switch on (port, VPI, VCI). A VC cross-connect on that switch sends them
out on (out port, out VPI, out VCI); a VP cross-connect on (port, VPI) sends every VCI of the
path out on (out port, out VPI) keeping the VCI. The out port leads somewhere by a Link of the
inventory (entered by hand, or by discovery from ILMI neighbour data): to a port of another
switch, where the same lookup repeats with the outgoing VPI/VCI, or to a host, where the
connection ends. Cross-connects are one row per direction, so each direction is traced
separately.

Where the inventory has no Link, two inferences are made and labelled as such (never silently):
* ILMI: a port's neighbour address names another switch and its neighbour ifName one of that
  switch's ports (FORE's BNP form "1D1" matches port "D1"), or the other way round;
* port names: FORE portName / ifAlias often carry the attached host's name ("merlin-atm.edc",
  truncated to 15 characters by the switch): a port whose label matches exactly one host is
  taken as that host's attachment.
An explicit Link on a port always wins: nothing is inferred for a port that has one.

A trace stops, saying where and why, when: a switch has no cross-connect for what arrives
(with the reason: the VC endpoint is not configured, exists but terminates on the switch, or
its cross-connect vanished), an out port leads nowhere known, a loop is found, or the cells
terminate on a switch's control port (FORE CTL).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from collector.core.names import NameIndex
from collector.inventory.linkinfer import MIN_CONFIDENCE
from webapp.status.pathmodel import (
    Connection,
    EndpointInfo,
    Hop,
    HostInfo,
    LinkInfo,
    Neighbor,
    PortInfo,
    Rate,
    SwitchInfo,
    Trace,
    XcInfo,
)


def usable(link: LinkInfo) -> bool:
    """A link the tracer follows: entered or confirmed by hand (even when contradicted: the
    contradiction is shown with it), or inferred with enough confidence and no conflict."""
    if link.state == "confirmed":
        return True
    return (link.state == "inferred" and not link.conflict
            and link.confidence is not None and link.confidence >= MIN_CONFIDENCE)


def link_note(link: LinkInfo) -> str:
    if link.state == "inferred":
        return (f"inferred link, confidence {link.confidence:.2f}: " + "; ".join(link.evidence))[:500]
    text = link.note or ("confirmed by an operator" if link.source == "inferred" else "entered by hand")
    return text + (f" (contradicted: {link.conflict})" if link.conflict else "")

# --------------------------------------------------------------------------- the network


def _vpvc(vpi: int, vci: int | None) -> str:
    return f"{vpi}/{vci}" if vci is not None else f"VP {vpi}"


def cycle_words(hops: list[Hop], xc_id: int, vci: int | None, backward: bool = False) -> str:
    """The cycle of cross-connects a trace ran into, named hop by hop (a trace never loops: it
    stops there and says so)."""
    at = next((i for i, h in enumerate(hops) if h.xc.id == xc_id and (h.in_vci == vci or h.xc.kind == "vc")), 0)
    ring = hops[:at + 1] if backward else hops[at:]
    steps = " -> ".join(f"{h.switch.name} {h.in_port.name} {_vpvc(h.in_vpi, h.in_vci)}"
                        f" -> {h.out_port.name} {_vpvc(h.out_vpi, h.out_vci)}" for h in ring)
    first = ring[0] if ring else None
    back = f" -> back to {first.switch.name} {first.in_port.name}" if first else ""
    return f"loops: a cycle of {len(ring)} cross-connect{'s' if len(ring) != 1 else ''}: {steps}{back}"



class Network:
    def __init__(self, switches: Iterable[SwitchInfo], ports: Iterable[PortInfo], hosts: Iterable[HostInfo],
                 links: Iterable[LinkInfo], xcs: Iterable[XcInfo], channels: Iterable[EndpointInfo] = (),
                 paths: Iterable[EndpointInfo] = (), rates: dict | None = None, infer: bool = True):
        self.switches = {s.id: s for s in switches}
        self.ports = {p.id: p for p in ports if p.switch_id in self.switches}
        self.hosts = {h.id: h for h in hosts}
        self.links = list(links)
        self.rates = rates or {}
        self.xcs: list[XcInfo] = []
        self.gone_xcs: list[XcInfo] = []
        for x in xcs:
            if x.in_port_id not in self.ports or x.out_port_id not in self.ports:
                continue
            (self.gone_xcs if x.gone_at else self.xcs).append(x)
        order = {pid: self._port_sort(pid) for pid in {x.in_port_id for x in self.xcs}}
        self.xcs.sort(key=lambda x: (x.switch_id, order[x.in_port_id], x.in_vpi, x.in_vci or -1))
        self.xc_in: dict[tuple, list[XcInfo]] = {}
        self.xc_out: dict[tuple, list[XcInfo]] = {}
        self.xc_by_in_port: dict[int, list[XcInfo]] = {}
        self.xc_by_out_port: dict[int, list[XcInfo]] = {}
        self.xc_by_switch: dict[int, list[XcInfo]] = {}
        for x in self.xcs:
            self.xc_by_switch.setdefault(x.switch_id, []).append(x)
            self.xc_in.setdefault((x.kind, x.in_port_id, x.in_vpi, x.in_vci), []).append(x)
            self.xc_out.setdefault((x.kind, x.out_port_id, x.out_vpi, x.out_vci), []).append(x)
            self.xc_by_in_port.setdefault(x.in_port_id, []).append(x)
            self.xc_by_out_port.setdefault(x.out_port_id, []).append(x)
        self.gone_in = {(x.kind, x.in_port_id, x.in_vpi, x.in_vci): x for x in self.gone_xcs}
        self.vc_ep = {(e.port_id, e.vpi, e.vci): e for e in channels}
        self.vp_ep = {(e.port_id, e.vpi): e for e in paths}
        self.ports_by_switch: dict[int, list[PortInfo]] = {}
        for p in self.ports.values():
            self.ports_by_switch.setdefault(p.switch_id, []).append(p)
        self.neighbors: dict[int, list[Neighbor]] = {}
        self.attachments: dict[int, list[tuple[PortInfo, Neighbor]]] = {}
        # What _add has taken, as sets: the first claim of a neighbour wins, found in O(1) (a
        # scan of the lists made a 1,000-link network's trace quadratic).
        self._neighbor_seen: set[tuple[int, str, int]] = set()
        self._attachment_seen: set[tuple[int, int]] = set()
        # inferred links the tracer does not follow (in conflict, too weak), to say so where a trace stops
        self.unused: dict[int, list[tuple[LinkInfo, PortInfo]]] = {}
        self._switch_names: tuple[NameIndex[SwitchInfo], dict[int, int]] | None = None
        self._build_neighbors(infer)

    # -- topology -------------------------------------------------------------------------

    def _port_sort(self, port_id: int):
        p = self.ports.get(port_id)
        if p is None:
            return (2, 0, "")
        return (0, int(p.key), p.name) if p.key.isdigit() else (1, 0, p.name)

    def _add(self, port_id: int, nb: Neighbor) -> None:
        keys = (([(port_id, "port", nb.port.id)] if nb.port else [])
                + ([(port_id, "host", nb.host.id)] if nb.host else []))
        if not any(k in self._neighbor_seen for k in keys):
            self.neighbors.setdefault(port_id, []).append(nb)
        self._neighbor_seen.update(keys)
        if nb.host is not None and (nb.host.id, port_id) not in self._attachment_seen:
            self._attachment_seen.add((nb.host.id, port_id))
            self.attachments.setdefault(nb.host.id, []).append((self.ports[port_id], nb))

    def _build_neighbors(self, infer: bool) -> None:
        explicit: set[int] = set()
        for link in self.links:
            a = self.ports.get(link.a_port_id)
            if a is not None and link.b_port_id in self.ports and link.state == "inferred" and not usable(link):
                for near, far in ((a.id, link.b_port_id), (link.b_port_id, a.id)):
                    self.unused.setdefault(near, []).append((link, self.ports[far]))
            if a is None or link.state == "rejected" or not usable(link):
                continue
            if link.b_port_id is not None:
                b = self.ports.get(link.b_port_id)
                if b is None:
                    continue
                note = link_note(link)
                self._add(a.id, Neighbor(b, None, link.used_as, link.id, note, link.confidence, link.conflict))
                self._add(b.id, Neighbor(a, None, link.used_as, link.id, note, link.confidence, link.conflict))
                explicit.update((a.id, b.id))
            elif link.b_host_id is not None and link.b_host_id in self.hosts:
                self._add(a.id, Neighbor(None, self.hosts[link.b_host_id], link.used_as, link.id, link.note))
                explicit.add(a.id)
        if not infer:
            return
        # Port labels naming exactly one host (by name or address), looked up in an index.
        hosts = sorted(self.hosts.values(), key=lambda h: h.id)
        by_name = NameIndex((h.name, h) for h in hosts)
        by_address: dict[str, list[HostInfo]] = {}
        for h in hosts:
            if h.address:
                by_address.setdefault(h.address, []).append(h)
        for p in sorted(self.ports.values(), key=lambda p: p.id):
            if p.id in explicit or not p.label or p.is_control:
                continue
            hits = {h.id: h for h in by_name.matches(p.label) + by_address.get(p.label, [])}
            if len(hits) == 1:
                host = next(iter(hits.values()))
                self._add(p.id, Neighbor(None, host, "inferred from port name", None,
                                         f"port name '{p.label}' matches host {host.name}"))

    def _far_name(self, nb: Neighbor) -> str:
        if nb.port is None:
            return nb.host.name if nb.host else "?"
        return f"{self.switches[nb.port.switch_id].name} {nb.port.name} ({nb.source})"

    def neighbors_of(self, port: PortInfo) -> list[Neighbor]:
        return self.neighbors.get(port.id, [])

    def attachments_of(self, host: HostInfo) -> list[tuple[PortInfo, Neighbor]]:
        return sorted(self.attachments.get(host.id, []), key=lambda pn: (pn[1].inferred, pn[0].id))

    def switch_hint(self, port: PortInfo) -> str:
        """Why the port leads nowhere known: an inferred link not followed (in conflict, too weak), or a
        port label naming a known switch or host ("asx200bx.tioc")."""
        for link, far in self.unused.get(port.id, []):
            why = (f"in conflict: {link.conflict}" if link.conflict
                   else f"confidence {link.confidence or 0:.2f} is below {MIN_CONFIDENCE}")
            return f"an inferred link to {self.switches[far.switch_id].name} {far.name} is not followed, {why}"
        if not port.label:
            return ""
        if self._switch_names is None:      # built once, on the first trace that stops at a labelled port
            order = {sid: i for i, sid in enumerate(self.switches)}
            self._switch_names = (NameIndex([(s.name, s) for s in self.switches.values()]
                                            + [(s.sys_name, s) for s in self.switches.values() if s.sys_name]), order)
        index, order = self._switch_names
        named = [s for s in index.matches(port.label) if s.id != port.switch_id]
        if named:
            s = min(named, key=lambda s: order[s.id])
            return (f"its name '{port.label}' suggests switch {s.name}, but no link is known: confirm an inferred "
                    "link or add one in the inventory")
        return f"its name is '{port.label}'"

    # -- rates and endpoints ----------------------------------------------------------------

    def xc_rate(self, x: XcInfo) -> Rate | None:
        vci_in = x.in_vci if x.kind == "vc" else None
        vci_out = x.out_vci if x.kind == "vc" else None
        return (self.rates.get(("in", x.in_port_id, x.in_vpi, vci_in))
                or self.rates.get(("out", x.out_port_id, x.out_vpi, vci_out)))

    def xc_endpoint(self, x: XcInfo) -> EndpointInfo | None:
        if x.kind == "vc":
            return self.vc_ep.get((x.in_port_id, x.in_vpi, x.in_vci))
        return self.vp_ep.get((x.in_port_id, x.in_vpi))

    def make_hop(self, x: XcInfo, vci: int | None, via: Neighbor | None) -> Hop:
        """The hop of cross-connect x for cells arriving with `vci` (which a VP cross-connect keeps)."""
        sw = self.switches[x.switch_id]
        inp, outp = self.ports[x.in_port_id], self.ports[x.out_port_id]
        in_vci = x.in_vci if x.kind == "vc" else vci
        out_vci = x.out_vci if x.kind == "vc" else vci
        ep = self.xc_endpoint(x)
        hop = Hop(sw, x, inp, outp, x.in_vpi, in_vci, x.out_vpi, out_vci, self.xc_rate(x), via,
                  alloc_bw=ep.alloc_bw if ep else None, up_since=x.up_since or (ep.up_since if ep else None))
        if x.status and x.status != "up":
            hop.problems.append(f"cross-connect {x.status}")
        for label, p in (("in", inp), ("out", outp)):
            if p.oper_status and p.oper_status != "up":
                hop.problems.append(f"{label} port {p.name} is {p.oper_status}")
        if ep is not None and ep.status and ep.status != "up":
            hop.problems.append(f"{'VC' if x.kind == 'vc' else 'VP'} endpoint is {ep.status}")
        return hop

    # -- lookups of the next / previous cross-connect ------------------------------------------

    def _xc_entering(self, port_id: int, vpi: int, vci: int | None) -> list[XcInfo]:
        if vci is not None:
            hit = self.xc_in.get(("vc", port_id, vpi, vci))
            if hit:
                return hit
        return self.xc_in.get(("vp", port_id, vpi, None), [])

    def xc_leaving(self, port_id: int, vpi: int, vci: int | None) -> list[XcInfo]:
        if vci is not None:
            hit = self.xc_out.get(("vc", port_id, vpi, vci))
            if hit:
                return hit
        return self.xc_out.get(("vp", port_id, vpi, None), [])

    def _why_no_xc(self, port: PortInfo, vpi: int, vci: int | None) -> str:
        return self._no_xc(port, vpi, vci)[1]

    def _no_xc(self, port: PortInfo, vpi: int, vci: int | None) -> tuple[str, str]:
        """(kind, words) for cells arriving where no cross-connect takes them: 'switch' when they
        terminate there (the endpoint exists, e.g. signalling or management), else 'stop'."""
        sw = self.switches[port.switch_id]
        what = f"{vpi}/{vci}" if vci is not None else f"VP {vpi}"
        gone = self.gone_in.get(("vc", port.id, vpi, vci)) or self.gone_in.get(("vp", port.id, vpi, None))
        if gone is not None:
            return "stop", (f"arrives at {sw.name} {port.name} as {what}, where its cross-connect vanished "
                            f"at {gone.gone_at:%Y-%m-%d %H:%M} UTC")
        ep = self.vc_ep.get((port.id, vpi, vci)) if vci is not None else self.vp_ep.get((port.id, vpi))
        if ep is not None:
            return "switch", (f"terminates on {sw.name} at {port.name} {what} (an endpoint of the switch itself, "
                              f"{ep.status or 'status unknown'}, not cross-connected)")
        state = f" (port {port.oper_status})" if port.oper_status and port.oper_status != "up" else ""
        return "stop", f"arrives at {sw.name} {port.name}{state} as {what}, but {sw.name} has no cross-connect for it"

    # -- tracing --------------------------------------------------------------------------

    def _forward(self, trace: Trace, x: XcInfo, vci: int | None, via: Neighbor | None, seen: set) -> None:
        """Append hops from cross-connect x onwards until the cells reach a host or stop."""
        while True:
            key = (x.id, vci)
            if key in seen:
                trace.end_kind, trace.stop = "loop", cycle_words(trace.hops, x.id, vci)
                trace.stop_short = f"loop at {self.switches[x.switch_id].name}"
                return
            seen.add(key)
            hop = self.make_hop(x, vci, via)
            trace.hops.append(hop)
            siblings = [s for s in self._xc_entering(x.in_port_id, x.in_vpi, hop.in_vci) if s.id != x.id]
            if siblings:
                also = ", ".join(self.ports[s.out_port_id].name for s in siblings)
                hop.problems.append(f"point-to-multipoint: also leaves on {also} (not followed)")
            out = hop.out_port
            sw = hop.switch
            what = f"{hop.out_vpi}/{hop.out_vci}" if hop.out_vci is not None else f"VP {hop.out_vpi}"
            if out.is_control:
                trace.end_kind, trace.end_switch = "switch", sw
                trace.stop = f"terminates on {sw.name} (control port {out.name})"
                trace.stop_short = f"{sw.name} (control)"
                return
            nbrs = self.neighbors_of(out)
            hosts = [n for n in nbrs if n.host]
            if hosts:
                trace.end_kind, trace.end_host, trace.end_via = "host", hosts[0].host, hosts[0]
                return
            far = [n for n in nbrs if n.port]
            if not far:
                hint = self.switch_hint(out)
                trace.stop = (f"leaves {sw.name} on {out.name} as {what}; the inventory does not say what "
                              f"{out.name} connects to" + (f" ({hint})" if hint else ""))
                trace.stop_short = f"{sw.name} {out.name} → ?"
                trace.end_kind = "open"
                return
            if len(far) > 1:
                trace.end_kind, trace.stop = "stop", (
                    f"leaves {sw.name} on {out.name} as {what}, but the inventory has {len(far)} links on {out.name} "
                    f"({', '.join(self._far_name(n) for n in far)}): a conflict to settle in the inventory")
                trace.stop_short = f"{sw.name} {out.name}: conflicting links"
                return
            nb = far[0]
            assert nb.port is not None  # far keeps only the neighbours with a port
            nxt = self._xc_entering(nb.port.id, hop.out_vpi, hop.out_vci)
            if not nxt:
                nsw = self.switches[nb.port.switch_id]
                trace.end_kind, trace.stop = self._no_xc(nb.port, hop.out_vpi, hop.out_vci)
                if trace.end_kind == "switch":
                    trace.end_switch, trace.stop_short = nsw, f"{nsw.name} {nb.port.name} (terminates)"
                else:
                    trace.stop_short = f"stops at {nsw.name} {nb.port.name}"
                trace.end_via = replace(nb, port=out)
                return
            # how the next switch is reached: from this hop's out port, over nb's link
            x, vci, via = nxt[0], hop.out_vci, replace(nb, port=out)

    def _backward(self, trace: Trace, x: XcInfo, in_vci: int | None, seen: set) -> None:
        """Prepend hops before cross-connect x (already the first hop) back to the origin."""
        while True:
            inp = self.ports[x.in_port_id]
            nbrs = self.neighbors_of(inp)
            hosts = [n for n in nbrs if n.host]
            what = f"{x.in_vpi}/{in_vci}" if in_vci is not None else f"VP {x.in_vpi}"
            sw = self.switches[x.switch_id]
            if hosts:
                trace.start_host, trace.start_via, trace.start_kind = hosts[0].host, hosts[0], "host"
                return
            if inp.is_control:
                trace.start_stop, trace.start_kind = f"starts on {sw.name} itself (control port {inp.name})", "switch"
                trace.start_short, trace.start_switch = f"{sw.name} (control)", sw
                return
            far = [n for n in nbrs if n.port]
            if not far:
                hint = self.switch_hint(inp)
                trace.start_stop = (f"enters {sw.name} on {inp.name} as {what}; the inventory does not say what "
                                    f"{inp.name} connects to" + (f" ({hint})" if hint else ""))
                trace.start_short, trace.start_kind = f"? → {sw.name} {inp.name}", "open"
                return
            if len(far) > 1:
                trace.start_kind, trace.start_short = "stop", f"{sw.name} {inp.name}: conflicting links"
                trace.start_stop = (f"enters {sw.name} on {inp.name} as {what}, but the inventory has {len(far)} links "
                                    f"on {inp.name} ({', '.join(self._far_name(n) for n in far)}): a conflict")
                return
            nb = far[0]
            assert nb.port is not None  # far keeps only the neighbours with a port
            trace.hops[0].via = nb
            prev = self.xc_leaving(nb.port.id, x.in_vpi, in_vci)
            if not prev:
                psw = self.switches[nb.port.switch_id]
                ep = (self.vc_ep.get((nb.port.id, x.in_vpi, in_vci)) if in_vci is not None
                      else self.vp_ep.get((nb.port.id, x.in_vpi)))
                if ep is not None:      # sent by the previous switch itself (signalling, management)
                    trace.start_kind, trace.start_switch = "switch", psw
                    trace.start_stop = (f"starts on {psw.name} at {nb.port.name} {what} "
                                        "(an endpoint of the switch itself)")
                    trace.start_short = f"{psw.name} {nb.port.name} (originates)"
                else:
                    trace.start_kind = "stop"
                    trace.start_stop = (f"comes from {psw.name} {nb.port.name} as {what}, but no cross-connect "
                                        f"of {psw.name} sends it there")
                    trace.start_short = f"? from {psw.name} {nb.port.name}"
                return
            p = prev[0]
            p_in_vci = p.in_vci if p.kind == "vc" else in_vci
            if (p.id, p_in_vci) in seen:
                trace.start_stop = cycle_words(trace.hops, p.id, p_in_vci, backward=True)
                trace.start_short, trace.start_kind = "loop", "loop"
                return
            seen.add((p.id, p_in_vci))
            trace.hops.insert(0, self.make_hop(p, p_in_vci, None))
            x, in_vci = p, p_in_vci

    def trace_xc(self, x: XcInfo, vci: int | None = None) -> Trace:
        """The whole connection through cross-connect x: back to where it comes from, on to where it goes."""
        trace = Trace(hops=[])
        seen: set = set()
        self._forward(trace, x, vci if x.kind == "vp" else x.in_vci, None, seen)
        self._backward(trace, x, trace.hops[0].in_vci, seen)
        return trace

    def trace_endpoint(self, port: PortInfo, vpi: int, vci: int | None) -> Trace | None:
        """The connection of the cells entering `port` with vpi/vci (None if nothing is cross-connected there,
        then `why_not` says why)."""
        xs = self._xc_entering(port.id, vpi, vci)
        return self.trace_xc(xs[0], vci) if xs else None

    def why_not(self, port: PortInfo, vpi: int, vci: int | None) -> str:
        return self._why_no_xc(port, vpi, vci)

    def traces_from_host(self, host: HostInfo) -> list[Trace]:
        out = []
        for port, nb in self.attachments_of(host):
            for x in self.xc_by_in_port.get(port.id, []):
                t = self.trace_xc(x)
                if t.start_host is None:
                    t.start_host, t.start_via, t.start_kind = host, nb, "host"
                out.append(t)
        return out

    def traces_into_host(self, host: HostInfo) -> list[Trace]:
        out = []
        for port, _nb in self.attachments_of(host):
            for x in self.xc_by_out_port.get(port.id, []):
                out.append(self.trace_xc(x))
        return out

    def traces_of_switch(self, switch_id: int) -> list[tuple[XcInfo, Trace]]:
        """Every cross-connect of a switch with the end-to-end connection it is part of."""
        return [(x, self.trace_xc(x)) for x in self.xc_by_switch.get(switch_id, [])]

    def connection(self, src: HostInfo, dst: HostInfo) -> Connection:
        from_src = self.traces_from_host(src)
        from_dst = self.traces_from_host(dst)
        forward = [t for t in from_src if t.end_host and t.end_host.id == dst.id]
        reverse = [t for t in from_dst if t.end_host and t.end_host.id == src.id]
        rank = {"up": 0, "down": 1, "broken": 2}
        forward.sort(key=lambda t: (rank[t.status], len(t.hops)))
        reverse.sort(key=lambda t: (rank[t.status], len(t.hops)))
        # where it breaks first (the question was about a path that may not exist), longest first
        from_src.sort(key=lambda t: (t.complete, -len(t.hops), t.first.in_vpi if t.first else 0))
        return Connection(src, dst, forward, reverse, self.attachments_of(src), self.attachments_of(dst),
                          from_src, self.traces_into_host(dst))

    # -- lookups for the views -------------------------------------------------------------

    def find_host(self, text: str) -> HostInfo | None:
        """A host by name or address; a unique prefix of a name ("mauchly") also answers."""
        t = text.strip().lower()
        if not t:
            return None
        for h in self.hosts.values():
            if h.name.lower() == t or (h.address and h.address.lower() == t):
                return h
        hits = [h for h in self.hosts.values() if h.name.lower().startswith(t + ".") or h.name.lower().startswith(t)]
        return hits[0] if len(hits) == 1 else None
