"""Overview pages: the dashboard (what needs attention, switches, hosts), the switch list, the search."""
from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from collector.inventory.models import CrossConnect, Host, Port, Switch, VirtualChannel
from collector.poller import pollers, runner
from collector.poller.models import HostState
from collector.reader.latest import latest_samples
from webapp.status.paging import DASHBOARD_ROWS, PROBLEMS_SHOWN, SWITCHES_PER_PAGE, page_of
from webapp.status.views.common import health_of, port_url, summary_of

# --------------------------------------------------------------------------- dashboard


PORT_COUNTS = {"total": Count("id"), "active": Count("id", filter=Q(oper_status="up")),
               "down": Count("id", filter=Q(admin_status="up") & ~Q(oper_status="up"))}


def _switch_rows(switches: list[Switch], now, port_counts: dict | None = None) -> list[dict]:
    """The table rows of these switches (one page of them): 4 queries whatever their number (5
    without port_counts)."""
    ids = [s.id for s in switches]
    if port_counts is None:
        port_counts = {r["switch_id"]: r for r in Port.objects.present().order_by().filter(switch_id__in=ids)
                       .values("switch_id").annotate(**PORT_COUNTS)}
    vc_counts = dict(VirtualChannel.objects.present().order_by().filter(switch_id__in=ids).values("switch_id")
                     .annotate(n=Count("id")).values_list("switch_id", "n"))
    xc_counts = dict(CrossConnect.objects.present().order_by().filter(switch_id__in=ids).values("switch_id")
                     .annotate(n=Count("id")).values_list("switch_id", "n"))
    latest = latest_samples(ids)
    rows = []
    for s in switches:
        h = getattr(s, "health", None)
        pc = port_counts.get(s.id, {"total": 0, "active": 0, "down": 0})
        rows.append({"switch": s, "h": h, "health": health_of(s, h, now), "ports": pc,
                     "vcs": vc_counts.get(s.id, 0), "xcs": xc_counts.get(s.id, 0), "latest": latest.get(s.id),
                     "summary": summary_of(s, h, latest.get(s.id), pc["total"], pc["active"], now)})
    return rows


class _Health(NamedTuple):
    last_poll_at: datetime | None
    consecutive_failures: int
    last_status: str
    last_error: str


class _Polled(NamedTuple):
    """A switch as the dashboard's counts and problems read it (common.health_of), from one row
    of values: model objects for the 2,117 switches of figure 13 cost 49 ms, the rows 22."""
    id: int
    name: str
    enabled: bool
    poll_interval_s: int
    discovered_at: datetime | None
    poller_group: str
    health: _Health | None


def _polled_switches() -> list[_Polled]:
    rows = Switch.objects.order_by("name").values_list(
        "id", "name", "enabled", "poll_interval_s", "discovered_at", "poller_group", "health__last_poll_at",
        "health__consecutive_failures", "health__last_status", "health__last_error")
    return [_Polled(i, name, enabled, interval, discovered, group,
                    None if failures is None else _Health(at, failures, status, error))
            for i, name, enabled, interval, discovered, group, at, failures, status, error in rows]


class Cause(NamedTuple):
    """Switches whose polls fail, grouped by why (runner.FAILURES) and by poller group."""
    status: str
    meaning: str
    poller_group: str
    switches: int
    examples: list[str]


