"""External series: the list, the upload form (operators), a series' page, its points as JSON and CSV.

The upload calls collector.external.imports.import_csv: its message is shown on the form when a
file is refused, and nothing is stored then."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from collector.core.isotime import iso, parse_iso, parse_optional
from collector.external import imports, read
from collector.external.models import MAX_INTERVAL_S, NAME_RULE, UNITS, ExternalSeries
from webapp.access import roles
from webapp.wallclock import wall_clock_texts

FORM_FIELDS = ("name", "unit", "interval", "stamp", "source", "description")
PRESETS = ((60, "1 minute"), (300, "5 minutes"), (900, "15 minutes"), (3600, "1 hour"), (86400, "1 day"))
TABLE_ROWS = 20
JSON_MAX_POINTS = 100_000
PLOT_MAX_POINTS = 5000


def _max_bytes() -> int:
    return settings.CELLAR_EXTERNAL_UPLOAD_MAX_MB * 1024 * 1024


def _series(series_id: int) -> ExternalSeries:
    series = ExternalSeries.objects.select_related("created_by").filter(id=series_id).first()
    if series is None:
        raise Http404(f"no external series {series_id}")
    return series


def series_list(request: HttpRequest) -> HttpResponse:
    rows = ExternalSeries.objects.order_by("name")
    return render(request, "external/list.html", {"rows": rows})


def _form_page(request: HttpRequest, form: dict, error: str = "", status: int = 200) -> HttpResponse:
    return render(request, "external/upload.html", {
        "form": form, "error": error, "units": UNITS, "presets": PRESETS,
        "max_mb": settings.CELLAR_EXTERNAL_UPLOAD_MAX_MB,
        "max_rows": imports.MAX_ROWS, "max_interval": MAX_INTERVAL_S, "name_rule": NAME_RULE,
        "time_forms": imports.TIME_FORMS, "value_forms": imports.VALUE_FORMS,
        "series": ExternalSeries.objects.order_by("name").values_list("name", flat=True)}, status=status)


@roles.require(roles.IMPORT_EXTERNAL, "importing an external series needs the operator role")
def upload(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST: import the file (multipart), then the series' page with the result."""
    if request.method == "GET":
        return _form_page(request, {"unit": "cells", "interval": "900", "stamp": "start"})
    if request.method != "POST":
        return HttpResponse("GET or POST\n", status=405, content_type="text/plain; charset=utf-8")
    limit = _max_bytes()
    # Refused before Django reads the body: the form's fields are then lost, the reason is shown.
    if int(request.META.get("CONTENT_LENGTH") or 0) > limit + 64 * 1024:
        return _form_page(request, {}, f"the upload is larger than the form takes "
                                       f"({settings.CELLAR_EXTERNAL_UPLOAD_MAX_MB} MB, CELLAR_EXTERNAL_UPLOAD_MAX_MB): "
                                       "use manage.py import_csv for larger files; nothing imported", 413)
    p = request.POST
    form: dict[str, Any] = {k: p.get(k, "").strip() for k in FORM_FIELDS}
    form["replace"] = bool(p.get("replace"))
    try:
        f = request.FILES.get("file")
        if f is None or not f.size:         # missing or empty (an uploaded file always has its size)
            raise imports.ImportRefused("choose a CSV file of time,value lines (it is empty or missing)")
        if f.size > limit:
            raise imports.ImportRefused(f"the file is {f.size / 1048576:.1f} MB; the form takes at most "
                                        f"{settings.CELLAR_EXTERNAL_UPLOAD_MAX_MB} MB (CELLAR_EXTERNAL_UPLOAD_MAX_MB): "
                                        "use manage.py import_csv for larger files")
        try:
            interval = int(form["interval"])
        except ValueError:
            raise imports.ImportRefused(f"interval {form['interval']!r}: a whole number of seconds, e.g. 900") from None
        spec = imports.SeriesSpec(form["name"], form["unit"], interval, form["stamp"] or "start", form["source"],
                                  form["description"])
        result = imports.import_csv(f.read(), spec, replace=form["replace"], user=request.user)
    except imports.ImportRefused as exc:
        return _form_page(request, form, str(exc), 400)
    messages.success(request, result.sentence)
    return HttpResponseRedirect(reverse("external:series", args=[result.series.id]))


