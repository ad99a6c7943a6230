"""Status pages: answered from what the collector already stored, never by polling on request.

Every page runs a fixed number of queries whatever the number of rows (tests count them), and
shows when each figure was measured. The only writes are the "check now" buttons (POST, login
required), which run one host check or one discovery + poll of a switch, then redirect back.
"""
from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, F, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from collector.archive.models import PollLog
from collector.inventory.models import CrossConnect, Host, Port, Switch, VirtualChannel, VirtualPath
from collector.poller import actions
from collector.poller.models import HostCheck, HostState, SwitchHealth
from webapp.status import queries as q

log = logging.getLogger(__name__)
HOST_STATUSES = ("responding", "unreachable", "unchecked")
HISTORY_HOURS = (1, 6, 24, 168)


# --------------------------------------------------------------------------- helpers


def plot_url(switch: str, port: str, direction: str = "in", vpi=None, vci=None) -> str:
    """The traffic plot of a port (or of a VP/VC on it): /traffic/?switch=&port=&direction=[&vpi=&vci=]."""
    params = {"switch": switch, "port": port, "direction": direction}
    if vpi is not None:
        params["vpi"] = vpi
    if vci is not None:
        params["vci"] = vci
    return "/traffic/?" + urlencode(params)


def port_url(switch_name: str, port_name: str) -> str:
    return reverse("status:port", args=[switch_name, port_name])


def suggestions(text: str, names: list[str], n: int = 6) -> list[str]:
    t = (text or "").lower()
    contains = [x for x in names if t and t in x.lower()]
    close = difflib.get_close_matches(text or "", names, n=n, cutoff=0.4)
    out = []
    for x in contains + close:
        if x not in out:
            out.append(x)
    return out[:n]


def not_found(request: HttpRequest, kind: str, name: str, known: list[tuple[str, str]], hint: str = "",
              extra: dict | None = None) -> HttpResponse:
    """A 404 that helps: what was asked, what is close, and what exists (known: [(label, url)])."""
    labels = [label for label, _ in known]
    close = suggestions(name, labels)
    url_of = dict(known)
    context = {"kind": kind, "kinds": {"switch": "switches"}.get(kind, kind + "s"), "name": name, "hint": hint,
               "close": [(c, url_of[c]) for c in close],
               "known": known[:200], "known_more": max(0, len(known) - 200)}
    context.update(extra or {})
    return render(request, "status/not_found.html", context, status=404)


def switch_or_404(request: HttpRequest, name: str) -> tuple[Switch | None, HttpResponse | None]:
    switch = Switch.objects.select_related("health").filter(name=name).first()
    if switch is None:
        switch = Switch.objects.select_related("health").filter(Q(name__iexact=name) | Q(address=name)).first()
    if switch is not None:
        return switch, None
    known = [(n, reverse("status:switch", args=[n]))
             for n in Switch.objects.order_by("name").values_list("name", flat=True)]
    return None, not_found(request, "switch", name, known,
                           "Switches are added with `python manage.py add_switch NAME ADDRESS` or in the inventory.")


def host_or_404(request: HttpRequest, name: str) -> tuple[Host | None, HttpResponse | None]:
    host = Host.objects.filter(name=name).first() or Host.objects.filter(Q(name__iexact=name) | Q(address=name)).first()
    if host is not None:
        return host, None
    known = [(n, reverse("status:host", args=[n]))
             for n in Host.objects.order_by("name").values_list("name", flat=True)]
    return None, not_found(request, "host", name, known,
                           "Hosts are added with `python manage.py add_host NAME ADDRESS` or in the inventory.")


def find_port(switch: Switch, name: str) -> Port | None:
    """A port of a switch by name (unique), else by the agent's key (FORE portNumber / ifIndex)."""
    hits = list(Port.objects.filter(switch=switch, name=name).order_by("gone_at", "id")[:2])
    present = [p for p in hits if p.gone_at is None]
    if len(present) == 1 or (len(hits) == 1):
        return (present or hits)[0]
    by_key = Port.objects.filter(switch=switch, key=name).first()
    return by_key or (hits[0] if hits else None)


