"""The analysis pages and API. Views are short: parse (params), read (source, for the preview),
create or find the job (collector/exports/analyses), show it (state, figures, results CSV).

  GET  /analysis/                      the form, with what the selection will read (no analysis)
  POST /analysis/run                   start an analysis (form) -> 303 to its page
  POST /analysis/api/jobs              start one (API, token or session) -> 202 (200 when reused)
  GET  /analysis/jobs/<id>/            its progress, then its numbers and figures
  GET  /analysis/api/jobs/<id>         JSON: state, result, figures (figures=0 leaves them out)
  GET  /analysis/jobs/<id>/results.csv one row per statistic and estimate
"""
from __future__ import annotations

from datetime import timedelta

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from collector.analysis import jobs, run, selection, source
from collector.analysis.models import AnalysisJob
from collector.analysis.selection import AnalysisRequest, BadRequest
from collector.audit import owners
from collector.external.models import ExternalSeries
from collector.reader import catalog, resolution
from collector.reader import selection as plot_params
from collector.reader.units import UnitError
from webapp.analysis import figures, results

SETTLE = timedelta(hours=6)      # after this, a window's rollups are final (rollup.process_late)
S = AnalysisJob.Status


def _bad(request: HttpRequest, message: str, as_json: bool) -> HttpResponse:
    if as_json:
        return JsonResponse({"error": message}, status=400)
    return render(request, "analysis/form.html", _form_context(request, None, message), status=400)


def _form_context(request: HttpRequest, req: AnalysisRequest | None, error: str = "") -> dict:
    preview = None
    if req is not None and not error:
        try:
            preview = _preview(req)
        except (BadRequest, UnitError) as exc:
            error = str(exc)
    q = request.GET.copy()
    if not q.get("range"):
        q["range"] = "custom" if q.get("start") or q.get("end") else ("all" if q.get("x") else "24h")
    return {"q": q, "req": req, "error": error, "preview": preview, "picked": _picked(request),
            "externals": ExternalSeries.objects.order_by("name")[:500],
            "resolutions": [("auto", f"auto (at most {selection.MAX_SAMPLES:,} points)"),
                            *((r, resolution.RES_LABEL[r]) for r in resolution.RESOLUTIONS)],
            "ranges": resolution.RANGE_CHOICES, "budget": f"{selection.MAX_SAMPLES:,}"}


def _picked(request: HttpRequest) -> dict:
    """The chosen series by name, for the form's picker: {"s": [{id, label}], "with": {...} | None}.
    Ids nobody knows are left out here (the preview says which are unknown)."""
    def named(ids: list[int]) -> list[dict]:
        found = {s.id: s for s in catalog.load_series_known(ids)}
        return [{"id": i, "label": found[i].label} for i in ids if i in found]

    try:
        ids = list(plot_params.parse_ids(request.GET))
    except BadRequest:
        ids = []
    second = None
    kind, _, ident = (request.GET.get("with") or "").partition(":")
    if ident.strip().isdigit():
        if kind == "s":
            second = next(({"kind": "s", **x} for x in named([int(ident)])), None)
        elif kind == "x":
            xs = ExternalSeries.objects.filter(id=int(ident)).first()
            second = {"kind": "x", "id": xs.id, "label": f"{xs.name} (external)"} if xs else None
    return {"s": named(ids), "with": second}


def _preview(req: AnalysisRequest) -> dict:
    """What the analysis will read: the series, the window and the resolution (no data read)."""
    if req.external_id is not None:
        s = source.external_series(req.external_id, *source.window(req.plot))
        return {"labels": [s.label], "start": s.start, "end": s.end, "resolution": s.res_label,
                "points": f"{s.counts['points']:,}"}
    p = source.plan(req.plot, summed=len(req.plot.series_ids) > 1)
    return {"labels": [s.label for s in p.series], "start": p.start, "end": p.end,
            "resolution": resolution.RES_LABEL[p.res], "points": f"{p.expected_points:,}"}


