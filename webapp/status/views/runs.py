"""Experiment runs: the list (and, for operators, the form that creates one), a run's page with
what was counted on its path and series, that as CSV, and the JSON API. The fields every way in
takes: collector/runs/spec.py; the counting: webapp/status/runaccount.py."""
from __future__ import annotations

import json
from datetime import timedelta

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from collector.core.isotime import iso
from collector.runs import edit, spec
from collector.runs.models import ExperimentRun
from webapp.access import roles
from webapp.status import runaccount


def _list_page(request: HttpRequest, status: int = 200, **extra) -> HttpResponse:
    rows = list(ExperimentRun.objects.select_related("src_host", "dst_host").order_by("-start")[:500])
    return render(request, "status/runs.html", {"runs": rows, "now": timezone.now(), "form": {},
                                                "fields": {f.name: f for f in spec.FIELDS}, **extra}, status=status)


def run_list(request: HttpRequest) -> HttpResponse:
    return _list_page(request)


@roles.require(roles.CREATE_RUNS, "creating an experiment run needs the operator role")
@require_POST
def run_create(request: HttpRequest) -> HttpResponse:
    values = {k: request.POST.get(k, "") for k in spec.NAMES}
    try:
        report_file = request.FILES.get("report_file")
        if report_file:
            raw = report_file.read(edit.MAX_REPORT_BYTES + 1)
            values["report"] = raw.decode("utf-8", "replace")
        run = edit.create(spec.from_values(values, request.user.get_username()), timezone.now())
    except edit.RunError as exc:
        return _list_page(request, 400, error=str(exc), form=values)
    return HttpResponseRedirect(reverse("status:run", args=[run.id]))


def _run(run_id: int) -> ExperimentRun | None:
    return ExperimentRun.objects.select_related("src_host", "dst_host", "channel__port__switch").filter(
        id=run_id).first()


def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    if run is None:
        raise Http404(f"no experiment run {run_id}")
    try:
        acc = runaccount.account(run)
    except ValueError as exc:            # a window longer than raw samples are read for at once
        return render(request, "status/run.html", {"run": run, "error": str(exc), "end": run.end or timezone.now(),
                                                   "now": timezone.now()}, status=400)
    ids = [s for h in acc.hops for s in (h.cells_in.series_id, h.cells_out.series_id) if s]
    ids += [c.series.id for c in acc.chosen]
    pad = max((acc.end - run.start) / 4, timedelta(minutes=2))
    plot = (f"/traffic/?s={','.join(map(str, dict.fromkeys(ids)))}&start={iso(run.start - pad)}"
            f"&end={iso(acc.end + pad)}") if ids else ""
    return render(request, "status/run.html", {"run": run, "acc": acc, "end": acc.end, "plot": plot,
                                               "seconds": acc.seconds, "now": timezone.now()})


def run_csv(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    if run is None:
        raise Http404(f"no experiment run {run_id}")
    try:
        acc = runaccount.account(run)
    except ValueError as exc:
        return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
    response = HttpResponse(runaccount.csv_text(run, acc), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="cellar-run-{run.id}.csv"'
    return response


def _report_text(report: object) -> str:
    """The API's "report": iperf3's JSON or a summary as an object, or any report as text."""
    if not report:
        return ""
    return report if isinstance(report, str) else json.dumps(report)


def runs_api(request: HttpRequest) -> HttpResponse:
    """GET: the runs (newest first, at most 500; each without its report, which /runs/api/<id> gives).
    POST (operator, session or API token): create one from JSON with the fields of spec.FIELDS;
    201 with the run as /runs/api/<id> describes it, 400 with {"error": ...} when it is refused."""
    if request.method == "POST":
        if not request.user.has_perm(roles.CREATE_RUNS):
            return roles.denied(request, "creating an experiment run needs the operator role")
        try:
            body = json.loads(request.body or b"{}")
            if not isinstance(body, dict):
                raise edit.RunError("the body must be a JSON object of run fields")
            values = {**body, "report": _report_text(body.get("report"))}
            run = edit.create(spec.from_values(values, request.user.get_username()), timezone.now())
        except (edit.RunError, ValueError) as exc:
            return JsonResponse({"error": str(exc)}, status=400)
        return JsonResponse(spec.as_json(run), status=201)
    if request.method != "GET":
        return JsonResponse({"error": "GET or POST"}, status=405)
    rows = ExperimentRun.objects.select_related("src_host", "dst_host", "channel__port__switch").prefetch_related(
        *spec.SERIES_RELATED).order_by("-start")[:500]
    return JsonResponse({"runs": [spec.as_json(r, with_report=False) for r in rows]})


def run_api(request: HttpRequest, run_id: int) -> HttpResponse:
    """One run: its fields and what the page counts (hops, series), as JSON."""
    run = _run(run_id)
    if run is None:
        return JsonResponse({"error": f"no experiment run {run_id}"}, status=404)
    try:
        acc = runaccount.account(run)
    except ValueError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return JsonResponse(runaccount.as_json(run, acc))