def port_ref(switch_name: str, port, duplicates: set[str]) -> str:
    """The URL component naming a port: its name, or its key when several ports share that name."""
    return port.key if port.name in duplicates else port.name


def _safe_next(request: HttpRequest, fallback: str) -> str:
    nxt = request.POST.get("next") or request.GET.get("next") or ""
    if nxt and url_has_allowed_host_and_scheme(nxt, {request.get_host()}, require_https=request.is_secure()):
        return nxt
    return fallback


# --------------------------------------------------------------------------- switch summary / health


@dataclass
class Health:
    state: str                    # ok | partial | failing | stale | never | disabled
    text: str


def health_of(switch: Switch, health: SwitchHealth | None, now: datetime) -> Health:
    if not switch.enabled:
        return Health("disabled", "polling disabled")
    if health is None or health.last_poll_at is None:
        return Health("never", "not polled yet")
    if health.consecutive_failures:
        return Health("failing", f"{health.consecutive_failures} failed poll"
                                 f"{'s' if health.consecutive_failures != 1 else ''} in a row: {health.last_status}")
    age = (now - health.last_poll_at).total_seconds()
    if age > 3 * switch.poll_interval_s + 60:
        return Health("stale", f"no poll for {int(age)} s (interval {switch.poll_interval_s} s): "
                               "is the worker running?")
    if health.last_status == "partial":
        return Health("partial", "answered partly")
    return Health("ok", "polling")


@dataclass
class Summary:
    switch_type: str
    uptime_s: float | None
    uptime_at: datetime | None
    live: bool
    ports: int
    active: int
    software: str
    hardware: str


def summary_of(switch: Switch, health: SwitchHealth | None, latest: q.Latest | None, ports: int, active: int,
               now: datetime) -> Summary:
    """Table 2b's header. The agent uptime comes from the newest of discovery and the last poll;
    it is carried forward to now only while the switch answers (else: 'as of' that time)."""
    cands = []
    if switch.uptime_cs is not None and switch.uptime_at:
        cands.append((switch.uptime_at, switch.uptime_cs))
    if latest is not None and latest.uptime_cs is not None:
        cands.append((latest.time, latest.uptime_cs))
    uptime_s = at = None
    live = False
    if cands:
        at, cs = max(cands, key=lambda c: c[0])
        uptime_s = cs / 100
        answered = health.last_success_at if health else None
        live = bool(answered and (now - answered).total_seconds() <= 3 * switch.poll_interval_s + 60
                    and not (health and health.consecutive_failures))
        if live:
            uptime_s += max(0.0, (now - at).total_seconds())
    return Summary(_type_words(switch), uptime_s, at, live, ports, active, switch.software_version,
                   switch.hardware_version)


def _type_words(switch: Switch) -> str:
    """'ASX-200BX switch' as in table 2b; a sysDescr-derived type is trimmed to read as a name."""
    t = (switch.switch_type or "").strip()
    if "(" in t and ")" not in t:
        t = t[:t.index("(")].strip()
    if not t:
        return f"{switch.effective_profile} switch" if switch.effective_profile else "switch"
    return t if "switch" in t.lower() else f"{t} switch"


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
    context = {
        "rows": rows, "hosts": host_rows, "now": now, "problems": problems,
        "port_count": sum(r["ports"]["total"] for r in rows),
        "port_active": sum(r["ports"]["active"] for r in rows),
        "vc_count": sum(vc_counts.values()), "xc_count": sum(xc_counts.values()),
        "polling_ok": sum(1 for r in rows if r["health"].state in ("ok", "partial")),
        "hosts_up": sum(1 for _, st in host_rows if st is not None and st.reachable),
    }
    return render(request, "status/dashboard.html", context)


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
    shown = [h for h in all_hosts if (not status or status_of(h) == status)
             and (not text or text.lower() in h.name.lower() or text in h.address)]
    data = q.load_network(rates=False, topology_only=True)
    history, start, width = q.host_history([h.id for h in shown], hours=hours, buckets=48)
    rows = []
    for h in shown:
        st = getattr(h, "state", None)
        atts = data.net.attachments.get(h.id, [])
        rows.append({"host": h, "state": st, "status": status_of(h), "history": history.get(h.id, []),
                     "attachments": [(data.net.switches[p.switch_id].name, p.name, nb) for p, nb in atts]})
    context = {"rows": rows, "status": status, "q": text, "counts": counts, "total": len(all_hosts),
               "hours": hours, "hours_choices": HISTORY_HOURS, "history_start": start, "bucket_s": width,
               "now": timezone.now(), "statuses": HOST_STATUSES}
    return render(request, "status/hosts.html", context)


