"""Switch-to-switch links from evidence: pure rules over plain records (no ORM), so each is testable.

What the agents say is kept as evidence rows (collector/inventory/models.py LinkEvidence); this
module decides which port pairs are links, with which confidence, and what contradicts them.

1. Resolve each claim's far end to an inventory switch (address, FORE SPANS address, LLDP chassis
   id, or system name, exactly one switch) and, where the claim names a port, to one of its ports.
2. A claim that names a far PORT pins a pair {P, Q}. Claims that name only a far SWITCH pin a pair
   when they are mutual and unique: P (on X) names Y, Q (on Y) names X, and neither switch has
   another port naming the other. Cross-connect continuity (collector/archive/continuity.py) pins
   the pair whose VCs it matched. Nothing else makes a candidate: a switch-level claim alone never
   invents which port.
3. Every claim consistent with a candidate adds its weight (`WEIGHTS`); each kind counts once per
   reporting switch. confidence = 1 - prod(1 - w). A claim from one side only gives less than the
   same claim from both sides (0.8 vs 0.96 for LLDP or ILMI).
4. A candidate below MIN_CONFIDENCE is dropped. A candidate is in conflict (shown, never used,
   never resolved by itself) when another claim pins one of its ports elsewhere, when one of its
   ports belongs to another candidate or a link entered by hand, or when a port has vanished.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from collector.core.names import has_board, host_part, interface_key, label_matches_name, strip_board

MIN_CONFIDENCE = 0.5
# Weight of one claim, by kind (docs/topology.md explains each).
WEIGHTS = {"lldp": 0.8, "ilmi": 0.8, "fore-signalling": 0.6, "port-label": 0.35, "fore-topology": 0.25}
SWITCH_LEVEL = ("fore-signalling", "port-label")   # name a far switch, not its port


@dataclass(frozen=True)
class SwitchRec:
    id: int
    name: str
    address: str = ""
    sys_name: str = ""
    identity: dict = field(default_factory=dict, hash=False, compare=False)
    enabled: bool = True


@dataclass(frozen=True)
class PortRec:
    id: int
    switch_id: int
    key: str
    name: str
    agent_name: str = ""
    description: str = ""
    label: str = ""
    gone: bool = False
    control: bool = False


@dataclass
class EvidenceRec:
    id: int | None
    switch_id: int
    port_id: int | None
    kind: str
    says: str
    far: dict
    far_switch_id: int | None = None       # set by resolve()
    far_port_id: int | None = None
    resolution: str = ""
    weight: float | None = None            # continuity rows carry their own


@dataclass(frozen=True)
class LinkRec:
    id: int
    a_port_id: int
    b_port_id: int | None
    b_host_id: int | None
    state: str                             # confirmed | inferred | rejected


@dataclass
class Candidate:
    ports: tuple[int, int]                 # (lower id, higher id)
    items: dict[tuple[str, int], dict] = field(default_factory=dict)    # (kind, reporter) -> item
    conflict: list[str] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        miss = 1.0
        for item in self.items.values():
            miss *= 1.0 - item["weight"]
        return round(1.0 - miss, 3)

    def add(self, ev: EvidenceRec, side: str, weight: float) -> None:
        key = (ev.kind, ev.switch_id)
        if key not in self.items or self.items[key]["weight"] < weight:
            self.items[key] = {"kind": ev.kind, "side": side, "says": ev.says, "weight": round(weight, 3)}


@dataclass
class Outcome:
    candidates: list[Candidate]
    # link id -> conflict text for links that exist (entered by hand, confirmed, rejected)
    link_conflicts: dict[int, str]
    unresolved: dict[str, int]


class Network:
    """The inventory as inference sees it: switches, ports (present and vanished), identities."""

    def __init__(self, switches: Iterable[SwitchRec], ports: Iterable[PortRec]):
        self.switches = {s.id: s for s in switches}
        self.ports = {p.id: p for p in ports if p.switch_id in self.switches}
        self.by_switch: dict[int, list[PortRec]] = defaultdict(list)
        for p in self.ports.values():
            self.by_switch[p.switch_id].append(p)

    # -- which switch a claim names ---------------------------------------------------------

    def switches_named(self, far: dict) -> list[SwitchRec]:
        tests = []
        if far.get("address"):
            tests.append(lambda s: s.address == far["address"])
        if far.get("addresses"):
            tests.append(lambda s: s.address in far["addresses"])
        if far.get("atm_address"):
            tests.append(lambda s: s.identity.get("atm_address") == far["atm_address"])
        if far.get("chassis"):
            tests.append(lambda s: s.identity.get("lldp_chassis") == far["chassis"])
        if far.get("switch_id"):
            tests.append(lambda s: s.id == far["switch_id"])
        for test in tests:                      # the most specific identifier that matches wins
            hits = [s for s in self.switches.values() if test(s)]
            if hits:
                return hits
        name = (far.get("sys_name") or "").strip().lower()
        if not name:
            return []
        exact = [s for s in self.switches.values()
                 if name in {s.name.lower(), s.sys_name.lower(), str(s.identity.get("lldp_sys_name", "")).lower()}]
        if exact or "." not in name:
            return exact or [s for s in self.switches.values() if name in {host_part(s.name), host_part(s.sys_name)}]
        return [s for s in self.switches.values() if host_part(name) in {host_part(s.name), host_part(s.sys_name)}]

    def ports_named(self, switch_id: int, far: dict) -> list[PortRec] | None:
        """The far switch's ports the claim names; None when the claim names no port at all."""
        ports = self.by_switch.get(switch_id, [])
        if far.get("port_id_db"):
            return [p for p in ports if p.id == far["port_id_db"]]
        if far.get("port_name"):
            text = far["port_name"].strip()
            found = [p for p in ports if text in (p.name, p.agent_name, p.description)]
            if not found and has_board(text):
                found = [p for p in ports if strip_board(text).upper() == p.name.upper()]
            if not found:
                key = interface_key(text)
                found = [p for p in ports if key and key in {interface_key(p.name), interface_key(p.description)}]
            return found
        port_id = far.get("port_id") or ""
        if ":" not in port_id:
            return None
        subtype, value = port_id.split(":", 1)
        ids = self.switches[switch_id].identity.get("lldp_port_ids") or {}
        by_id = [p for p in ports if ids.get(p.key) == port_id]
        if by_id or subtype in ("3", "7"):          # a MAC or a local id means something only to its agent
            return by_id
        if subtype == "5":
            return self.ports_named(switch_id, {"port_name": value})
        if subtype == "1":
            return [p for p in ports if p.label == value]
        return []

    # -- resolution ---------------------------------------------------------------------------

    def resolve(self, ev: EvidenceRec) -> None:
        """Set far_switch_id, far_port_id and resolution of one claim."""
        ev.far_switch_id = ev.far_port_id = None
        hits = [s for s in self.switches_named(ev.far) if s.id != ev.switch_id]
        if not hits:
            own = [s for s in self.switches_named(ev.far) if s.id == ev.switch_id]
            ev.resolution = ("names its own switch" if own else
                             f"no switch in the inventory is {_far_words(ev.far)}")
            return
        if len(hits) > 1:
            ev.resolution = f"{_far_words(ev.far)} could be {', '.join(sorted(s.name for s in hits))}"
            return
        far = hits[0]
        ev.far_switch_id = far.id
        ports = self.ports_named(far.id, ev.far)
        if ports is None:
            ev.resolution = f"switch {far.name} (the claim names no port)"
        elif len(ports) == 1:
            ev.far_port_id = ports[0].id
            ev.resolution = f"{far.name} {ports[0].name}" + (" (vanished)" if ports[0].gone else "")
        else:
            what = "no port" if not ports else f"{len(ports)} ports ({', '.join(sorted(p.name for p in ports))})"
            ev.resolution = f"switch {far.name}, but its port is {what} of {far.name}"

    def label_claims(self) -> list[EvidenceRec]:
        """Port labels (FORE portName, ifAlias) that name exactly one other switch."""
        out = []
        for p in self.ports.values():
            if p.gone or p.control or len(p.label.strip()) < 3:
                continue
            hits = [s for s in self.switches.values() if s.id != p.switch_id and any(
                label_matches_name(p.label, n) for n in (s.name, s.sys_name, s.identity.get("lldp_sys_name", ""))
                if n)]
            if len(hits) == 1:
                out.append(EvidenceRec(None, p.switch_id, p.id, "port-label",
                                       f"port {p.name} is named '{p.label}'", {"switch_id": hits[0].id}))
        return out


