"""Connection pages, built on the path trace: table 2d (the PVCs of a switch and network-wide),
figure 4 (the VCCs of a switch, with the status of the end-to-end connection each one belongs
to), figure 3 (the VC paths between two hosts) and one VC or VP traced end to end.
"""
from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import urlencode

from django.db.models import Case, Count, DecimalField, Q, QuerySet, Value, When
from django.db.models.functions import Cast, Coalesce, Collate
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from collector.core.isotime import parse_iso
from collector.inventory.models import CrossConnect, Host, Switch, VirtualChannel
from webapp.status import hopcount, windowadvice
from webapp.status import pathmodel as pm
from webapp.status import pathtrace as pt
from webapp.status import queries as q
from webapp.status.paging import PVCS_PER_PAGE, page_of
from webapp.status.porttable import port_sort_key
from webapp.status.views.common import (
    health_of,
    plot_url,
    port_or_404,
    port_url,
    pvc_row,
    stale,
    suggestions,
    summary_for,
    switch_or_404,
    trace_view,
)

# --------------------------------------------------------------------------- PVCs (table 2d)


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
    switch = switch_or_404(request, name)
    if isinstance(switch, HttpResponse):
        return switch
    data = q.load_network(around=[switch.id])
    needs_traces = bool(request.GET.get("status", "").strip() or request.GET.get("host", "").strip())
    if needs_traces:        # the filter is on the traces: trace them all, then show a page
        rows, f = _filter_pvcs([pvc_row(data, x, t) for x, t in data.net.traces_of_switch(switch.id)], request)
        page = page_of(request, rows, PVCS_PER_PAGE)
        rows = list(page.object_list)
    else:                   # trace only the page's cross-connects (in table order)
        xcs = [r[0] for r in _pvc_candidates(request, switch.id)]
        page = page_of(request, xcs, PVCS_PER_PAGE)
        rows, f = _filter_pvcs(_pvc_rows(data, list(page.object_list)), request)
    latest = data.latest.get(switch.id)
    now = timezone.now()
    return render(request, "status/pvcs.html", {
        "switch": switch, "rows": rows, "page": page, "f": f, "latest": latest, "now": now, "tab": "pvcs",
        "show_switch": False,
        "summary": summary_for(switch, latest, now),
        "stale": stale(latest, switch, now), "h": getattr(switch, "health", None),
        "health": health_of(switch, getattr(switch, "health", None), now)})


# Table 2d's order, as the database sorts it: switch name, incoming port as porttable.port_sort_key
# orders ports (numeric keys first, by number, then the others; then the name), VPI, VCI (none
# first), with names compared as Python compares str (COLLATE "C": code point order). Sorted in
# Python, the network-wide list read and sorted all 50,000 cross-connects of figure 13 at each view.
_NUMERIC_KEY = Q(in_port__key__regex=r"^[0-9]+$")
_WHOLE_NUMBER: DecimalField = DecimalField(max_digits=60, decimal_places=0)     # a key of any length, as Python's int
TABLE_2D_ORDER = (
    Collate("switch__name", "C"), Case(When(_NUMERIC_KEY, then=Value(0)), default=Value(1)),
    Case(When(_NUMERIC_KEY, then=Cast("in_port__key", _WHOLE_NUMBER)), default=Value(0, output_field=_WHOLE_NUMBER)),
    Collate("in_port__name", "C"), "in_vpi", Coalesce("in_vci", Value(-1)), "id")
_CANDIDATE = ("id", "switch_id", "switch__name", "kind", "in_port__key", "in_port__name", "out_port__name", "in_vpi",
              "in_vci", "out_vpi", "out_vci", "name")


def _pvc_candidates(request: HttpRequest, switch_id: int | None = None) -> QuerySet | list[tuple]:
    """Every present cross-connect (between present ports; of one switch, or all) as a light row,
    in table 2d's order (TABLE_2D_ORDER), filtered by what needs no trace: kind and switch in SQL
    (a queryset, which a page slices in SQL), the text in Python (a list: it matches the row as
    shown, VPI/VCI formatted)."""
    qs = CrossConnect.objects.filter(gone_at__isnull=True, in_port__gone_at__isnull=True,
                                     out_port__gone_at__isnull=True)
    if switch_id is not None:
        qs = qs.filter(switch_id=switch_id)
    f = {k: request.GET.get(k, "").strip() for k in ("kind", "switch", "q")}
    if f["kind"]:
        qs = qs.filter(kind=f["kind"])
    if f["switch"]:
        qs = qs.filter(switch__name=f["switch"])
    rows = qs.order_by(*TABLE_2D_ORDER).values_list(*_CANDIDATE)
    text = f["q"].lower()
    if not text:
        return rows
    return [r for r in rows if text in " ".join([r[11], r[5], r[6], r[2], f"{r[7]}/{r[8]}", f"{r[9]}/{r[10]}"]).lower()]