def host_detail(request: HttpRequest, name: str) -> HttpResponse:
    host, resp = host_or_404(request, name)
    if resp:
        return resp
    state = HostState.objects.filter(host=host).first()
    checks = list(HostCheck.objects.filter(host_id=host.id).order_by("-time")[:30])
    history, start, width = q.host_history([host.id], hours=24, buckets=96)
    data = q.load_network()
    hinfo = data.net.hosts[host.id]
    outgoing = data.net.traces_from_host(hinfo)
    incoming = data.net.traces_into_host(hinfo)
    atts = [(data.net.switches[p.switch_id].name, p, nb) for p, nb in data.net.attachments_of(hinfo)]
    others = sorted(h.name for h in data.net.hosts.values() if h.id != host.id)
    context = {"host": host, "state": state, "checks": checks, "history": history[host.id], "history_start": start,
               "bucket_s": width, "outgoing": [_trace_view(data, t) for t in outgoing],
               "incoming": [_trace_view(data, t) for t in incoming], "attachments": atts,
               "others": others, "now": timezone.now()}
    return render(request, "status/host_detail.html", context)


@require_http_methods(["GET", "POST"])
def host_check(request: HttpRequest, name: str) -> HttpResponse:
    host, resp = host_or_404(request, name)
    if resp:
        return resp
    target = _safe_next(request, reverse("status:host", args=[host.name]))
    if request.method != "POST":
        return HttpResponseRedirect(target)
    if not request.user.is_authenticated:
        return login_required(lambda r: None)(request)
    try:
        result = actions.check_host(host.id)
    except Exception as exc:     # the check itself is bounded (2 s timeouts); report, do not 500
        log.exception("check of host %s failed", host.name)
        messages.error(request, f"{host.name}: the check could not run ({exc.__class__.__name__}: {exc})")
        return HttpResponseRedirect(target)
    if result.reachable:
        delay = f"{result.rtt_ms:.1f} ms" if result.rtt_ms is not None else "delay unknown"
        messages.success(request, f"{host.name} is responding ({result.method}, {delay}), checked at "
                                  f"{timezone.now():%H:%M:%S} UTC")
    else:
        messages.warning(request, f"{host.name} is unreachable ({result.method}: {result.error or 'no answer'}), "
                                  f"checked at {timezone.now():%H:%M:%S} UTC")
    return HttpResponseRedirect(target)


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


def _duplicates(ports) -> set[str]:
    seen, dup = set(), set()
    for p in ports:
        (dup if p.name in seen else seen).add(p.name)
    return dup