def _far_words(far: dict) -> str:
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in far.items()
             if k in ("address", "atm_address", "chassis", "sys_name") and v]
    return " / ".join(parts) or "named"


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def infer(net: Network, evidence: list[EvidenceRec], links: Iterable[LinkRec]) -> Outcome:
    """Candidates with confidence and conflicts, and the conflicts of the links that exist."""
    unresolved: dict[str, int] = defaultdict(int)
    for ev in evidence:
        net.resolve(ev)
        if ev.far_switch_id is None:
            unresolved[ev.kind] += 1
    claims = [ev for ev in evidence if ev.port_id in net.ports and ev.far_switch_id is not None]
    port_pins = [ev for ev in claims if ev.far_port_id is not None]
    switch_pins = [ev for ev in claims if ev.far_port_id is None and ev.kind in SWITCH_LEVEL + ("lldp", "ilmi")]
    adjacency = {frozenset((ev.switch_id, ev.far_switch_id)) for ev in evidence
                 if ev.kind == "fore-topology" and ev.far_switch_id is not None}

    cands: dict[tuple[int, int], Candidate] = {}
    for ev in port_pins:
        assert ev.port_id is not None and ev.far_port_id is not None
        cands.setdefault(_pair(ev.port_id, ev.far_port_id), Candidate(_pair(ev.port_id, ev.far_port_id)))
    naming: dict[tuple[int, int], set[int]] = defaultdict(set)      # (switch X, switch Y) -> ports of X naming Y
    for ev in switch_pins:
        assert ev.port_id is not None and ev.far_switch_id is not None
        naming[(ev.switch_id, ev.far_switch_id)].add(ev.port_id)
    for (x, y), mine in naming.items():
        theirs = naming.get((y, x), set())
        if x < y and len(mine) == 1 and len(theirs) == 1:
            pair = _pair(next(iter(mine)), next(iter(theirs)))
            cands.setdefault(pair, Candidate(pair))

    for cand in cands.values():
        p, q = (net.ports[i] for i in cand.ports)
        for ev in claims:
            if ev.port_id not in cand.ports:
                continue
            near, far = (p, q) if ev.port_id == p.id else (q, p)
            side = net.switches[ev.switch_id].name
            weight = ev.weight if ev.weight is not None else WEIGHTS.get(ev.kind, 0.0)
            if ev.far_port_id == far.id:
                cand.add(ev, side, weight)
            elif ev.far_port_id is None and ev.far_switch_id == far.switch_id:
                cand.add(ev, side, weight)
            else:
                other = net.ports.get(ev.far_port_id) if ev.far_port_id else None
                far_name = net.switches[ev.far_switch_id].name if ev.far_switch_id in net.switches else "?"
                where = f"{far_name} {other.name}" if other else f"switch {far_name}"
                cand.conflict.append(f"{side} {near.name}: {ev.says} -> {where}, not "
                                     f"{net.switches[far.switch_id].name} {far.name}")
        if frozenset((p.switch_id, q.switch_id)) in adjacency:
            for ev in evidence:
                if ev.kind == "fore-topology" and {ev.switch_id, ev.far_switch_id} == {p.switch_id, q.switch_id}:
                    cand.add(ev, net.switches[ev.switch_id].name, WEIGHTS["fore-topology"])
        for port in (p, q):
            if port.gone:
                cand.conflict.append(f"{net.switches[port.switch_id].name} {port.name} has vanished")
            elif not net.switches[port.switch_id].enabled:
                cand.conflict.append(f"switch {net.switches[port.switch_id].name} is disabled")

    kept = [c for c in cands.values() if c.confidence >= MIN_CONFIDENCE]
    return Outcome(kept, _port_conflicts(net, kept, list(links)), dict(unresolved))


