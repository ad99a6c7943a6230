"""The records of the VCC path tracer (webapp.status.pathtrace): pure data, no ORM, no I/O.

Input records are plain copies of the inventory (switches, ports, hosts, links, cross-connects,
VC/VP endpoints) and of the latest cell rates, built by webapp.status.queries.load_network; the
results (Neighbor, Hop, Trace, Connection) are what `pathtrace.Network` answers. Switch-to-switch
links come from the inventory (entered by hand, or inferred from evidence with a confidence:
collector/inventory/linkinfer.py); the one inference made here is a host attached to the port whose
label names it (collector/core/names.py label_matches_name).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from collector.core import names
from collector.core.facts import CELL_BITS

# --------------------------------------------------------------------------- input records


@dataclass(frozen=True)
class SwitchInfo:
    id: int
    name: str
    address: str = ""
    sys_name: str = ""


@dataclass(frozen=True)
class PortInfo:
    id: int
    switch_id: int
    name: str
    key: str = ""
    label: str = ""
    port_type: str = ""
    oper_status: str = ""
    admin_status: str = ""
    neighbor_address: str = ""
    neighbor_ifname: str = ""
    description: str = ""
    is_atm: bool = True

    @property
    def is_control(self) -> bool:
        """The switch's own control processor port (FORE CTL): cells sent here terminate on the switch."""
        return self.port_type.upper() == "CTL" or self.name.upper() == "CTL"


@dataclass(frozen=True)
class HostInfo:
    id: int
    name: str
    address: str = ""


@dataclass(frozen=True)
class LinkInfo:
    id: int
    a_port_id: int
    b_port_id: int | None = None
    b_host_id: int | None = None
    source: str = "manual"
    note: str = ""
    state: str = "confirmed"            # confirmed | inferred | rejected (collector/inventory/models.py Link)
    confidence: float | None = None
    conflict: str = ""
    evidence: tuple[str, ...] = ()      # what the inference weighed, in words

    @property
    def used_as(self) -> str:
        """How the tracer names the link: manual (entered by hand), confirmed (inferred, then
        confirmed by an operator) or inferred."""
        if self.state == "inferred":
            return "inferred"
        return "confirmed" if self.source == "inferred" else "manual"


@dataclass(frozen=True)
class XcInfo:
    id: int
    switch_id: int
    kind: str                   # "vc" | "vp"
    in_port_id: int
    in_vpi: int
    in_vci: int | None
    out_port_id: int
    out_vpi: int
    out_vci: int | None
    name: str = ""
    status: str = ""
    up_since: datetime | None = None
    gone_at: datetime | None = None


@dataclass(frozen=True)
class EndpointInfo:
    """A VC (vci set) or VP (vci None) link endpoint on a port."""
    id: int
    port_id: int
    vpi: int
    vci: int | None = None
    status: str = ""
    alloc_bw: int | None = None
    up_since: datetime | None = None
    service_category: str = ""


@dataclass(frozen=True)
class Rate:
    """The latest measured cell rate of a connection at one endpoint."""
    cells_per_s: float | None       # None: the latest delta was withheld (see flags) or not measured
    at: datetime | None             # poll time of the sample it comes from
    flags: int = 0
    count: int | None = None        # the agent's counter value at that poll
    side: str = "in"                # "in": counted where cells enter the switch, "out": where they leave

    @property
    def mbps(self) -> float | None:
        return None if self.cells_per_s is None else self.cells_per_s * CELL_BITS / 1e6


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Neighbor:
    """What a port is cabled to: a port of another switch, or a host."""
    port: PortInfo | None
    host: HostInfo | None
    # manual | confirmed | inferred (links) | "inferred from port name" (a host found by its port's name)
    source: str
    link_id: int | None = None
    note: str = ""
    confidence: float | None = None
    conflict: str = ""

    @property
    def inferred(self) -> bool:
        return self.source.startswith("inferred")