def switch_detail(request: HttpRequest, name: str) -> HttpResponse:
    switch, resp = switch_or_404(request, name)
    if resp:
        return resp
    now = timezone.now()
    state = request.GET.get("state", "")
    include_gone = request.GET.get("gone") == "1"
    data = q.load_network(rates=False, topology_only=True)
    table = q.port_table(switch, data.net, include_gone=include_gone)
    dup = _duplicates(r.port for r in table.rows)
    rows = []
    for r in table.rows:
        ref = port_ref(switch.name, r.port, dup)
        if state == "up" and r.port.oper_status != "up":
            continue
        if state == "down" and r.port.oper_status == "up":
            continue
        rows.append({"r": r, "url": port_url(switch.name, ref),
                     "plot_in": plot_url(switch.name, r.port.name, "in"),
                     "plot_out": plot_url(switch.name, r.port.name, "out"),
                     "neighbors": [_neighbor_view(data, nb) for nb in r.neighbors]})
    health = getattr(switch, "health", None)
    present = [r for r in table.rows if r.port.gone_at is None]
    summary = summary_of(switch, health, table.latest, len(present),
                         sum(1 for r in present if r.port.oper_status == "up"), now)
    polls = list(PollLog.objects.filter(switch_id=switch.id).order_by("-time")[:10])
    links = _switch_links(data, switch)
    context = {"switch": switch, "h": health, "health": health_of(switch, health, now), "summary": summary,
               "rows": rows, "table": table, "polls": polls, "links": links, "state": state,
               "include_gone": include_gone, "now": now, "dup": dup,
               "stale": _stale(table.latest, switch, now), "tab": "ports"}
    return render(request, "status/switch_detail.html", context)


def _summary_for(switch: Switch, latest: q.Latest | None, now: datetime) -> Summary:
    c = Port.objects.present().filter(switch=switch).aggregate(
        total=Count("id"), active=Count("id", filter=Q(oper_status="up")))
    return summary_of(switch, getattr(switch, "health", None), latest, c["total"], c["active"], now)


def _stale(latest: q.Latest | None, switch: Switch, now: datetime) -> bool:
    return latest is not None and (now - latest.time).total_seconds() > 3 * switch.poll_interval_s + 60


def _neighbor_view(data: q.NetworkData, nb) -> dict:
    if nb.host is not None:
        return {"kind": "host", "name": nb.host.name, "url": reverse("status:host", args=[nb.host.name]),
                "source": nb.source, "inferred": nb.inferred, "note": nb.note}
    sw = data.net.switches[nb.port.switch_id]
    return {"kind": "port", "name": f"{sw.name} {nb.port.name}", "url": port_url(sw.name, nb.port.name),
            "source": nb.source, "inferred": nb.inferred, "note": nb.note}


def _switch_links(data: q.NetworkData, switch: Switch) -> list[dict]:
    out = []
    for port in sorted(data.net.ports_by_switch.get(switch.id, []), key=q.port_sort_key):
        for nb in data.net.neighbors.get(port.id, []):
            v = _neighbor_view(data, nb)
            v.update(port=port, port_url=port_url(switch.name, port.name), link_id=nb.link_id)
            if nb.inferred:
                params = {"a_port": port.id, "source": "manual", "note": nb.note[:255]}
                if nb.host is not None:
                    params["b_host"] = nb.host.id
                else:
                    params["b_port"] = nb.port.id
                v["confirm_url"] = "/admin/inventory/link/add/?" + urlencode(params)
            out.append(v)
    return out


@require_http_methods(["GET", "POST"])
def switch_check(request: HttpRequest, name: str) -> HttpResponse:
    """Check again now: rediscover (port states, VCs, cross-connects) and poll (counters)."""
    switch, resp = switch_or_404(request, name)
    if resp:
        return resp
    target = _safe_next(request, reverse("status:switch", args=[switch.name]))
    if request.method != "POST":
        return HttpResponseRedirect(target)
    if not request.user.is_authenticated:
        return login_required(lambda r: None)(request)
    check = actions.check_switch(switch.id)     # polls here, under the same lock as scheduled polls
    if check.discovered:
        messages.success(request, f"discovered at {timezone.now():%H:%M:%S} UTC: {check.discovery}")
    else:
        messages.error(request, f"{switch.name}: {check.discovery}")
    status = check.poll_status
    if status in ("ok", "partial"):
        messages.success(request, f"polled at {timezone.now():%H:%M:%S} UTC: {status}")
    elif status == "skipped":
        messages.info(request, "a scheduled poll of this switch was running; its result is shown")
    else:
        messages.error(request, f"poll at {timezone.now():%H:%M:%S} UTC: {status}")
    return HttpResponseRedirect(target)


