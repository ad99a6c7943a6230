"""The network map (/map/): the page, its graph (now or at a past time), one link's details with the
VCs that cross it, a traced path to highlight, and stored node positions (operators).

Bounds: the graph is one row per switch, host and link, read in a fixed number of queries within
the "status" statement budget, at most graph.MAP_NODES_MAX nodes drawn (a larger network around one
switch, `around`, within `hops` links); `at` must fall in the archive's range; at most
collector.inventory.mappositions.MAX_NODES positions per request."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import orjson
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from collector.core.isotime import iso, parse_optional
from collector.inventory import mappositions
from collector.inventory.models import Host, Link, LinkEvidence, Switch
from webapp.access import roles
from webapp.status import queries as q
from webapp.topology import graph

MOVE = "inventory.change_mapposition"
EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)


def _bad(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@require_GET
def page(request: HttpRequest) -> HttpResponse:
    return render(request, "topology/map.html", {
        "can_move": request.user.has_perm(MOVE), "src": request.GET.get("src", ""), "dst": request.GET.get("dst", ""),
        "around": request.GET.get("around", ""), "hops": request.GET.get("hops", ""),
        "hops_max": graph.HOPS_MAX, "hops_default": graph.HOPS_DEFAULT, "nodes_max": graph.MAP_NODES_MAX,
        "hosts": list(Host.objects.order_by("name").values_list("name", flat=True)),
        "is_admin": request.user.is_staff})


@require_GET
def graph_api(request: HttpRequest) -> HttpResponse:
    """?at=<ISO 8601>: the utilisation of that time from the rollups; none: the latest polls."""
    try:
        at = parse_optional("at", request.GET.get("at"))
    except ValueError as exc:
        return _bad(str(exc))
    if at is not None and not EARLIEST <= at <= timezone.now() + timedelta(minutes=1):
        return _bad(f"at={iso(at)} is outside the archive (1990 .. now)")
    around_text, hops_text = request.GET.get("around", "").strip(), request.GET.get("hops", "").strip()
    around = None
    if around_text:
        around = Switch.objects.filter(name=around_text).values_list("id", flat=True).first()
        if around is None:
            return _bad(f"around={around_text}: no switch of that name")
    hops = graph.HOPS_DEFAULT
    if hops_text:
        if not hops_text.isdigit() or not 1 <= int(hops_text) <= graph.HOPS_MAX:
            return _bad(f"hops={hops_text}: a number of links from 1 to {graph.HOPS_MAX}")
        hops = int(hops_text)
    return HttpResponse(orjson.dumps(graph.build(at, around=around, hops=hops)), content_type="application/json")


def _xc_rows(net, port_id: int, towards: str) -> list[dict]:
    rows = []
    for x in net.xc_by_out_port.get(port_id, []):
        rate = net.xc_rate(x)
        rows.append({"direction": towards, "switch": net.switches[x.switch_id].name, "kind": x.kind,
                     "in": f"{net.ports[x.in_port_id].name} {x.in_vpi}/{x.in_vci if x.kind == 'vc' else '*'}",
                     "out": f"{net.ports[x.out_port_id].name} {x.out_vpi}/{x.out_vci if x.kind == 'vc' else '*'}",
                     "name": x.name, "status": x.status,
                     "cells_per_s": None if rate is None or rate.cells_per_s is None else round(rate.cells_per_s, 1),
                     "trace": reverse("status:trace_vc") + f"?switch={net.switches[x.switch_id].name}"
                              f"&port={net.ports[x.in_port_id].name}&vpi={x.in_vpi}"
                              + (f"&vci={x.in_vci}" if x.kind == "vc" else "")})
    return rows


@require_GET
def link_api(request: HttpRequest, link_id: int) -> JsonResponse:
    """One link: its ends, how it is known (evidence, confidence, conflict), plots of both ends and
    the VCs and VPs that cross it with their latest rates."""
    link = Link.objects.select_related("a_port__switch", "b_port__switch", "b_host").filter(pk=link_id).first()
    if link is None or link.b_port is None:
        return _bad(f"no link between switches with id {link_id}", 404)
    a, b = link.a_port, link.b_port
    net = q.load_network(rate_switch_ids=[a.switch_id, b.switch_id]).net
    claims = LinkEvidence.objects.filter(port__in=[a, b]).select_related("switch", "port").order_by("kind")
    return JsonResponse({
        "id": link.id, "state": link.state, "source": link.source, "confidence": link.confidence,
        "conflict": link.conflict, "decided_by": link.decided_by,
        "a": {"switch": a.switch.name, "port": a.name, "url": reverse("status:port", args=[a.switch.name, a.name]),
              "plot": graph.plot_url(a.switch.name, a.name)},
        "b": {"switch": b.switch.name, "port": b.name, "url": reverse("status:port", args=[b.switch.name, b.name]),
              "plot": graph.plot_url(b.switch.name, b.name)},
        "evidence": link.evidence or [],
        "claims": [{"switch": c.switch.name, "port": c.port.name if c.port else "", "kind": c.kind, "says": c.says,
                    "matched": c.resolution} for c in claims],
        "vcs": _xc_rows(net, a.id, f"{a.switch.name} -> {b.switch.name}")
        + _xc_rows(net, b.id, f"{b.switch.name} -> {a.switch.name}"),
        "admin": reverse("admin:inventory_link_change", args=[link.id]) if request.user.is_staff else None})


@require_GET
def path_api(request: HttpRequest) -> JsonResponse:
    """?src=&dst= (hosts): the links and nodes of the traced paths both ways, to highlight."""
    src_text, dst_text = request.GET.get("src", "").strip(), request.GET.get("dst", "").strip()
    if not src_text or not dst_text:
        return _bad("give src and dst (host names or addresses)")
    net = q.load_network().net
    src, dst = net.find_host(src_text), net.find_host(dst_text)
    missing = [t for t, h in ((src_text, src), (dst_text, dst)) if h is None]
    if missing or src is None or dst is None:
        return _bad(f"no host {', '.join(repr(m) for m in missing)} in the inventory", 404)
    conn = net.connection(src, dst)
    links, nodes, traces = set(), {f"host:{src.id}", f"host:{dst.id}"}, []
    for t in conn.forward + conn.reverse:
        for h in t.hops:
            nodes.add(f"switch:{h.switch.id}")
            if h.via is not None and h.via.link_id and h.via.port is not None:
                links.add(f"l{h.via.link_id}")
        for host, port in ((t.start_host, t.first.in_port if t.first else None),
                           (t.end_host, t.hops[-1].out_port if t.hops else None)):
            if host is not None and port is not None:
                links.add(f"h{port.id}-{host.id}")
        traces.append({"hops": [f"{h.switch.name} {h.in_port.name}->{h.out_port.name}" for h in t.hops],
                       "status": t.status, "links": t.links_summary})
    return JsonResponse({"summary": conn.summary, "edges": sorted(links), "nodes": sorted(nodes), "traces": traces,
                         "page": reverse("status:path") + f"?src={src.name}&dst={dst.name}"})


@require_POST
@roles.require(MOVE, "moving nodes on the map needs the operator role")
def positions_api(request: HttpRequest) -> JsonResponse:
    """Store node positions: a JSON body {"positions": {"switch:3": [x, y], ...}}, or the same mapping
    as JSON in the form field "positions"."""
    try:
        if request.content_type == "application/json":
            body = json.loads(request.body or b"{}")
            moved = body.get("positions") if isinstance(body, dict) else None
        else:
            moved = json.loads(request.POST.get("positions") or "null")
        saved = mappositions.save(moved, request.user.get_username())
    except (ValueError, mappositions.LayoutError) as exc:
        return _bad(str(exc))
    return JsonResponse({"saved": saved})