@require_GET
def page(request: HttpRequest) -> HttpResponse:
    if not request.GET:
        return render(request, "analysis/form.html", _form_context(request, None))
    try:
        req = selection.parse(request.GET)
    except BadRequest as exc:
        return _bad(request, str(exc), False)
    return render(request, "analysis/form.html", _form_context(request, req))


def _start(request: HttpRequest) -> tuple[AnalysisJob | None, bool, str, int]:
    """(job, reused, error, status) for the request's parameters (POST body, else query string)."""
    data = request.POST if request.POST else request.GET
    try:
        req = run.absolute(selection.parse(data))
    except (BadRequest, UnitError) as exc:
        return None, False, str(exc), 400
    query = req.query()
    if req.plot.end is not None:
        found = jobs.reusable(query, req.plot.end + SETTLE)
        if found is not None and _visible(request, found):
            return found, True, "", 200
    session_key = None
    if not request.user.is_authenticated:
        request.session["analysis_owner"] = True
        request.session.save()
        session_key = request.session.session_key
    try:
        job = jobs.create(owner_id=request.user.pk if request.user.is_authenticated else None,
                          session_key=session_key, selection=query)
    except jobs.TooMany as exc:
        return None, False, str(exc), 429
    return job, False, "", 202


@require_POST
def start_form(request: HttpRequest) -> HttpResponse:
    job, _, error, status = _start(request)
    if job is None:
        return render(request, "analysis/form.html", _form_context(request, None, error), status=status)
    return HttpResponseRedirect(reverse("analysis:job", args=[job.id]), status=303)


@require_POST
def start_api(request: HttpRequest) -> HttpResponse:
    job, _, error, status = _start(request)
    if job is None:
        response = JsonResponse({"error": error}, status=status)
        if status == 429:
            response["Retry-After"] = "10"
        return response
    return JsonResponse(state(job), status=status)


def _visible(request: HttpRequest, job: AnalysisJob) -> bool:
    user = request.user
    return owners.visible_to(job, user_id=user.pk if user.is_authenticated else None,
                           is_staff=user.is_staff, session_key=request.session.session_key)


def _job(request: HttpRequest, job_id: int) -> AnalysisJob | HttpResponse:
    job = AnalysisJob.objects.filter(pk=job_id).first()
    if job is None:
        raise Http404(f"no analysis {job_id}")
    if not _visible(request, job):
        return HttpResponse("this analysis belongs to another user (or another session); only its owner or staff "
                            "may see it\n", status=403, content_type="text/plain; charset=utf-8")
    return job


def state(job: AnalysisJob) -> dict:
    return {"id": job.id, "status": job.status, "percent": round(100 * job.fraction, 1), "step": job.step,
            "error": job.error, "selection": job.selection,
            "page_url": reverse("analysis:job", args=[job.id]),
            "json_url": reverse("analysis:job-json", args=[job.id]),
            "csv_url": reverse("analysis:job-csv", args=[job.id]) if job.status == S.DONE else None}


@require_GET
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(request, job_id)
    if isinstance(job, HttpResponse):
        return job
    r = job.result if job.status == S.DONE else None
    return render(request, "analysis/job.html", {"job": job, "state": state(job), "r": r,
                                                 "rows": results.rows(r) if r else []})


@require_GET
def job_json(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(request, job_id)
    if isinstance(job, HttpResponse):
        return JsonResponse({"error": job.content.decode().strip()}, status=job.status_code)
    body = state(job)
    if job.status == S.DONE and job.result is not None:
        body["result"] = job.result
        if request.GET.get("figures", "1") != "0":
            body["figures"] = figures.all_figures(job.result, getattr(request, "viewer_zone", None))
    return JsonResponse(body)


@require_GET
def job_csv(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(request, job_id)
    if isinstance(job, HttpResponse):
        return job
    if job.status != S.DONE or job.result is None:
        return HttpResponse(f"analysis {job.id} is {job.status}: no results yet\n", status=409,
                            content_type="text/plain; charset=utf-8")
    response = HttpResponse(results.csv_text(job.result), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="cellar-analysis-{job.id}.csv"'
    return response