@dataclass
class Hop:
    switch: SwitchInfo
    xc: XcInfo
    in_port: PortInfo
    out_port: PortInfo
    in_vpi: int
    in_vci: int | None
    out_vpi: int
    out_vci: int | None
    rate: Rate | None = None
    via: Neighbor | None = None        # how the cells reached in_port (None for the first hop from a host)
    problems: list[str] = field(default_factory=list)
    alloc_bw: int | None = None        # cells/s allocated to the incoming endpoint
    up_since: datetime | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Trace:
    """One direction of one connection, from where it starts to where it ends or stops."""
    hops: list[Hop]
    start_host: HostInfo | None = None
    start_via: Neighbor | None = None
    # How each end was found. host: a host attached to the port; switch: the connection
    # terminates on a switch (its control port, or an endpoint that is not cross-connected);
    # open: the port leads nowhere the inventory knows (no link): the path leaves what Cellar
    # knows; stop: the next switch has nothing for it (the path breaks); loop.
    start_stop: str = ""               # how it starts when not at a host, in words
    start_kind: str = "open"           # host | switch | open | stop | loop
    start_short: str = ""              # the same, in a few words for table cells
    start_switch: SwitchInfo | None = None
    stop_short: str = ""
    end_host: HostInfo | None = None
    end_via: Neighbor | None = None
    end_kind: str = "open"             # host | switch | open | stop | loop
    stop: str = ""                     # how it ends when not at a host, in words
    end_switch: SwitchInfo | None = None

    @property
    def complete(self) -> bool:
        """Both ends known: a host or a switch at each end."""
        return self.end_kind in ("host", "switch") and self.start_kind in ("host", "switch")

    @property
    def problems(self) -> list[str]:
        return [f"{h.switch.name}: {p}" for h in self.hops for p in h.problems]

    @property
    def status(self) -> str:
        """broken: the path breaks inside the known network; down: a hop is not up (cross-connect,
        port or endpoint); incomplete: it leaves what the inventory knows (a port without a link)
        with every known hop up; up: host (or switch) to host, every hop up."""
        if "stop" in (self.end_kind, self.start_kind) or "loop" in (self.end_kind, self.start_kind):
            return "broken"
        if self.problems:
            return "down"
        return "up" if self.complete else "incomplete"

    @property
    def first(self) -> Hop | None:
        return self.hops[0] if self.hops else None

    @property
    def links_used(self) -> list[Neighbor]:
        """The switch-to-switch links the trace crossed, in order (how each was known: manual,
        confirmed or inferred, with its confidence)."""
        return [h.via for h in self.hops if h.via is not None and h.via.port is not None and h.via.link_id]

    @property
    def links_summary(self) -> str:
        """ "2 links: 1 inferred (confidence 0.97), 1 manual" or ""."""
        used = self.links_used + ([self.end_via] if self.end_via and self.end_via.port is not None
                                  and self.end_via.link_id and self.end_kind != "host" else [])
        if not used:
            return ""
        kinds: dict[str, list[Neighbor]] = {}
        for nb in used:
            kinds.setdefault(nb.source, []).append(nb)
        parts = []
        for kind in ("inferred", "confirmed", "manual"):
            nbs = kinds.get(kind, [])
            if nbs:
                conf = [f"{nb.confidence:.2f}" for nb in nbs if nb.confidence is not None and kind == "inferred"]
                parts.append(f"{len(nbs)} {kind}" + (f" (confidence {', '.join(conf)})" if conf else ""))
        return f"{len(used)} link{'s' if len(used) != 1 else ''} between switches: " + ", ".join(parts)

    @property
    def rate(self) -> Rate | None:
        """The rate at the first hop that has one (cells entering the network)."""
        for h in self.hops:
            if h.rate is not None:
                return h.rate
        return None

    @property
    def name(self) -> str:
        for h in self.hops:
            if h.xc.name:
                return h.xc.name
        return ""

    def describe_end(self) -> str:
        if self.end_kind == "host" and self.end_host:
            return self.end_host.name
        return self.stop


@dataclass
class Connection:
    """The answer to 'does a VC path join host A and host B' (figure 3)."""
    source: HostInfo
    destination: HostInfo
    forward: list[Trace]
    reverse: list[Trace]
    source_attachments: list[tuple[PortInfo, Neighbor]]
    destination_attachments: list[tuple[PortInfo, Neighbor]]
    from_source: list[Trace]           # every trace leaving the source (where they go or stop)
    into_destination: list[Trace]      # every trace arriving at the destination

    @property
    def found(self) -> bool:
        return bool(self.forward or self.reverse)

    @property
    def summary(self) -> str:
        s, d = self.source.name, self.destination.name
        if not self.source_attachments:
            return (f"{s} is not attached to any switch port in the inventory: add a link "
                    f"(port to host) for it, then trace again.")
        if self.forward and self.reverse:
            up_f = any(t.status == "up" for t in self.forward)
            up_r = any(t.status == "up" for t in self.reverse)
            if up_f and up_r:
                return f"{s} and {d} are joined by VC paths in both directions, all hops up."
            return f"{s} and {d} are joined by VC paths in both directions, but not every hop is up."
        if self.forward:
            return f"A VC path leads from {s} to {d}, but none leads back from {d} to {s}."
        if self.reverse:
            return f"A VC path leads from {d} to {s}, but none leads from {s} to {d}."
        if not self.destination_attachments:
            return (f"No VC path: {d} is not attached to any switch port in the inventory "
                    f"(add a port-to-host link for it).")
        return f"No VC path joins {s} and {d}: see below where each VC leaving {s} stops."


# --------------------------------------------------------------------------- matching helpers

# One definition of the rule (collector/core/names.py), used here for hosts named by port labels.
label_matches_name = names.label_matches_name
