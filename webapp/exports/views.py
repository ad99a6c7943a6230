"""Background export pages (a plot's CSV, a bulk export: bulkviews.py starts those): a job's progress
(HTML, polled as JSON by static/exports/job.js), its download, and the list of one's jobs. Only the
job's owner or a staff user sees one (403)."""
from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from collector.audit import owners
from collector.core.isotime import iso
from collector.exports import bulkjobs, jobs
from collector.exports.models import ExportJob

S = ExportJob.Status


def _visible(request: HttpRequest, job: ExportJob) -> bool:
    user = request.user
    return owners.visible_to(job, user_id=user.pk if user.is_authenticated else None, is_staff=user.is_staff,
                           session_key=request.session.session_key)


def _job(request: HttpRequest, job_id: int) -> ExportJob:
    job = ExportJob.objects.filter(pk=job_id).defer("copy_sql", "copy_params").first()
    if job is None:
        raise Http404(f"no export job {job_id}")
    return job


def _forbidden(as_json: bool) -> HttpResponse:
    message = "this export belongs to another user (or another session); only its owner or staff may see it"
    if as_json:
        return JsonResponse({"error": message}, status=403)
    return HttpResponse(message + "\n", status=403, content_type="text/plain; charset=utf-8")


def state(job: ExportJob) -> dict:
    """What the page shows and the JSON answers."""
    bulk = job.kind == ExportJob.Kind.BULK
    d = {"id": job.id, "status": job.status, "selection": job.selection, "filename": job.filename, "kind": job.kind,
         "expected_rows": job.expected_rows, "rows_written": job.rows_written, "bytes_written": job.bytes_written,
         "percent": round(100 * job.fraction, 1), "error": job.error, "created": iso(job.created),
         "started": iso(job.started) if job.started else None,
         "finished": iso(job.finished) if job.finished else None,
         "plot_url": f"{reverse('exports:new' if bulk else 'traffic:plot')}?{job.selection}",
         "download_url": None, "position": None, "title": _title(job)}
    if job.status == S.DONE:
        d["download_url"] = reverse("exports:download", args=[job.id])
    if job.status == S.QUEUED:
        d["position"] = jobs.position(job)
    d["text"] = describe(d)
    return d


def _title(job: ExportJob) -> str:
    if job.kind != ExportJob.Kind.BULK:
        return f"CSV export {job.id}"
    fmt = {"csv": "CSV", "csv-wide": "wide CSV", "parquet": "Parquet"}[job.spec["format"]]
    return f"{fmt} export {job.id}: {bulkjobs.from_spec(job.spec).scope.text}, {job.spec['res']}"


def describe(d: dict) -> str:
    if d["status"] == S.QUEUED:
        return f"queued, position {d['position']}"
    if d["status"] == S.RUNNING:
        return f"running: {d['rows_written']:,} of about {d['expected_rows']:,} rows ({d['percent']:g} %)"
    if d["status"] == S.DONE:
        return f"done: {d['rows_written']:,} rows, {d['bytes_written']:,} bytes"
    if d["status"] == S.FAILED:
        return f"failed: {d['error']}"
    return "expired: the file was deleted; start the export again"


@require_GET
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(request, job_id)
    if not _visible(request, job):
        return _forbidden(False)
    return render(request, "exports/job.html", {"job": state(job)})


@require_GET
def job_json(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(request, job_id)
    if not _visible(request, job):
        return _forbidden(True)
    return JsonResponse(state(job))


@require_GET
def download(request: HttpRequest, job_id: int) -> HttpResponseBase:
    job = _job(request, job_id)
    if not _visible(request, job):
        return _forbidden(False)
    if job.status != S.DONE or not job.path:
        return HttpResponse(f"export {job.id} has no file: {describe(state(job))}\n", status=409,
                            content_type="text/plain; charset=utf-8")
    try:
        f = open(job.path, "rb")
    except FileNotFoundError:
        raise Http404(f"the file of export {job.id} is gone") from None
    return FileResponse(f, as_attachment=True, filename=job.filename, content_type=bulkjobs.content_type(job))


@require_GET
def job_list(request: HttpRequest) -> HttpResponse:
    """The requester's jobs (all of them for staff), newest first."""
    found = ExportJob.objects.defer("copy_sql", "copy_params").order_by("-id")
    user = request.user
    if not user.is_staff:
        if user.is_authenticated:
            found = found.filter(owner_id=user.pk)
        else:
            found = found.filter(owner__isnull=True, session_hash=owners.session_hash(request.session.session_key))
            if not request.session.session_key:
                found = found.none()
    return render(request, "exports/list.html", {"jobs": [state(j) for j in found[:200]]})
