"""What several status pages share: URLs of plots and ports, helpful 404s, lookups of a switch,
host or port by the name in the URL, the switch health and summary lines, and the rows built
from the path trace (neighbours, traces, PVCs) that more than one page shows.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from collector.inventory import ports
from collector.inventory.models import Host, Port, Switch
from collector.poller import jobs
from collector.poller.models import SwitchHealth
from collector.reader.latest import Latest
from webapp.status import queries as q
from webapp.status.pathmodel import Neighbor, Trace, XcInfo
from webapp.status.porttable import cells_mbps

# --------------------------------------------------------------------------- helpers


def start_check(request: HttpRequest, kind: str, target: str, group: str, params: dict, back: str) -> HttpResponse:
    """A "check now" as a network job of the target's poller group: its page shows the steps."""
    try:
        job = jobs.create(kind, target, group, params, owner_id=request.user.pk)
    except jobs.TooMany as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(safe_next(request, back))
    return HttpResponseRedirect(reverse("onboard:job", args=[job.id]))


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


# The *_or_404 helpers return the object, or the 404 page to answer instead.
def switch_or_404(request: HttpRequest, name: str) -> Switch | HttpResponse:
    switch = Switch.objects.select_related("health").filter(name=name).first()
    if switch is None:
        switch = Switch.objects.select_related("health").filter(Q(name__iexact=name) | Q(address=name)).first()
    if switch is not None:
        return switch
    known = [(n, reverse("status:switch", args=[n]))
             for n in Switch.objects.order_by("name").values_list("name", flat=True)]
    return not_found(request, "switch", name, known,
                           "Switches are added with `python manage.py add_switch NAME ADDRESS` or in the inventory.")


def host_or_404(request: HttpRequest, name: str) -> Host | HttpResponse:
    host = Host.objects.filter(name=name).first() or Host.objects.filter(Q(name__iexact=name) | Q(address=name)).first()
    if host is not None:
        return host
    known = [(n, reverse("status:host", args=[n]))
             for n in Host.objects.order_by("name").values_list("name", flat=True)]
    return not_found(request, "host", name, known,
                           "Hosts are added with `python manage.py add_host NAME ADDRESS` or in the inventory.")


def find_port(switch: Switch, name: str) -> Port | None:
    """A port of a switch by its (unique) name, its agent name when unique, ifindex:N or the
    agent's key; None when that names no port or several (the 404 page lists them)."""
    try:
        return ports.find_port(switch, name)
    except ports.PortLookupError:
        return None


def port_or_404(request: HttpRequest, switch: Switch, ref: str) -> Port | HttpResponse:
    """The port `ref` names, or a 404 page: the candidates when it names several ("A1" on a switch
    with boards 1 and 2), else the ports that exist."""
    try:
        return ports.find_port(switch, ref)
    except ports.PortLookupError as exc:
        if exc.ambiguous:
            known = [(f"{switch.name} {n}", port_url(switch.name, n)) for n in exc.candidates]
            return not_found(request, "port", f"{switch.name} {ref}", known, str(exc), {"ambiguous": True})
    names = sorted(Port.objects.filter(switch=switch, gone_at__isnull=True).values_list("name", flat=True))
    known = [(f"{switch.name} {n}", port_url(switch.name, n)) for n in names]
    return not_found(request, "port", f"{switch.name} {ref}", known,
                           f"Ports of {switch.name} come from discovery; the switch has {len(names)}.")


def safe_next(request: HttpRequest, fallback: str) -> str:
    nxt = request.POST.get("next") or request.GET.get("next") or ""
    if nxt and url_has_allowed_host_and_scheme(nxt, {request.get_host()}, require_https=request.is_secure()):
        return nxt
    return fallback


# --------------------------------------------------------------------------- switch summary / health


@dataclass
class Health:
    state: str                    # ok | partial | failing | stale | never | disabled
    text: str


class PolledSwitch(Protocol):
    """What health_of reads of a switch (a Switch, or the dashboard's light row of one)."""
    @property
    def enabled(self) -> bool: ...
    @property
    def poll_interval_s(self) -> int: ...


class PollHealth(Protocol):
    """What health_of reads of a switch's health (a SwitchHealth, or the dashboard's light row)."""
    @property
    def last_poll_at(self) -> datetime | None: ...
    @property
    def consecutive_failures(self) -> int: ...
    @property
    def last_status(self) -> str: ...


def health_of(switch: PolledSwitch, health: PollHealth | None, now: datetime) -> Health:
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


def summary_of(switch: Switch, health: SwitchHealth | None, latest: Latest | None, ports: int, active: int,
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


# --------------------------------------------------------------------------- rows shared by several pages


def summary_for(switch: Switch, latest: Latest | None, now: datetime) -> Summary:
    c = Port.objects.present().filter(switch=switch).aggregate(
        total=Count("id"), active=Count("id", filter=Q(oper_status="up")))
    return summary_of(switch, getattr(switch, "health", None), latest, c["total"], c["active"], now)


def stale(latest: Latest | None, switch: Switch, now: datetime) -> bool:
    return latest is not None and (now - latest.time).total_seconds() > 3 * switch.poll_interval_s + 60


def neighbor_view(data: q.NetworkData, nb: Neighbor) -> dict:
    if nb.host is not None:
        return {"kind": "host", "name": nb.host.name, "url": reverse("status:host", args=[nb.host.name]),
                "source": nb.source, "inferred": nb.inferred, "note": nb.note}
    port = nb.port
    if port is None:
        raise ValueError("a neighbour is a port or a host; this one is neither")
    sw = data.net.switches[port.switch_id]
    return {"kind": "port", "name": f"{sw.name} {port.name}", "url": port_url(sw.name, port.name),
            "source": nb.source + (f" {nb.confidence:.2f}" if nb.confidence is not None and nb.inferred else ""),
            "inferred": nb.inferred, "note": nb.note}


def trace_view(data: q.NetworkData, t: Trace) -> dict:
    hops = []
    for h in t.hops:
        hops.append({"h": h, "switch_url": reverse("status:switch", args=[h.switch.name]),
                     "in_url": port_url(h.switch.name, h.in_port.name),
                     "out_url": port_url(h.switch.name, h.out_port.name),
                     "plot": plot_url(h.switch.name, h.in_port.name, "in", h.in_vpi, h.in_vci),
                     "via": neighbor_view(data, h.via) if h.via else None})
    return {"t": t, "hops": hops}


def pvc_row(data: q.NetworkData, x: XcInfo, trace: Trace) -> dict:
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
        "alloc_mbps": cells_mbps(hop.alloc_bw) if hop and hop.alloc_bw is not None else None,
        "source": trace.start_host, "destination": trace.end_host if trace.end_kind == "host" else None,
        "status": trace.status, "problems": hop.problems if hop else [],
        "plot": plot_url(sw.name, inp.name, "in", x.in_vpi, x.in_vci if x.kind == "vc" else None),
        "trace_url": reverse("status:trace_vc") + "?" + urlencode(
            {"switch": sw.name, "port": inp.name, "vpi": x.in_vpi, **({"vci": x.in_vci} if x.kind == "vc" else {})}),
        "in_url": port_url(sw.name, inp.name), "out_url": port_url(sw.name, outp.name),
    }