def port_detail(request: HttpRequest, name: str, port: str) -> HttpResponse:
    switch, resp = switch_or_404(request, name)
    if resp:
        return resp
    p = find_port(switch, port)
    if p is None:
        names = sorted(Port.objects.filter(switch=switch, gone_at__isnull=True).values_list("name", flat=True),
                       key=lambda n: n)
        known = [(f"{switch.name} {n}", port_url(switch.name, n)) for n in names]
        return not_found(request, "port", f"{switch.name} {port}", known,
                         f"Ports of {switch.name} come from discovery; the switch has {len(names)}.")
    now = timezone.now()
    data = q.load_network(rate_switch_ids=[switch.id])
    table = q.port_table(switch, data.net, include_gone=True, port_ids=[p.id], data=data)
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
    context = {"switch": switch, "port": p, "r": row, "table": table, "vc_rows": vc_rows, "vp_rows": vp_rows,
               "xcs": [_pvc_row(data, x, t) for x, t in xcs],
               "neighbors": [_neighbor_view(data, nb) for nb in data.net.neighbors.get(p.id, [])],
               "plot_in": plot_url(switch.name, p.name, "in"), "plot_out": plot_url(switch.name, p.name, "out"),
               "now": now, "stale": _stale(table.latest, switch, now)}
    return render(request, "status/port_detail.html", context)


# --------------------------------------------------------------------------- PVCs (table 2d)


def _pvc_row(data: q.NetworkData, x, trace) -> dict:
    net = data.net
    sw = net.switches[x.switch_id]
    hop = next((h for h in trace.hops if h.xc.id == x.id), None)
    inp, outp = net.ports[x.in_port_id], net.ports[x.out_port_id]
    rate = hop.rate if hop else net.xc_rate(x)
    in_vci = hop.in_vci if hop else x.in_vci
    out_vci = hop.out_vci if hop else x.out_vci
    up_since = hop.up_since if hop else x.up_since
    now = timezone.now()
    return {
        "xc": x, "switch": sw, "trace": trace, "hop": hop, "in_port": inp, "out_port": outp,
        "in_vci": in_vci, "out_vci": out_vci, "rate": rate,
        "uptime_s": (now - up_since).total_seconds() if up_since else None,
        "alloc_mbps": q.cells_mbps(hop.alloc_bw) if hop and hop.alloc_bw is not None else None,
        "source": trace.start_host, "destination": trace.end_host if trace.end_kind == "host" else None,
        "status": trace.status, "problems": hop.problems if hop else [],
        "plot": plot_url(sw.name, inp.name, "in", x.in_vpi, x.in_vci if x.kind == "vc" else None),
        "trace_url": reverse("status:trace_vc") + "?" + urlencode(
            {"switch": sw.name, "port": inp.name, "vpi": x.in_vpi, **({"vci": x.in_vci} if x.kind == "vc" else {})}),
        "in_url": port_url(sw.name, inp.name), "out_url": port_url(sw.name, outp.name),
    }


def _filter_pvcs(rows: list[dict], request: HttpRequest) -> tuple[list[dict], dict]:
    f = {k: request.GET.get(k, "").strip() for k in ("kind", "status", "host", "q", "switch")}
    out = []
    for r in rows:
        if f["kind"] and r["xc"].kind != f["kind"]:
            continue
        if f["status"] and r["status"] != f["status"]:
            continue
        if f["switch"] and r["switch"].name != f["switch"]:
            continue
        if f["host"]:
            names = [h.name.lower() for h in (r["source"], r["destination"]) if h]
            if not any(f["host"].lower() in n for n in names):
                continue
        if f["q"]:
            hay = " ".join([r["xc"].name, r["in_port"].name, r["out_port"].name, r["switch"].name,
                            f"{r['xc'].in_vpi}/{r['in_vci']}", f"{r['xc'].out_vpi}/{r['out_vci']}"]).lower()
            if f["q"].lower() not in hay:
                continue
        out.append(r)
    return out, f