def failure_causes(switches: list[_Polled]) -> list[Cause]:
    grouped: dict[tuple[str, str], list[str]] = {}
    for s in switches:
        if s.enabled and s.health is not None and s.health.consecutive_failures:
            grouped.setdefault((s.health.last_status, s.poller_group), []).append(s.name)
    return [Cause(status, runner.FAILURES.get(status, "other"), group, len(names), names[:5])
            for (status, group), names in sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def dashboard(request: HttpRequest) -> HttpResponse:
    """Counts of everything, what needs attention (at most PROBLEMS_SHOWN rows, counted), and the
    first DASHBOARD_ROWS switches and hosts, the poller groups, failing polls by cause: a fixed number of
    queries (17) and a bounded page at any inventory size.
    Every switch's health is judged (one row per switch, no per-port work) for the counts."""
    now = timezone.now()
    # every switch with only what health_of and the problems read (all columns of 2,000 switches
    # cost 300 ms); the rows shown are read in full below
    switches = _polled_switches()
    health = {s.id: health_of(s, s.health, now) for s in switches}
    port_counts = {r["switch_id"]: r
                   for r in Port.objects.present().order_by().values("switch_id").annotate(**PORT_COUNTS)}
    down = {sid: r["down"] for sid, r in port_counts.items() if r["down"]}
    ports = {k: sum(r[k] for r in port_counts.values()) for k in ("total", "active")}
    hosts = Host.objects.aggregate(total=Count("id"), up=Count("id", filter=Q(state__reachable=True)),
                                   unreachable=Count("id", filter=Q(state__reachable=False)))
    # failing switches first, then unreachable hosts, then the switches with ports down (warnings)
    problems, warnings = [], []       # (kind, name, text, since, URL query), URLs made for the shown ones
    for s in switches:
        hs = health[s.id]
        if hs.state in ("failing", "stale", "never"):
            error = s.health.last_error if hs.state == "failing" and s.health else ""
            problems.append(("switch", s.name, hs.text + (f": {error}" if error else ""),
                             s.health.last_poll_at if s.health else None, ""))
        if down.get(s.id):
            warnings.append(("ports", s.name, f"{down[s.id]} port(s) enabled but not up", s.discovered_at,
                             "?state=down"))
    # late poller groups first: one of them explains many late switches
    groups = pollers.groups(now)
    problems[:0] = [("poller", g.group, g.problem, g.last_poll_at, "") for g in groups if g.state != "ok"]
    problem_count = len(problems) + hosts["unreachable"] + len(warnings)
    unreachable = HostState.objects.filter(reachable=False).select_related("host").order_by("host__name")
    for st in unreachable[:PROBLEMS_SHOWN]:
        problems.append(("host", st.host.name, "unreachable" + (f": {st.error}" if st.error else ""),
                         st.checked_at, ""))
    shown = [(kind, name, "#pollers" if kind == "poller" else
              reverse("status:host" if kind == "host" else "status:switch", args=[name]) + query,
              text, at) for kind, name, text, at, query in (problems + warnings)[:PROBLEMS_SHOWN]]
    shown_hosts = list(Host.objects.select_related("state").order_by("name")[:DASHBOARD_ROWS])
    context = {
        "rows": _switch_rows(list(Switch.objects.select_related("health").order_by("name")[:DASHBOARD_ROWS]), now,
                             port_counts),
        "switch_count": len(switches),
        "hosts": [(h, getattr(h, "state", None)) for h in shown_hosts], "host_count": hosts["total"],
        "now": now, "problems": shown, "problem_count": problem_count,
        "port_count": ports["total"], "port_active": ports["active"],
        "vc_count": VirtualChannel.objects.present().count(), "xc_count": CrossConnect.objects.present().count(),
        "polling_ok": sum(1 for hs in health.values() if hs.state in ("ok", "partial")),
        "hosts_up": hosts["up"], "pollers": groups, "late_periods": pollers.LATE_PERIODS,
        "causes": failure_causes(switches),
    }
    return render(request, "status/dashboard.html", context)


# --------------------------------------------------------------------------- switches


def switches(request: HttpRequest) -> HttpResponse:
    """The switch list, SWITCHES_PER_PAGE at a time (7 queries per page)."""
    now = timezone.now()
    page = page_of(request, Switch.objects.select_related("health").order_by("name"), SWITCHES_PER_PAGE)
    rows = _switch_rows(list(page.object_list), now)
    return render(request, "status/switches.html", {"rows": rows, "now": now, "page": page})


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