def _switch_names(candidates: QuerySet | list[tuple]) -> set[str]:
    if isinstance(candidates, list):
        return {r[2] for r in candidates}
    return set(candidates.order_by().values_list("switch__name", flat=True).distinct())


def pvcs(request: HttpRequest) -> HttpResponse:
    """Table 2d for the whole network, PVCS_PER_PAGE rows at a time: only the page's cross-connects
    are read and traced (around their switches), unless a filter needs every trace (status, host)."""
    candidates = _pvc_candidates(request)
    needs_traces = bool(request.GET.get("status", "").strip() or request.GET.get("host", "").strip())
    if needs_traces:
        every = list(candidates)
        data = q.load_network(around={r[1] for r in every})
        rows, f = _filter_pvcs(_pvc_rows(data, [r[0] for r in every]), request)
        page = page_of(request, rows, PVCS_PER_PAGE)
        shown = list(page.object_list)
    else:
        page = page_of(request, candidates, PVCS_PER_PAGE)
        listed = list(page.object_list)
        data = q.load_network(around={r[1] for r in listed})
        shown, f = _filter_pvcs(_pvc_rows(data, [r[0] for r in listed]), request)
    times = sorted((lt.time for lt in data.latest.values()), reverse=True)
    return render(request, "status/pvcs.html", {
        "switch": None, "rows": shown, "page": page, "f": f, "now": timezone.now(), "show_switch": True,
        "switch_names": sorted(_switch_names(candidates) | ({f["switch"]} if f["switch"] else set())),
        "newest": times[0] if times else None, "oldest": times[-1] if times else None,
        "latest_by_switch": {data.net.switches[k].name: v for k, v in data.latest.items()}})


def _pvc_rows(data: q.NetworkData, xc_ids: list[int]) -> list[dict]:
    """Table 2d's rows of these cross-connects (in this order), each traced end to end."""
    by_id = {x.id: x for x in data.net.xcs}
    return [pvc_row(data, by_id[i], data.net.trace_xc(by_id[i])) for i in xc_ids if i in by_id]


# --------------------------------------------------------------------------- VCCs of a switch (figure 4)


def switch_vccs(request: HttpRequest, name: str) -> HttpResponse:
    switch = switch_or_404(request, name)
    if isinstance(switch, HttpResponse):
        return switch
    now = timezone.now()
    data = q.load_network(around=[switch.id])
    net = data.net
    vcs = list(VirtualChannel.objects.filter(switch=switch, gone_at__isnull=True).select_related("port"))
    vcs.sort(key=lambda v: (port_sort_key(v.port), v.vpi, v.vci))
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
    rows.sort(key=lambda r: (port_sort_key(r["vc"].port), r["vc"].vpi, r["vc"].vci))
    state = request.GET.get("status", "")
    shown = [r for r in rows if not state or r["conn"] == state]
    latest = data.latest.get(switch.id)
    return render(request, "status/vccs.html", {
        "switch": switch, "rows": shown, "counts": counts, "total": len(rows), "status": state, "latest": latest,
        "now": now, "tab": "vccs", "stale": stale(latest, switch, now), "h": getattr(switch, "health", None),
        "summary": summary_for(switch, latest, now),
        "health": health_of(switch, getattr(switch, "health", None), now)})