def switch_pvcs(request: HttpRequest, name: str) -> HttpResponse:
    switch, resp = switch_or_404(request, name)
    if resp:
        return resp
    data = q.load_network()
    rows = [_pvc_row(data, x, t) for x, t in data.net.traces_of_switch(switch.id)]
    rows, f = _filter_pvcs(rows, request)
    latest = data.latest.get(switch.id)
    now = timezone.now()
    return render(request, "status/pvcs.html", {
        "switch": switch, "rows": rows, "f": f, "latest": latest, "now": now, "tab": "pvcs", "show_switch": False,
        "summary": _summary_for(switch, latest, now),
        "stale": _stale(latest, switch, now), "h": getattr(switch, "health", None),
        "health": health_of(switch, getattr(switch, "health", None), now)})


def pvcs(request: HttpRequest) -> HttpResponse:
    data = q.load_network()
    rows = []
    for sid in sorted(data.net.switches, key=lambda i: data.net.switches[i].name):
        rows += [_pvc_row(data, x, t) for x, t in data.net.traces_of_switch(sid)]
    rows, f = _filter_pvcs(rows, request)
    # one line per end-to-end connection as well (what table 2d summarised by hosts)
    times = sorted((lt.time for lt in data.latest.values()), reverse=True)
    return render(request, "status/pvcs.html", {
        "switch": None, "rows": rows, "f": f, "now": timezone.now(), "show_switch": True,
        "switch_names": sorted(s.name for s in data.net.switches.values()),
        "newest": times[0] if times else None, "oldest": times[-1] if times else None,
        "latest_by_switch": {data.net.switches[k].name: v for k, v in data.latest.items()}})


# --------------------------------------------------------------------------- VCCs of a switch (figure 4)


