"""The map's graph: switches and hosts as nodes, links as edges with their utilisation in each
direction, now (the latest poll of each switch) or at a past time (the rollup tier that still
holds it). A fixed number of queries whatever the size of the network (docs/benchmarks.md).

Utilisation of a link a-b in the direction a->b is what port a transmits, as a share of the
port's capacity (the archive's `capacity_per_s`: the OVER_CAPACITY bound); where port a has no
transmit counter, what port b receives. Cells for ATM ports, octets for the others.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

from django.db import connection
from django.db.models import Q
from django.urls import reverse

from collector.archive.tiers import TIERS
from collector.inventory.mappositions import HEIGHT, WIDTH, positions
from collector.inventory.models import Host, Link, Port, Switch
from collector.reader.latest import rates_at, rates_now, retained
from webapp.status import pathmodel as pm
from webapp.status import pathtrace as pt
from webapp.status import queries as q
from webapp.topology.drawing import place

# Nodes the map draws at most. A larger network is drawn around one switch: its neighbours within
# `hops` links (the best-connected switch unless one is asked for), the limit stated in the answer.
# The whole of 3,100 nodes was one unreadable drawing and a 0.4-0.5 s answer at 100,000 ports
# (docs/benchmarks.md, figure 13p).
MAP_NODES_MAX = 300
HOPS_DEFAULT = 2
HOPS_MAX = 6


@dataclass(frozen=True)
class SwitchRow:
    id: int
    name: str
    switch_type: str
    enabled: bool


@dataclass(frozen=True)
class PortSeries:
    sid: int
    switch_id: int
    unit: str
    capacity: float | None


def port_series(port_ids: set[int]) -> dict[tuple[int, str], PortSeries]:
    """(port, direction) -> its traffic series: cells where counted, else octets. The ports' own
    series only (index on port_id): a scan of every port series cost 0.2-0.3 s at 100,000 ports."""
    out: dict[tuple[int, str], PortSeries] = {}
    if not port_ids:
        return out
    with connection.cursor() as cur:
        cur.execute("SELECT id, switch_id, port_id, direction, unit, capacity_per_s FROM traffic_series "
                    "WHERE kind = 'counter' "
                    "AND gone_at IS NULL AND port_id = ANY(%s) AND vp_id IS NULL AND vc_id IS NULL "
                    "AND metric IN ('cells', 'octets') ORDER BY metric, id", [sorted(port_ids)])
        for sid, switch_id, port, direction, unit, cap in cur.fetchall():    # "cells" sorts before "octets"
            out.setdefault((port, direction), PortSeries(sid, switch_id, unit, cap))
    return out


def _attachments() -> tuple[pt.Network, dict[int, str]]:
    """Hosts and the ports they are attached to (links to hosts, port names naming one host: the
    tracer's own rule, webapp/status/pathtrace.py), from the ports that can carry one only: linked
    to a host, or labelled with what may name one (queries.host_ports_q, indexed). Every labelled
    port was read and matched before: 1.5 s at 100,000 ports."""
    hosts = [pm.HostInfo(*row) for row in Host.objects.values_list("id", "name", "address")]
    links = [pm.LinkInfo(i, a, None, h, source=src) for i, a, h, src in Link.objects.filter(
        b_host__isnull=False).values_list("id", "a_port_id", "b_host_id", "source")]
    linked = {lk.a_port_id for lk in links}
    rows = list(Port.objects.present().filter(Q(id__in=linked) | q.labelled_for_hosts_q(hosts)).order_by().values_list(
        "id", "switch_id", "name", "key", "label", "port_type", "oper_status")) if hosts else []
    names = dict(Switch.objects.values_list("id", "name"))
    ports = [pm.PortInfo(*row) for row in rows]
    switches = [pm.SwitchInfo(i, n) for i, n in names.items()]
    return pt.Network(switches, ports, hosts, links, []), names


def _url(prefix: str, name: str) -> str:
    """A status URL of a name that may hold "/", quoted as django.urls.reverse quotes it."""
    return prefix + quote(name, safe="!$&'()*+,;=/~:@") + "/"


def _direction(series: dict, rates: dict, out_port: int, in_port: int | None) -> dict:
    """Utilisation of the direction out_port -> in_port."""
    ps = series.get((out_port, "out")) or (series.get((in_port, "in")) if in_port else None)
    if ps is None:
        return {"rate": None, "util": None, "unit": "", "why": "no counter"}
    rate, flags = rates.get(ps.sid, (None, 0))
    util = (rate / ps.capacity) if rate is not None and ps.capacity else None
    return {"rate": None if rate is None else round(rate, 1), "util": None if util is None else round(util, 4),
            "unit": ps.unit, "capacity": ps.capacity, "flags": flags}


def known_as(state: str, source: str) -> str:
    """How a link between switches is known: manual, confirmed (inferred, then confirmed) or inferred."""
    if state == "inferred":
        return "inferred"
    return "confirmed" if source == "inferred" else "manual"


def plot_url(switch: str, port: str) -> str:
    """The traffic plot of a port, both directions (names may hold "/": a query, not a path)."""
    return reverse("traffic:plot") + "?" + urlencode({"switch": switch, "port": port})


def neighbourhood(start: str, edges: list[tuple[str, str]], hops: int, limit: int) -> tuple[list[str], bool]:
    """Nodes within `hops` edges of `start`, nearest first (breadth first, names in order within a
    ring), at most `limit`; and whether the limit cut the last ring short."""
    adjacent: dict[str, set[str]] = {}
    for a, b in edges:
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)
    seen, ring = [start], [start]
    known = {start}
    for _ in range(hops):
        nxt = sorted({n for r in ring for n in adjacent.get(r, ()) if n not in known})
        if len(seen) + len(nxt) > limit:
            seen += nxt[:limit - len(seen)]
            return seen, True
        seen += nxt
        known.update(nxt)
        ring = nxt
    return seen, False


def _centre(switches: dict[int, SwitchRow], edges: list[dict]) -> int:
    """The switch with the most links (then the first by name): where a large map is drawn around."""
    degree: dict[str, int] = {}
    for e in edges:
        for end in (e["a"], e["b"]):
            degree[end] = degree.get(end, 0) + 1
    return min(switches.values(), key=lambda s: (-degree.get(f"switch:{s.id}", 0), s.name)).id


def build(at: datetime | None = None, fresh_layout: bool = False, around: int | None = None,
          hops: int = HOPS_DEFAULT) -> dict:
    """The map as JSON-ready data (now, or at `at` from the rollups): the whole network when it has
    at most MAP_NODES_MAX nodes and no switch is asked for, else the part within `hops` links of
    switch `around` (the best-connected one by default), at most MAP_NODES_MAX nodes; "view" says
    which. `fresh_layout`: the layout computed again, not taken from the cache (the benchmark)."""
    topo, _ = _attachments()
    # plain rows, not Switch objects (which set up their encrypted secrets: 0.1 s for 2,100)
    switches = {s.id: s for s in (SwitchRow(*row) for row in Switch.objects.order_by("name").values_list(
        "id", "name", "switch_type", "enabled"))}
    links = list(Link.objects.exclude(state="rejected").filter(b_port__isnull=False, a_port__gone_at__isnull=True,
                                                                b_port__gone_at__isnull=True).values_list(
        "id", "a_port_id", "b_port_id", "state", "source", "confidence", "conflict", "evidence", "a_port__switch_id",
        "a_port__name", "b_port__switch_id", "b_port__name"))
    edges: list[dict[str, Any]] = []
    port_ids: set[int] = set()
    for lid, a, b, state, source, conf, conflict, evidence, a_sw, a_name, b_sw, b_name in links:
        port_ids |= {a, b}
        edges.append({"id": f"l{lid}", "link": lid, "kind": "switch", "a": f"switch:{a_sw}",
                      "b": f"switch:{b_sw}", "a_port": a_name, "b_port": b_name, "a_port_id": a,
                      "b_port_id": b, "state": state,
                      "known": known_as(state, source),
                      "confidence": conf, "conflict": conflict,
                      "evidence": sorted({e.get("kind", "") for e in evidence or []})})
    hosts = {}
    for host_id, atts in topo.attachments.items():
        for port, nb in atts:
            hosts[host_id] = topo.hosts[host_id]
            port_ids.add(port.id)
            edges.append({"id": f"h{port.id}-{host_id}", "link": nb.link_id, "kind": "host",
                          "a": f"switch:{port.switch_id}", "b": f"host:{host_id}", "a_port": port.name, "b_port": "",
                          "a_port_id": port.id, "b_port_id": None, "state": "confirmed" if nb.link_id else "inferred",
                          "known": nb.source, "confidence": None, "conflict": "", "evidence": []})
    total = len(switches) + len(hosts)
    view: dict = {"whole": True, "nodes_total": total, "shown": total, "limit": MAP_NODES_MAX}
    if switches and (around is not None or total > MAP_NODES_MAX):
        centre = around if around in switches else _centre(switches, edges)
        keep_list, cut = neighbourhood(f"switch:{centre}", [(e["a"], e["b"]) for e in edges], hops, MAP_NODES_MAX)
        keep = set(keep_list)
        switches = {i: sw for i, sw in switches.items() if f"switch:{i}" in keep}
        hosts = {i: h for i, h in hosts.items() if f"host:{i}" in keep}
        edges = [e for e in edges if e["a"] in keep and e["b"] in keep]
        port_ids = {p for e in edges for p in (e["a_port_id"], e["b_port_id"]) if p is not None}
        view = {"whole": False, "nodes_total": total, "shown": len(keep), "limit": MAP_NODES_MAX,
                "around": switches[centre].name, "hops": hops, "cut": cut}
    series = port_series(port_ids)
    sids = {ps.sid for ps in series.values()}
    if at is None:
        rates, measured = rates_now({ps.switch_id for ps in series.values()}, sids)
        rates_from: dict[str, Any] = {"kind": "now", "measured": measured.isoformat() if measured else None}
    else:
        rates, tier, bucket = rates_at(at, sids)
        rates_from = {"kind": "rollup", "tier": tier, "bucket": bucket.isoformat() if bucket else None,
                  "width_s": next((t.seconds for t in TIERS if t.name == tier), None)}
    plot = reverse("traffic:plot") + "?"
    for e in edges:
        e["ab"] = _direction(series, rates, e["a_port_id"], e["b_port_id"])
        e["ba"] = _direction(series, rates, e["b_port_id"], e["a_port_id"]) if e["b_port_id"] else \
            _direction(series, rates, -1, e["a_port_id"])
        e["plot"] = (f"{plot}switch={quote_plus(switches[int(e['a'].split(':')[1])].name)}"
                     f"&port={quote_plus(e['a_port'])}")            # urlencode: 20 us an edge, 3,000 edges
    switch_url, host_url = reverse("status:switches"), reverse("status:hosts")
    nodes: list[dict[str, Any]] = [
        {"id": f"switch:{s.id}", "kind": "switch", "name": s.name, "type": s.switch_type, "enabled": s.enabled,
         "url": _url(switch_url, s.name)} for s in switches.values()]
    nodes += [{"id": f"host:{h.id}", "kind": "host", "name": h.name, "address": h.address,
               "url": _url(host_url, h.name)} for h in hosts.values()]
    placed = place([n["id"] for n in nodes], [(e["a"], e["b"]) for e in edges], positions(), fresh_layout)
    for n in nodes:
        n["x"], n["y"] = placed[n["id"]]
    oldest, newest = retained()
    return {"nodes": nodes, "edges": edges, "size": [WIDTH, HEIGHT], "source": rates_from, "view": view,
            "retained": {"oldest": oldest.isoformat() if oldest else None,
                         "newest": newest.isoformat() if newest else None},
            "conflicts": [{"link": e["link"], "a": e["a"], "b": e["b"], "text": e["conflict"]}
                          for e in edges if e["conflict"]]}


