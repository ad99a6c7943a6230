"""Status pages: answered from what the collector already stored, never by polling on request."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from webapp.inventory.models import Host, Port, Switch, VirtualChannel
from webapp.status.models import HostState, SwitchHealth


def dashboard(request: HttpRequest) -> HttpResponse:
    switches = list(Switch.objects.order_by("name"))
    health = {h.switch_id: h for h in SwitchHealth.objects.all()}
    rows = [(s, health.get(s.pk)) for s in switches]
    hosts = list(Host.objects.order_by("name"))
    states = {h.host_id: h for h in HostState.objects.all()}
    context = {
        "rows": rows,
        "hosts": [(h, states.get(h.pk)) for h in hosts],
        "now": timezone.now(),
        "port_count": Port.objects.present().count(),
        "vc_count": VirtualChannel.objects.present().count(),
        "polling_ok": sum(1 for _, h in rows if h and h.last_status in ("ok", "partial")),
    }
    return render(request, "status/dashboard.html", context)