def _port_conflicts(net: Network, kept: list[Candidate], links: list[LinkRec]) -> dict[int, str]:
    """Two links claimed for one port: among candidates and the links entered or confirmed by hand
    (a rejected link claims nothing). Marks the candidates; returns the texts for existing links."""
    by_pair = {_pair(lk.a_port_id, lk.b_port_id): lk for lk in links if lk.b_port_id is not None}
    claims: dict[tuple[int, int], list[str]] = defaultdict(list)

    def words(pair: tuple[int, int]) -> str:
        a, b = (net.ports.get(i) for i in pair)
        if a is None or b is None:
            return "a link"
        return (f"{net.switches[a.switch_id].name} {a.name} - {net.switches[b.switch_id].name} {b.name}")

    taken: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for lk in links:
        if lk.state == "rejected":
            continue
        pair = _pair(lk.a_port_id, lk.b_port_id) if lk.b_port_id is not None else None
        if pair is None:
            continue
        for port in pair:
            taken[port].add(pair)
    for cand in kept:
        link = by_pair.get(cand.ports)
        if link is not None and link.state == "rejected":
            continue
        for port in cand.ports:
            taken[port].add(cand.ports)
    for port, pairs in taken.items():
        if len(pairs) > 1:
            p = net.ports.get(port)
            name = f"{net.switches[p.switch_id].name} {p.name}" if p else f"port {port}"
            for pair in pairs:
                others = "; ".join(words(o) for o in sorted(pairs) if o != pair)
                claims[pair].append(f"{name} is claimed by another link too ({others})")
    for cand in kept:
        cand.conflict.extend(claims.get(cand.ports, []))
    out: dict[int, str] = {}
    for lk in links:
        texts: list[str] = []
        if lk.b_port_id is not None:
            texts += claims.get(_pair(lk.a_port_id, lk.b_port_id), [])
            for pid in (lk.a_port_id, lk.b_port_id):
                end = net.ports.get(pid)
                if end is not None and end.gone:
                    texts.append(f"{net.switches[end.switch_id].name} {end.name} has vanished")
                elif end is not None and not net.switches[end.switch_id].enabled:
                    texts.append(f"switch {net.switches[end.switch_id].name} is disabled")
        if lk.state != "inferred":
            out[lk.id] = "; ".join(dict.fromkeys(texts))
    return out
