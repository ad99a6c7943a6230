"""Experiment runs: the list (and, for logged-in users, the form that creates one), a run's page
with cell accounting along its VCC path, and that table as CSV."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from analysis.accounting import expected_cells, formula
from collector.archive.samples import window_samples
from collector.core.isotime import iso, parse_optional
from collector.studies import runs
from collector.studies.models import ExperimentRun
from webapp.access import roles
from webapp.status import hopcount
from webapp.status import queries as q

FORM_FIELDS = ("name", "start", "end", "description", "src", "dst", "pvc", "bytes_sent", "messages",
               "message_size", "overhead", "report")


def _list_page(request: HttpRequest, status: int = 200, **extra) -> HttpResponse:
    rows = list(ExperimentRun.objects.select_related("src_host", "dst_host").order_by("-start")[:500])
    return render(request, "status/runs.html", {"runs": rows, "now": timezone.now(), "form": {}, **extra},
                  status=status)


def run_list(request: HttpRequest) -> HttpResponse:
    return _list_page(request)


def _int(text: str, label: str) -> int | None:
    text = (text or "").strip().replace(",", "")
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise runs.RunError(f"{label} {text!r} is not a whole number") from None


def _time(text: str, label: str):
    try:
        return parse_optional(label, text)
    except ValueError as exc:
        raise runs.RunError(str(exc)) from None


@roles.require(roles.CREATE_RUNS, "creating an experiment run needs the operator role")
@require_POST
def run_create(request: HttpRequest) -> HttpResponse:
    p = request.POST
    try:
        report = p.get("report", "")
        if request.FILES.get("report_file"):
            report = request.FILES["report_file"].read(runs.MAX_REPORT_BYTES + 1).decode("utf-8", "replace")
        spec = runs.RunSpec(p.get("name", ""), _time(p.get("start", ""), "start"), _time(p.get("end", ""), "end"),
                            p.get("description", ""), p.get("src", "").strip(), p.get("dst", "").strip(),
                            p.get("pvc", "").strip(), _int(p.get("bytes_sent", ""), "bytes sent"),
                            _int(p.get("messages", ""), "messages"), _int(p.get("message_size", ""), "message size"),
                            _int(p.get("overhead", ""), "overhead") or 0, report, request.user.get_username())
        run = runs.create(spec, timezone.now())
    except runs.RunError as exc:
        return _list_page(request, 400, error=str(exc), form={k: p.get(k, "") for k in FORM_FIELDS})
    return HttpResponseRedirect(reverse("status:run", args=[run.id]))


@dataclass
class Accounting:
    end: datetime                 # the run's end, or now while it goes on
    expected: int | None          # expected minimum cells, when the bytes sent are known
    conn: object | None           # pathmodel.Connection between the run's hosts
    hops: list[hopcount.HopCount]
    chosen: list[tuple]           # (series, hopcount.Side) of each series the run names


def _accounting(run: ExperimentRun) -> Accounting:
    """Cells of the run's window: per hop along the first forward path between its hosts (or the
    path of its PVC), and for each series it names. ValueError when the window is longer than raw
    samples are read for at once."""
    end = run.end or timezone.now()
    expected = (expected_cells(run.bytes_sent, run.message_size, run.overhead)
                if run.bytes_sent is not None else None)
    conn, trace, hops = None, None, []
    if (run.src_host_id and run.dst_host_id) or run.channel_id:
        data = q.load_network(rates=False)
        net = data.net
        if run.src_host_id and run.dst_host_id:
            src, dst = net.hosts.get(run.src_host_id), net.hosts.get(run.dst_host_id)
            conn = net.connection(src, dst) if src and dst else None
            trace = conn.forward[0] if conn and conn.forward else None
        elif run.channel is not None:
            port = net.ports.get(run.channel.port_id)
            trace = net.trace_endpoint(port, run.channel.vpi, run.channel.vci) if port else None
        if trace is not None:
            idx = q.series_index({h.switch.id for h in trace.hops})
            hops = hopcount.account(net, idx, trace, run.start, end, expected)
    chosen = list(run.series.select_related("switch", "port"))
    samples = window_samples([s.id for s in chosen], run.start, end) if chosen else {}
    counts = [(s, hopcount.side(s.id, samples, run.start, end, expected if s.unit == "cells" else None))
              for s in chosen]
    return Accounting(end, expected, conn, hops, counts)


def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = ExperimentRun.objects.select_related("src_host", "dst_host", "channel__port__switch").filter(
        id=run_id).first()
    if run is None:
        raise Http404(f"no experiment run {run_id}")
    try:
        acc = _accounting(run)
    except ValueError as exc:            # a window longer than raw samples are read for at once
        return render(request, "status/run.html", {"run": run, "error": str(exc), "end": run.end or timezone.now(),
                                                   "now": timezone.now()}, status=400)
    end, hops, chosen = acc.end, acc.hops, acc.chosen
    series = [s for h in hops for s in (h.cells_in.series_id, h.cells_out.series_id) if s] + [s.id for s, _ in chosen]
    pad = max((end - run.start) / 4, timedelta(minutes=2))
    plot = (f"/traffic/?s={','.join(map(str, dict.fromkeys(series)))}&start={iso(run.start - pad)}"
            f"&end={iso(end + pad)}") if series else ""
    return render(request, "status/run.html", {
        "run": run, "end": end, "expected": acc.expected, "conn": acc.conn, "hops": hops, "plot": plot,
        "chosen": chosen,
        "formula": formula(run.message_size, run.overhead), "seconds": (end - run.start).total_seconds(),
        "now": timezone.now()})


def run_csv(request: HttpRequest, run_id: int) -> HttpResponse:
    run = ExperimentRun.objects.filter(id=run_id).first()
    if run is None:
        raise Http404(f"no experiment run {run_id}")
    try:
        acc = _accounting(run)
    except ValueError as exc:
        return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
    end, expected, hops = acc.end, acc.expected, acc.hops
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    buf.write(f"# run {run.name}: {iso(run.start)} - {iso(end)}; expected minimum cells: "
              f"{expected if expected is not None else 'unknown'} ({formula(run.message_size, run.overhead)})\n")
    w.writerow(["hop", "switch", "side", "port", "vpi", "vci", "cells_low", "cells_estimate", "cells_high",
                "avg_line_mbps", "avg_payload_mbps", "peak_line_mbps", "verdict", "link"])
    for h in hops:
        for side, s, port, vpi, vci in (("in", h.cells_in, h.hop.in_port, h.hop.in_vpi, h.hop.in_vci),
                                        ("out", h.cells_out, h.hop.out_port, h.hop.out_vpi, h.hop.out_vci)):
            c = s.count
            w.writerow([h.number, h.hop.switch.name, side, port.name, vpi, "" if vci is None else vci,
                        c.low if c else "", round(c.estimate) if c else "", "" if not c or c.high is None else c.high,
                        _r(s.avg_line_mbps), _r(s.avg_payload_mbps), _r(s.peak_line_mbps),
                        s.verdict.word if s.verdict else "", h.link_note if side == "in" else ""])
    response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="cellar-run-{run.id}.csv"'
    return response


def _r(v: float | None) -> str:
    return "" if v is None else f"{v:.4f}"


def _run_json(run: ExperimentRun) -> dict:
    return {"id": run.id, "name": run.name, "description": run.description, "start": iso(run.start),
            "end": iso(run.end) if run.end else None, "src": run.src_host.name if run.src_host else None,
            "dst": run.dst_host.name if run.dst_host else None, "bytes_sent": run.bytes_sent,
            "message_size": run.message_size, "overhead": run.overhead, "url": f"/runs/{run.id}/"}


def _side_json(s: hopcount.Side) -> dict | None:
    c = s.count
    if c is None:
        return None
    return {"series_id": s.series_id, "low": c.low, "estimate": c.estimate, "high": c.high,
            "avg_line_mbps": s.avg_line_mbps, "avg_payload_mbps": s.avg_payload_mbps,
            "peak_line_mbps": s.peak_line_mbps, "verdict": s.verdict.word if s.verdict else None,
            "verdict_text": s.verdict.text if s.verdict else None}


def runs_api(request: HttpRequest) -> HttpResponse:
    """GET: the runs (newest first, at most 500). POST (operator, session or API token): create one from JSON with the
    fields of the form (name, start, end, src, dst, pvc, bytes_sent, messages, message_size,
    overhead, description, report); 400 with {"error": ...} when it is refused."""
    if request.method == "POST":
        if not request.user.has_perm(roles.CREATE_RUNS):
            return roles.denied(request, "creating an experiment run needs the operator role")
        try:
            body = json.loads(request.body or b"{}")
            spec = runs.RunSpec(str(body.get("name", "")), _time(body.get("start", ""), "start"),
                                _time(body.get("end", ""), "end"), str(body.get("description", "")),
                                str(body.get("src", "")), str(body.get("dst", "")), str(body.get("pvc", "")),
                                _int(str(body.get("bytes_sent", "") or ""), "bytes sent"),
                                _int(str(body.get("messages", "") or ""), "messages"),
                                _int(str(body.get("message_size", "") or ""), "message size"),
                                _int(str(body.get("overhead", "") or ""), "overhead") or 0,
                                _report_text(body.get("report")),
                                request.user.get_username())
            run = runs.create(spec, timezone.now())
        except (runs.RunError, ValueError) as exc:
            return JsonResponse({"error": str(exc)}, status=400)
        return JsonResponse(_run_json(run), status=201)
    if request.method != "GET":
        return JsonResponse({"error": "GET or POST"}, status=405)
    rows = ExperimentRun.objects.select_related("src_host", "dst_host").order_by("-start")[:500]
    return JsonResponse({"runs": [_run_json(r) for r in rows]})


def _report_text(report) -> str:
    """The API's "report": iperf3's JSON or a summary as an object, or any report as text."""
    if not report:
        return ""
    return report if isinstance(report, str) else json.dumps(report)


def run_api(request: HttpRequest, run_id: int) -> HttpResponse:
    """One run with its per-hop cell accounting (the run page's table as JSON)."""
    run = ExperimentRun.objects.select_related("src_host", "dst_host").filter(id=run_id).first()
    if run is None:
        return JsonResponse({"error": f"no experiment run {run_id}"}, status=404)
    try:
        acc = _accounting(run)
    except ValueError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    end, expected, hops = acc.end, acc.expected, acc.hops
    return JsonResponse({**_run_json(run), "window_end": iso(end), "expected_cells": expected,
                         "formula": formula(run.message_size, run.overhead),
                         "hops": [{"number": h.number, "switch": h.hop.switch.name,
                                   "in": {"port": h.hop.in_port.name, "vpi": h.hop.in_vpi, "vci": h.hop.in_vci,
                                          "cells": _side_json(h.cells_in)},
                                   "out": {"port": h.hop.out_port.name, "vpi": h.hop.out_vpi, "vci": h.hop.out_vci,
                                           "cells": _side_json(h.cells_out)},
                                   "link": h.link_note} for h in hops]})
