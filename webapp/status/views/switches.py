"""One switch: its page (tables 2b/2c, links, recent polls), "check now", and one of its ports."""
from __future__ import annotations

from urllib.parse import urlencode

from django.db.models import F
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from collector.archive.models import PollLog, Series
from collector.events import read as events
from collector.inventory.models import Switch, VirtualChannel, VirtualPath
from collector.poller.models import NetworkJob
from webapp.access import roles
from webapp.status import queries as q
from webapp.status.porttable import port_sort_key, port_table
from webapp.status.views.common import (
    health_of,
    neighbor_view,
    plot_url,
    port_or_404,
    port_url,
    pvc_row,
    safe_next,
    stale,
    start_check,
    summary_of,
    switch_or_404,
)


def switch_detail(request: HttpRequest, name: str) -> HttpResponse:
    switch = switch_or_404(request, name)
    if isinstance(switch, HttpResponse):
        return switch
    now = timezone.now()
    state = request.GET.get("state", "")
    include_gone = request.GET.get("gone") == "1"
    data = q.load_network(rates=False, topology_only=True, around=[switch.id])
    table = port_table(switch, data.net, include_gone=include_gone)
    rows = []
    for r in table.rows:
        ref = r.port.name
        if state == "up" and r.port.oper_status != "up":
            continue
        if state == "down" and r.port.oper_status == "up":
            continue
        rows.append({"r": r, "url": port_url(switch.name, ref),
                     "plot_in": plot_url(switch.name, r.port.name, "in"),
                     "plot_out": plot_url(switch.name, r.port.name, "out"),
                     "neighbors": [neighbor_view(data, nb) for nb in r.neighbors]})
    health = getattr(switch, "health", None)
    present = [r for r in table.rows if r.port.gone_at is None]
    summary = summary_of(switch, health, table.latest, len(present),
                         sum(1 for r in present if r.port.oper_status == "up"), now)
    polls = list(PollLog.objects.filter(switch_id=switch.id).order_by("-time")[:10])
    links = _switch_links(data, switch)
    context = {"switch": switch, "h": health, "health": health_of(switch, health, now), "summary": summary,
               "rows": rows, "table": table, "polls": polls, "links": links, "state": state,
               "include_gone": include_gone, "now": now, "value_notes": q.value_notes(switch),
               "stale": stale(table.latest, switch, now), "tab": "ports", "events": events.recent(switch_id=switch.id)}
    return render(request, "status/switch_detail.html", context)


def _switch_links(data: q.NetworkData, switch: Switch) -> list[dict]:
    out = []
    for port in sorted(data.net.ports_by_switch.get(switch.id, []), key=port_sort_key):
        for nb in data.net.neighbors.get(port.id, []):
            v = neighbor_view(data, nb)
            v.update(port=port, port_url=port_url(switch.name, port.name), link_id=nb.link_id)
            if nb.inferred:
                params = {"a_port": port.id, "source": "manual", "note": nb.note[:255]}
                if nb.host is not None:
                    params["b_host"] = nb.host.id
                elif nb.port is not None:
                    params["b_port"] = nb.port.id
                v["confirm_url"] = reverse("admin:inventory_link_add") + "?" + urlencode(params)
            out.append(v)
    return out


@require_http_methods(["GET", "POST"])
def switch_check(request: HttpRequest, name: str) -> HttpResponse:
    """Check again now: rediscover (port states, VCs, cross-connects) and poll (counters), as a job
    of the worker of the switch's poller group; the job's page shows each step."""
    switch = switch_or_404(request, name)
    if isinstance(switch, HttpResponse):
        return switch
    if request.method != "POST":
        return HttpResponseRedirect(safe_next(request, reverse("status:switch", args=[switch.name])))
    if not request.user.has_perm(roles.RUN_CHECKS):
        return roles.denied(request, "checking a switch now needs the operator role")
    return start_check(request, NetworkJob.Kind.CHECK_SWITCH, switch.name, switch.poller_group,
                       {"switch_id": switch.id}, reverse("status:switch", args=[switch.name]))


def port_detail(request: HttpRequest, name: str, port: str) -> HttpResponse:
    switch = switch_or_404(request, name)
    if isinstance(switch, HttpResponse):
        return switch
    p = port_or_404(request, switch, port)
    if isinstance(p, HttpResponse):
        return p
    now = timezone.now()
    port_events = events.recent(port_id=p.id)
    data = q.load_network(rate_switch_ids=[switch.id], around=[switch.id])
    table = port_table(switch, data.net, include_gone=True, port_ids=[p.id], data=data)
    row = table.rows[0]
    vcs = list(VirtualChannel.objects.filter(port=p).order_by(F("gone_at").asc(nulls_first=True), "vpi", "vci"))
    vps = list(VirtualPath.objects.filter(port=p).order_by(F("gone_at").asc(nulls_first=True), "vpi"))
    rates = data.net.rates
    vc_rows = []
    for vc in vcs:
        vc_rows.append({"vc": vc, "rate_in": rates.get(("in", p.id, vc.vpi, vc.vci)),
                        "rate_out": rates.get(("out", p.id, vc.vpi, vc.vci)),
                        "plot": plot_url(switch.name, p.name, "in", vc.vpi, vc.vci),
                        "trace": reverse("status:trace_vc") + "?" + urlencode(
                            {"switch": switch.name, "port": p.name, "vpi": vc.vpi, "vci": vc.vci})})
    vp_rows = [{"vp": vp, "rate_in": rates.get(("in", p.id, vp.vpi, None)),
                "rate_out": rates.get(("out", p.id, vp.vpi, None)),
                "plot": plot_url(switch.name, p.name, "in", vp.vpi)} for vp in vps]
    xcs = [(x, data.net.trace_xc(x)) for x in data.net.xcs if p.id in (x.in_port_id, x.out_port_id)]
    widths = list(Series.objects.filter(port=p, vp__isnull=True, vc__isnull=True, kind="counter").order_by(
        "metric", "direction").values_list("object_name", "direction", "width"))
    context = {"switch": switch, "port": p, "r": row, "table": table, "vc_rows": vc_rows, "vp_rows": vp_rows,
               "widths": widths,
               "xcs": [pvc_row(data, x, t) for x, t in xcs],
               "neighbors": [neighbor_view(data, nb) for nb in data.net.neighbors.get(p.id, [])],
               "plot_in": plot_url(switch.name, p.name, "in"), "plot_out": plot_url(switch.name, p.name, "out"),
               "now": now, "stale": stale(table.latest, switch, now), "events": port_events,
               "state_event": events.newer_state(port_events, switch.discovered_at, p.oper_status)}
    return render(request, "status/port_detail.html", context)