def vccs_form(request: HttpRequest) -> HttpResponse:
    """Figure 4's form: 'Please enter the name of the switch'."""
    name = request.GET.get("switch", "").strip()
    if name:
        switch = switch_or_404(request, name)
        if isinstance(switch, HttpResponse):
            return switch
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
    # Rates only of the switches the traces cross: the trace needs none, and the whole network's
    # would cost most of the page at 200 switches (docs/benchmarks.md, figure 10b).
    everyone = pt.Network([], [], [pm.HostInfo(*row) for row in Host.objects.values_list("id", "name", "address")],
                          [], [])
    context["hosts"] = sorted((h.name, h.address) for h in everyone.hosts.values())
    missing = []
    src = everyone.find_host(src_text)
    dst = everyone.find_host(dst_text)
    net = everyone
    for label, text, h in (("source", src_text, src), ("destination", dst_text, dst)):
        if h is None:
            names = sorted(x.name for x in net.hosts.values())
            missing.append({"label": label, "text": text, "close": suggestions(text, names) if text else []})
    if src is None or dst is None:      # the missing ones are listed
        context["missing"] = missing
        return render(request, "status/path.html", context, status=404 if any(m["text"] for m in missing) else 200)
    # only the part of the network the two hosts' traces can reach (queries.load_for_hosts)
    data = q.load_for_hosts([src, dst], rates=False)
    net = data.net
    conn = net.connection(src, dst)
    crossed = {h.switch.id for t in (conn.forward + conn.reverse + conn.from_source[:30] + conn.into_destination[:30])
               for h in t.hops}
    q.add_rates(data, crossed)
    conn = net.connection(src, dst)
    context.update(_advice(request, conn))
    context.update(_hop_accounting(request, data, conn))
    shown = conn.forward + conn.reverse + (
        conn.from_source[:30] + conn.into_destination[:30] if not conn.forward else [])
    context.update(conn=conn, src_host=src, dst_host=dst,
                   measured=sorted({h.rate.at for t in shown for h in t.hops if h.rate and h.rate.at}),
                   forward=[trace_view(data, t) for t in conn.forward],
                   reverse=[trace_view(data, t) for t in conn.reverse],
                   from_src=[trace_view(data, t) for t in conn.from_source[:30]],
                   from_src_more=max(0, len(conn.from_source) - 30),
                   into_dst=[trace_view(data, t) for t in conn.into_destination[:30]],
                   src_atts=[(net.switches[p.switch_id].name, p, nb) for p, nb in conn.source_attachments],
                   dst_atts=[(net.switches[p.switch_id].name, p, nb) for p, nb in conn.destination_attachments])
    return render(request, "status/path.html", context)


def _advice(request: HttpRequest, conn) -> dict:
    """TCP window advice for the first path from the source to the destination (windowadvice.py)."""
    try:
        rtt_ms = windowadvice.parse_rtt_ms(request.GET.get("rtt_ms", ""))
    except ValueError as exc:
        return {"rtt_error": str(exc), "rtt_text": request.GET.get("rtt_ms", "")}
    if not conn.forward:
        return {"rtt_text": request.GET.get("rtt_ms", "")}
    trace = conn.forward[0]
    port_ids = {p.id for h in trace.hops for p in (h.in_port, h.out_port)}
    port_cells, checks = q.window_inputs(port_ids, [conn.source, conn.destination])
    return {"advice": windowadvice.window_advice(trace, port_cells, rtt_ms, checks),
            "rtt_text": request.GET.get("rtt_ms", "")}


def _hop_accounting(request: HttpRequest, data, conn) -> dict:
    """Cells at each hop of the first forward path over a window (default: the last hour)."""
    now = timezone.now()
    try:
        lo = parse_iso(request.GET["acc_start"]) if request.GET.get("acc_start") else now - timedelta(hours=1)
        hi = parse_iso(request.GET["acc_end"]) if request.GET.get("acc_end") else now
        if not lo < hi:
            raise ValueError("the window must end after it starts")
        if not conn.forward:
            return {}
        trace = conn.forward[0]
        hops = hopcount.account(data.net, q.series_index({h.switch.id for h in trace.hops}), trace, lo, hi)
    except ValueError as exc:
        return {"acc_error": str(exc)}
    return {"acc_hops": hops, "acc_start": lo, "acc_end": hi}


def trace_vc(request: HttpRequest) -> HttpResponse:
    """One connection through a given switch/port/VPI/VCI, end to end."""
    sw_name = request.GET.get("switch", "").strip()
    port_name = request.GET.get("port", "").strip()
    if not sw_name or not port_name:
        return HttpResponseRedirect(reverse("status:path"))
    switch = switch_or_404(request, sw_name)
    if isinstance(switch, HttpResponse):
        return switch
    p = port_or_404(request, switch, port_name)
    if isinstance(p, HttpResponse):
        return p
    try:
        vpi = int(request.GET.get("vpi", ""))
        vci = int(request.GET["vci"]) if request.GET.get("vci", "") != "" else None
    except ValueError:
        return render(request, "status/trace.html", {"error": "VPI and VCI must be numbers", "switch": switch,
                                                     "port": p}, status=400)
    data = q.load_network(around=[switch.id])
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
    context["trace"] = trace_view(data, trace)
    context["measured"] = sorted({h.rate.at for h in trace.hops if h.rate and h.rate.at})
    return render(request, "status/trace.html", context)