def switch_vccs(request: HttpRequest, name: str) -> HttpResponse:
    switch, resp = switch_or_404(request, name)
    if resp:
        return resp
    now = timezone.now()
    data = q.load_network()
    net = data.net
    vcs = list(VirtualChannel.objects.filter(switch=switch, gone_at__isnull=True).select_related("port"))
    vcs.sort(key=lambda v: (q.port_sort_key(v.port), v.vpi, v.vci))
    traces: dict[int, object] = {}

    def trace_of(x):
        if x.id not in traces:
            traces[x.id] = net.trace_xc(x)
        return traces[x.id]

    rows = []
    counts = {"up": 0, "down": 0, "incomplete": 0, "broken": 0, "terminates": 0}
    for vc in vcs:
        outgoing = net.xc_in.get(("vc", vc.port_id, vc.vpi, vc.vci), [])
        incoming = net.xc_out.get(("vc", vc.port_id, vc.vpi, vc.vci), [])
        row = {"vc": vc, "rate_in": net.rates.get(("in", vc.port_id, vc.vpi, vc.vci)),
               "plot": plot_url(switch.name, vc.port.name, "in", vc.vpi, vc.vci),
               "port_url": port_url(switch.name, vc.port.name),
               "trace_url": reverse("status:trace_vc") + "?" + urlencode(
                   {"switch": switch.name, "port": vc.port.name, "vpi": vc.vpi, "vci": vc.vci}),
               "to": [(net.ports[x.out_port_id].name, x.out_vpi, x.out_vci, x.status) for x in outgoing],
               "from": [(net.ports[x.in_port_id].name, x.in_vpi, x.in_vci, x.status) for x in incoming]}
        t = trace_of(outgoing[0]) if outgoing else (trace_of(incoming[0]) if incoming else None)
        row["trace"] = t
        if t is None:
            row["conn"] = "terminates"
            row["conn_text"] = f"terminates on {switch.name} (not cross-connected)"
        else:
            row["conn"] = t.status
        if vc.status and vc.status != "up" and row["conn"] == "up":
            row["conn"] = "down"
        counts[row["conn"]] = counts.get(row["conn"], 0) + 1
        rows.append(row)
    # cross-connects whose incoming endpoint discovery did not list as a VC: still VCCs of this switch
    listed = {(vc.port_id, vc.vpi, vc.vci) for vc in vcs}
    for x in net.xcs:
        if x.switch_id != switch.id or x.kind != "vc" or (x.in_port_id, x.in_vpi, x.in_vci) in listed:
            continue
        pinfo = net.ports[x.in_port_id]
        t = trace_of(x)
        pseudo = SimpleNamespace(port=pinfo, port_id=pinfo.id, vpi=x.in_vpi, vci=x.in_vci, status="",
                                 service_category="", aal_type="", alloc_bw=None, up_since=x.up_since)
        row = {"vc": pseudo, "rate_in": net.rates.get(("in", x.in_port_id, x.in_vpi, x.in_vci)),
               "plot": plot_url(switch.name, pinfo.name, "in", x.in_vpi, x.in_vci),
               "port_url": port_url(switch.name, pinfo.name),
               "trace_url": reverse("status:trace_vc") + "?" + urlencode(
                   {"switch": switch.name, "port": pinfo.name, "vpi": x.in_vpi, "vci": x.in_vci}),
               "to": [(net.ports[x.out_port_id].name, x.out_vpi, x.out_vci, x.status)], "from": [],
               "trace": t, "conn": t.status, "no_endpoint": True}
        counts[row["conn"]] = counts.get(row["conn"], 0) + 1
        rows.append(row)
    rows.sort(key=lambda r: (q.port_sort_key(r["vc"].port), r["vc"].vpi, r["vc"].vci))
    state = request.GET.get("status", "")
    shown = [r for r in rows if not state or r["conn"] == state]
    latest = data.latest.get(switch.id)
    return render(request, "status/vccs.html", {
        "switch": switch, "rows": shown, "counts": counts, "total": len(rows), "status": state, "latest": latest,
        "now": now, "tab": "vccs", "stale": _stale(latest, switch, now), "h": getattr(switch, "health", None),
        "summary": _summary_for(switch, latest, now),
        "health": health_of(switch, getattr(switch, "health", None), now)})


def vccs_form(request: HttpRequest) -> HttpResponse:
    """Figure 4's form: 'Please enter the name of the switch'."""
    name = request.GET.get("switch", "").strip()
    if name:
        switch, resp = switch_or_404(request, name)
        if resp:
            return resp
        return HttpResponseRedirect(reverse("status:switch_vccs", args=[switch.name]))
    sws = list(Switch.objects.order_by("name").annotate(
        vcs=Count("channels", filter=Q(channels__gone_at__isnull=True))))
    return render(request, "status/vccs_form.html", {"switches": sws})


# --------------------------------------------------------------------------- path between hosts (figure 3)


