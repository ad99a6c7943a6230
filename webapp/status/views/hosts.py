"""Host pages: table 1 (every host with its reachability strip), one host, and "check now"."""
from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from collector.events import read as events
from collector.inventory.models import Host
from collector.poller.models import HostCheck, HostState, NetworkJob
from webapp.access import roles
from webapp.status import pathmodel as pm
from webapp.status import queries as q
from webapp.status.paging import HOSTS_PER_PAGE, page_of
from webapp.status.views.common import host_or_404, safe_next, start_check, trace_view

log = logging.getLogger(__name__)
HOST_STATUSES = ("responding", "unreachable", "unchecked")
HISTORY_HOURS = (1, 6, 24, 168)

# --------------------------------------------------------------------------- hosts (table 1)


def hosts(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status", "")
    text = request.GET.get("q", "").strip()
    try:
        hours = int(request.GET.get("hours", 24))
    except ValueError:
        hours = 24
    if hours not in HISTORY_HOURS:
        hours = 24
    all_hosts = list(Host.objects.select_related("state").order_by("name"))

    def status_of(h: Host) -> str:
        st = getattr(h, "state", None)
        if st is None or st.reachable is None:
            return "unchecked"
        return "responding" if st.reachable else "unreachable"

    counts = {s: 0 for s in HOST_STATUSES}
    for h in all_hosts:
        counts[status_of(h)] += 1
    matching = [h for h in all_hosts if (not status or status_of(h) == status)
                and (not text or text.lower() in h.name.lower() or text in h.address)]
    page = page_of(request, matching, HOSTS_PER_PAGE)
    shown = list(page.object_list)
    # what the shown hosts are attached to: the ports that may attach them, not the whole inventory
    data = q.load_network(rates=False, topology_only=True,
                          port_q=q.host_ports_q(pm.HostInfo(h.id, h.name, h.address) for h in shown))
    history, start, width = q.host_history([h.id for h in shown], hours=hours, buckets=48)
    rows = []
    for h in shown:
        st = getattr(h, "state", None)
        atts = data.net.attachments.get(h.id, [])
        rows.append({"host": h, "state": st, "status": status_of(h), "history": history.get(h.id, []),
                     "attachments": [(data.net.switches[p.switch_id].name, p.name, nb) for p, nb in atts]})
    context = {"rows": rows, "page": page, "status": status, "q": text, "counts": counts, "total": len(all_hosts),
               "hours": hours, "hours_choices": HISTORY_HOURS, "history_start": start, "bucket_s": width,
               "now": timezone.now(), "statuses": HOST_STATUSES}
    return render(request, "status/hosts.html", context)


def host_detail(request: HttpRequest, name: str) -> HttpResponse:
    host = host_or_404(request, name)
    if isinstance(host, HttpResponse):
        return host
    state = HostState.objects.filter(host=host).first()
    checks = list(HostCheck.objects.filter(host_id=host.id).order_by("-time")[:30])
    history, start, width = q.host_history([host.id], hours=24, buckets=96)
    data = q.load_for_hosts([pm.HostInfo(host.id, host.name, host.address)])
    hinfo = data.net.hosts[host.id]
    outgoing = data.net.traces_from_host(hinfo)
    incoming = data.net.traces_into_host(hinfo)
    atts = [(data.net.switches[p.switch_id].name, p, nb) for p, nb in data.net.attachments_of(hinfo)]
    others = sorted(h.name for h in data.net.hosts.values() if h.id != host.id)
    context = {"host": host, "state": state, "checks": checks, "history": history[host.id], "history_start": start,
               "bucket_s": width, "outgoing": [trace_view(data, t) for t in outgoing],
               "incoming": [trace_view(data, t) for t in incoming], "attachments": atts,
               "others": others, "now": timezone.now(), "events": events.recent(host_id=host.id)}
    return render(request, "status/host_detail.html", context)


@require_http_methods(["GET", "POST"])
def host_check(request: HttpRequest, name: str) -> HttpResponse:
    """Check the host now, as a job of the worker of its poller group (the job's page shows it)."""
    host = host_or_404(request, name)
    if isinstance(host, HttpResponse):
        return host
    if request.method != "POST":
        return HttpResponseRedirect(safe_next(request, reverse("status:host", args=[host.name])))
    if not request.user.has_perm(roles.RUN_CHECKS):
        return roles.denied(request, "checking a host now needs the operator role")
    return start_check(request, NetworkJob.Kind.CHECK_HOST, host.name, host.poller_group, {"host_id": host.id},
                       reverse("status:host", args=[host.name]))
