"""Bulk exports from the web and the API: the form (/exports/new), and /exports/api/bulk, which streams a
small export at once (GET, at most CELLAR_CSV_SYNC_MAX_CELLS rows), offers a larger one as a background
job (409) and creates the job (POST). The query grammar is collector/exports/bulkjobs.py's; a viewer
may export whatever they may read (the whole archive)."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, QueryDict, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from collector.exports import bulkfiles, bulkjobs
from collector.groups.models import Group
from collector.inventory.models import Switch
from collector.reader import resolution
from collector.reader.bulk import BulkPlan
from collector.reader.selection import BadRequest
from collector.reader.timelimits import TooSlow, is_timeout, limit_ms
from webapp.timelimits import too_slow_response

FORMAT_LABEL = {"csv": "CSV, a row per series and time", "csv-wide": "CSV, a column per series",
                "parquet": "Parquet (typed, for pandas, polars, Spark)"}


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _bad(request: HttpRequest, message: str) -> HttpResponse:
    """400: the form again with the message (a form's POST), else JSON."""
    if request.method == "POST" and "scope" in request.POST and not _wants_json(request):
        return render(request, "exports/new.html", _form_context(request, message), status=400)
    return JsonResponse({"error": message}, status=400)


def _form_context(request: HttpRequest, error: str = "") -> dict:
    q = request.POST if request.method == "POST" else request.GET
    return {"error": error, "switches": list(Switch.objects.order_by("name").values_list("name", flat=True)),
            "groups": list(Group.objects.order_by("name").values_list("id", "name")),
            "resolutions": [(r, resolution.RES_LABEL[r]) for r in resolution.CHOICES if r != "auto"],
            "formats": list(FORMAT_LABEL.items()),
            "form": {"scope": q.get("scope", "all"), "switch": q.getlist("switch"), "g": q.get("g", ""),
                     "s": q.get("s", ""), "start": q.get("start", "24h"), "end": q.get("end", ""),
                     "res": q.get("res", "raw"), "format": q.get("format", "csv")},
            "inline_rows": settings.CELLAR_CSV_SYNC_MAX_CELLS,
            "max_series": settings.CELLAR_BULK_EXPORT_MAX_SERIES, "max_rows": settings.CELLAR_BULK_EXPORT_MAX_ROWS}


@require_GET
def new(request: HttpRequest) -> HttpResponse:
    """The form: scope, window, resolution, format; it starts a background job."""
    return render(request, "exports/new.html", _form_context(request))


def _form_scope(request: HttpRequest) -> QueryDict:
    """The form names its scope with a radio button; the API gives the scope's own parameter."""
    q = request.POST.copy()
    kind = q.get("scope", "")
    for name, key in (("switch", "switch"), ("group", "g"), ("series", "s"), ("all", "all")):
        if kind and name != kind:
            q.pop(key, None)
    if kind == "all":
        q["all"] = "1"
    return q


@require_http_methods(["GET", "POST"])
def bulk(request: HttpRequest) -> HttpResponseBase:
    """GET: the export streamed when small enough, else 409 offering a job; POST: the job (303 to its page,
    or 202 with its URLs in JSON)."""
    form = request.method == "POST" and "scope" in request.POST
    # the form's fields; an API client's POST body, or the query string (POST of the same URL)
    params = _form_scope(request) if form else request.POST if request.method == "POST" and request.POST \
        else request.GET
    try:
        req = bulkjobs.parse(params, timezone.now())
        plan = bulkjobs.prepare(req)
    except BadRequest as exc:
        return _bad(request, str(exc))
    if request.method == "POST":
        return _start(request, req, plan)
    rows, limit = plan.expected_rows, settings.CELLAR_CSV_SYNC_MAX_CELLS
    if rows > limit:
        message = (f"this export has about {rows:,} rows ({len(plan.series):,} series, "
                   f"{resolution.RES_LABEL[plan.res]}); a direct download holds at most {limit:,} "
                   "(CELLAR_CSV_SYNC_MAX_CELLS): it runs as a background export (POST this same URL)")
        return JsonResponse({"error": message, "rows": rows, "limit": limit,
                             "create": {"method": "POST", "url": request.get_full_path()}}, status=409)
    return _stream(request, req, plan)


def _stream(request: HttpRequest, req: bulkjobs.BulkRequest, plan: BulkPlan) -> HttpResponseBase:
    ms = limit_ms("exports.bulk")
    chunks = bulkfiles.stream(plan, req.fmt, timeout_ms=ms)
    try:
        first = next(chunks, b"")       # the first batch before answering: a timeout is then a 503
    except Exception as exc:
        if is_timeout(exc):
            return too_slow_response(request, TooSlow("exports.bulk", ms), "text")
        raise

    def body():
        yield first
        yield from chunks
    response = StreamingHttpResponse(body(), content_type=bulkfiles.CONTENT_TYPE[req.fmt])
    response["Content-Disposition"] = f'attachment; filename="{bulkjobs.filename(req, plan)}"'
    return response


def _start(request: HttpRequest, req: bulkjobs.BulkRequest, plan: BulkPlan) -> HttpResponse:
    session_key = None
    if not request.user.is_authenticated:
        request.session["exports_owner"] = True     # an anonymous owner is its session
        request.session.save()
        session_key = request.session.session_key
    job = bulkjobs.create(req, plan, owner_id=request.user.pk if request.user.is_authenticated else None,
                          session_key=session_key)
    page = reverse("exports:job", args=[job.id])
    if _wants_json(request) or "scope" not in request.POST:
        return JsonResponse({"id": job.id, "status": job.status, "page_url": page, "expected_rows": job.expected_rows,
                             "json_url": reverse("exports:job-json", args=[job.id]),
                             "download_url": reverse("exports:download", args=[job.id])}, status=202)
    return HttpResponseRedirect(page, status=303)