def path(request: HttpRequest) -> HttpResponse:
    src_text = request.GET.get("src", "").strip()
    dst_text = request.GET.get("dst", "").strip()
    context: dict = {"src": src_text, "dst": dst_text, "now": timezone.now()}
    if not src_text and not dst_text:
        context["hosts"] = list(Host.objects.order_by("name").values_list("name", "address"))
        return render(request, "status/path.html", context)
    data = q.load_network()
    net = data.net
    context["hosts"] = sorted((h.name, h.address) for h in net.hosts.values())
    missing = []
    src = net.find_host(src_text)
    dst = net.find_host(dst_text)
    for label, text, h in (("source", src_text, src), ("destination", dst_text, dst)):
        if h is None:
            names = sorted(x.name for x in net.hosts.values())
            missing.append({"label": label, "text": text, "close": suggestions(text, names) if text else []})
    if missing:
        context["missing"] = missing
        return render(request, "status/path.html", context, status=404 if any(m["text"] for m in missing) else 200)
    conn = net.connection(src, dst)
    shown = conn.forward + conn.reverse + (
        conn.from_source[:30] + conn.into_destination[:30] if not conn.forward else [])
    context.update(conn=conn, src_host=src, dst_host=dst,
                   measured=sorted({h.rate.at for t in shown for h in t.hops if h.rate and h.rate.at}),
                   forward=[_trace_view(data, t) for t in conn.forward],
                   reverse=[_trace_view(data, t) for t in conn.reverse],
                   from_src=[_trace_view(data, t) for t in conn.from_source[:30]],
                   from_src_more=max(0, len(conn.from_source) - 30),
                   into_dst=[_trace_view(data, t) for t in conn.into_destination[:30]],
                   src_atts=[(net.switches[p.switch_id].name, p, nb) for p, nb in conn.source_attachments],
                   dst_atts=[(net.switches[p.switch_id].name, p, nb) for p, nb in conn.destination_attachments])
    return render(request, "status/path.html", context)


def _trace_view(data: q.NetworkData, t) -> dict:
    hops = []
    for h in t.hops:
        hops.append({"h": h, "switch_url": reverse("status:switch", args=[h.switch.name]),
                     "in_url": port_url(h.switch.name, h.in_port.name),
                     "out_url": port_url(h.switch.name, h.out_port.name),
                     "plot": plot_url(h.switch.name, h.in_port.name, "in", h.in_vpi, h.in_vci),
                     "via": _neighbor_view(data, h.via) if h.via else None})
    return {"t": t, "hops": hops}


def trace_vc(request: HttpRequest) -> HttpResponse:
    """One connection through a given switch/port/VPI/VCI, end to end."""
    sw_name = request.GET.get("switch", "").strip()
    port_name = request.GET.get("port", "").strip()
    if not sw_name or not port_name:
        return HttpResponseRedirect(reverse("status:path"))
    switch, resp = switch_or_404(request, sw_name)
    if resp:
        return resp
    p = find_port(switch, port_name)
    if p is None:
        names = sorted(Port.objects.filter(switch=switch, gone_at__isnull=True).values_list("name", flat=True))
        return not_found(request, "port", f"{switch.name} {port_name}",
                         [(f"{switch.name} {n}", port_url(switch.name, n)) for n in names])
    try:
        vpi = int(request.GET.get("vpi", ""))
        vci = int(request.GET["vci"]) if request.GET.get("vci", "") != "" else None
    except ValueError:
        return render(request, "status/trace.html", {"error": "VPI and VCI must be numbers", "switch": switch,
                                                     "port": p}, status=400)
    data = q.load_network()
    pinfo = data.net.ports.get(p.id)
    trace = data.net.trace_endpoint(pinfo, vpi, vci) if pinfo else None
    context = {"switch": switch, "port": p, "vpi": vpi, "vci": vci, "now": timezone.now(),
               "measured": sorted({lt.time for lt in data.latest.values()})}
    if trace is None:
        # Cells may only leave here (the endpoint is the output side of a cross-connect).
        leaving = data.net.xc_leaving(p.id, vpi, vci) if pinfo else []
        if leaving:
            trace = data.net.trace_xc(leaving[0], vci)
    if trace is None:
        context["why"] = (data.net.why_not(pinfo, vpi, vci) if pinfo
                          else f"port {p.name} has vanished from {switch.name}")
        return render(request, "status/trace.html", context, status=404)
    context["trace"] = _trace_view(data, trace)
    context["measured"] = sorted({h.rate.at for h in trace.hops if h.rate and h.rate.at})
    return render(request, "status/trace.html", context)


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
