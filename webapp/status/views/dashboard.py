"""Overview pages: the dashboard (what needs attention, switches, hosts), the switch list, the search."""
from __future__ import annotations

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from collector.inventory.models import CrossConnect, Host, Port, Switch, VirtualChannel
from collector.poller import pollers
from webapp.status import queries as q
from webapp.status.views.common import health_of, port_url, summary_of

# --------------------------------------------------------------------------- dashboard


def dashboard(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    switches = list(Switch.objects.select_related("health").order_by("name"))
    port_counts = {r["switch_id"]: r for r in Port.objects.present().values("switch_id").annotate(
        total=Count("id"), active=Count("id", filter=Q(oper_status="up")),
        down=Count("id", filter=Q(admin_status="up") & ~Q(oper_status="up")))}
    vc_counts = dict(VirtualChannel.objects.present().values("switch_id").annotate(n=Count("id"))
                     .values_list("switch_id", "n"))
    xc_counts = dict(CrossConnect.objects.present().values("switch_id").annotate(n=Count("id"))
                     .values_list("switch_id", "n"))
    latest = q.latest_samples([s.id for s in switches])
    rows = []
    for s in switches:
        h = getattr(s, "health", None)
        pc = port_counts.get(s.id, {"total": 0, "active": 0, "down": 0})
        rows.append({"switch": s, "h": h, "health": health_of(s, h, now), "ports": pc,
                     "vcs": vc_counts.get(s.id, 0), "xcs": xc_counts.get(s.id, 0),
                     "summary": summary_of(s, h, latest.get(s.id), pc["total"], pc["active"], now),
                     "latest": latest.get(s.id)})
    hosts = list(Host.objects.select_related("state").order_by("name"))
    host_rows = [(h, getattr(h, "state", None)) for h in hosts]
    problems = []
    for r in rows:
        if r["health"].state in ("failing", "stale", "never"):
            problems.append(("switch", r["switch"].name, reverse("status:switch", args=[r["switch"].name]),
                             r["health"].text, r["h"].last_poll_at if r["h"] else None))
        if r["ports"]["down"]:
            problems.append(("ports", r["switch"].name,
                             reverse("status:switch", args=[r["switch"].name]) + "?state=down",
                             f"{r['ports']['down']} port(s) enabled but not up", r["switch"].discovered_at))
    for h, st in host_rows:
        if st is not None and st.reachable is False:
            problems.append(("host", h.name, reverse("status:host", args=[h.name]),
                             "unreachable" + (f": {st.error}" if st.error else ""), st.checked_at))
    groups = pollers.groups(now)
    for g in groups:
        if g.state != "ok":
            problems.append(("poller", g.group, "#pollers", g.problem, g.last_poll_at))
    context = {
        "rows": rows, "hosts": host_rows, "now": now, "problems": problems,
        "port_count": sum(r["ports"]["total"] for r in rows),
        "port_active": sum(r["ports"]["active"] for r in rows),
        "vc_count": sum(vc_counts.values()), "xc_count": sum(xc_counts.values()),
        "polling_ok": sum(1 for r in rows if r["health"].state in ("ok", "partial")),
        "hosts_up": sum(1 for _, st in host_rows if st is not None and st.reachable),
        "pollers": groups, "late_periods": pollers.LATE_PERIODS,
    }
    return render(request, "status/dashboard.html", context)


# --------------------------------------------------------------------------- switches


def switches(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    sws = list(Switch.objects.select_related("health").order_by("name"))
    port_counts = {r["switch_id"]: r for r in Port.objects.present().values("switch_id").annotate(
        total=Count("id"), active=Count("id", filter=Q(oper_status="up")))}
    vc_counts = dict(VirtualChannel.objects.present().values("switch_id").annotate(n=Count("id"))
                     .values_list("switch_id", "n"))
    xc_counts = dict(CrossConnect.objects.present().values("switch_id").annotate(n=Count("id"))
                     .values_list("switch_id", "n"))
    latest = q.latest_samples([s.id for s in sws])
    rows = []
    for s in sws:
        h = getattr(s, "health", None)
        pc = port_counts.get(s.id, {"total": 0, "active": 0})
        rows.append({"switch": s, "h": h, "health": health_of(s, h, now), "vcs": vc_counts.get(s.id, 0),
                     "xcs": xc_counts.get(s.id, 0), "latest": latest.get(s.id),
                     "summary": summary_of(s, h, latest.get(s.id), pc["total"], pc["active"], now)})
    return render(request, "status/switches.html", {"rows": rows, "now": now})


# --------------------------------------------------------------------------- search


def search(request: HttpRequest) -> HttpResponse:
    text = request.GET.get("q", "").strip()
    context: dict = {"q": text}
    if text:
        context["hosts"] = list(Host.objects.filter(Q(name__icontains=text) | Q(address__icontains=text)
                                                    | Q(description__icontains=text)).order_by("name")[:50])
        context["switches"] = list(Switch.objects.filter(Q(name__icontains=text) | Q(address__icontains=text)
                                                         | Q(sys_name__icontains=text)).order_by("name")[:50])
        ports = list(Port.objects.present().filter(Q(name__iexact=text) | Q(label__icontains=text)
                                                   | Q(description__icontains=text)).select_related("switch")
                     .order_by("switch__name", "name")[:100])
        context["ports"] = [(p, port_url(p.switch.name, p.name)) for p in ports]
        context["xcs"] = list(CrossConnect.objects.present().filter(name__icontains=text)
                              .select_related("switch", "in_port", "out_port").order_by("switch__name")[:100])
        exact_h = [h for h in context["hosts"] if h.name.lower() == text.lower() or h.address == text]
        exact_s = [s for s in context["switches"] if s.name.lower() == text.lower() or s.address == text]
        total = sum(len(context[k]) for k in ("hosts", "switches", "ports", "xcs"))
        if len(exact_h) + len(exact_s) == 1 and request.GET.get("go") == "1":
            obj = (exact_h or exact_s)[0]
            return HttpResponseRedirect(reverse("status:host" if exact_h else "status:switch", args=[obj.name]))
        context["total"] = total
        status = 200 if total else 404
        return render(request, "status/search.html", context, status=status)
    return render(request, "status/search.html", context)