def with_gaps(times: list[str], rates: list, bucket_s: int) -> tuple[list, list]:
    """A None between two points more than 1.5 buckets apart: Plotly draws a gap there, not a
    line across it. Judged on the UTC times, before they become wall-clock times (a clock change
    is no gap)."""
    out_t: list = []
    out_r: list = []
    prev = None
    for t, r in zip(times, rates, strict=True):
        now = parse_iso(t)
        if prev is not None and (now - prev).total_seconds() > bucket_s * 1.5:
            out_t.append(None)
            out_r.append(None)
        out_t.append(t)
        out_r.append(r)
        prev = now
    return out_t, out_r


def series_page(request: HttpRequest, series_id: int) -> HttpResponse:
    series = _series(series_id)
    zone = timezone.get_current_timezone()      # the viewer's (webapp/personal); JSON and CSV stay UTC
    first = read.iso_points(series.id, limit=TABLE_ROWS)
    head = [{"t": t, "value": v, "rate": v / series.interval_s}
            for t, (_, v) in zip(wall_clock_texts([t for t, _ in first], zone), first, strict=True)]
    times, rates, bucket = read.plot_points(series, PLOT_MAX_POINTS) if series.n_points else ([], [], 0)
    times, rates = with_gaps(times, rates, bucket)
    plot = {"t": wall_clock_texts(times, zone), "rate": rates, "unit": f"{series.unit}/s", "name": series.name,
            "bucket_s": bucket, "interval_s": series.interval_s, "zone": zone.key}
    return render(request, "external/series.html", {
        "series": series, "head": head, "plot": plot, "bucket": bucket, "table_rows": TABLE_ROWS,
        "can_import": request.user.has_perm(roles.IMPORT_EXTERNAL)})


def _series_json(series: ExternalSeries) -> dict:
    return {"id": series.id, "name": series.name, "unit": series.unit, "interval_s": series.interval_s,
            "stamp": series.stamp, "source": series.source, "description": series.description,
            "points": series.n_points, "first": iso(series.first) if series.first else None,
            "last": iso(series.last) if series.last else None,
            "values": f"{series.unit} counted per interval of {series.interval_s} s; t is the interval's start (UTC)",
            "csv": reverse("external:csv", args=[series.id])}


def series_json(request: HttpRequest, series_id: int) -> HttpResponse:
    """The series' attributes and its points [[t, value], ...] with start <= t < end (ISO 8601,
    optional); at most JSON_MAX_POINTS in one answer (400 beyond: narrow it, or take the CSV)."""
    series = ExternalSeries.objects.filter(id=series_id).first()
    if series is None:
        return JsonResponse({"error": f"no external series {series_id}"}, status=404)
    try:
        start = parse_optional("start", request.GET.get("start"))
        end = parse_optional("end", request.GET.get("end"))
    except ValueError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    rows = read.iso_points(series.id, start, end, JSON_MAX_POINTS + 1)
    if len(rows) > JSON_MAX_POINTS:
        return JsonResponse({"error": f"more than {JSON_MAX_POINTS:,} points: one JSON answer holds at most "
                                      f"{JSON_MAX_POINTS:,}; narrow it with start and end, or download the CSV"},
                            status=400)
    return JsonResponse({"series": _series_json(series), "points": [list(r) for r in rows]})


def series_csv(request: HttpRequest, series_id: int) -> HttpResponseBase:
    series = ExternalSeries.objects.filter(id=series_id).first()
    if series is None:
        return HttpResponse(f"no external series {series_id}\n", status=404, content_type="text/plain; charset=utf-8")
    response = StreamingHttpResponse(read.csv_chunks(series.id), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="cellar-external-{series.name}.csv"'
    return response
