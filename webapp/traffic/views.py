"""Traffic views: the plot page, its JSON, the CSV export and the inventory/series API.

Read-only (a large CSV's POST creates a background export job through collector.exports).
Views only parse, delegate (service, catalog, plots, csvexport, exportjobs) and answer; bad
input is a 400 whose message says what was wrong, a query past its time limit (collector/reader/timelimits.py)
a 503 saying the limit and what to do, never a 500.
"""
from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from urllib.parse import urlencode

import orjson
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from collector.core.isotime import iso
from collector.inventory.models import Switch
from collector.reader import catalog, csvrows, reading, resolution, selection, units
from collector.reader.catalog import UnknownSeries
from collector.reader.selection import BadRequest
from collector.reader.timelimits import TooSlow, is_timeout, limit_ms, time_limited
from collector.reader.units import UnitError
from webapp.access import roles
from webapp.timelimits import too_slow_response
from webapp.traffic import compare, datajson, exportjobs, plotfigure, streamslots

BAD = (BadRequest, UnknownSeries, UnitError)


def answers_400(kind: str, budget: str | None = None, methods: tuple[str, ...] = ("GET",)) -> Callable:
    """Turn bad input into a 400 (JSON, HTML or plain text) carrying the message; with a budget
    (collector/reader/timelimits.py), the view's statements time out at that endpoint's limit, answered 503."""
    def wrap(view: Callable) -> Callable:
        @functools.wraps(view)
        def inner(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                if budget is None:
                    return view(request, *args, **kwargs)
                with time_limited(budget):
                    return view(request, *args, **kwargs)
            except BAD as exc:
                if kind == "json":
                    return JsonResponse({"error": str(exc)}, status=400)
                if kind == "html":
                    return render(request, "traffic/bad_request.html", {"message": str(exc)}, status=400)
                return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
            except TooSlow as exc:
                return too_slow_response(request, exc, kind)
        return require_http_methods(list(methods))(inner)
    return wrap


def fast_json(body: dict) -> HttpResponse:
    """The plot's JSON: orjson encodes a plot's body 20x faster than json.dumps (0.2 of 4 ms for
    one port, benchmark 3a). Only str keys and plain values go in; a NaN would become null."""
    return HttpResponse(orjson.dumps(body), content_type="application/json")


@answers_400("html")
def page(request: HttpRequest) -> HttpResponse:
    req = selection.parse(request.GET)
    ids, group = list(req.series_ids), None
    if req.group is not None:
        ids, name = reading.group_series(req.group)
        group = {"id": req.group, "name": name}
    if not any(request.GET.get(k) for k in ("range", "start", "end")):
        req = dataclasses.replace(req, range="auto")    # 24 h, or less when the data is younger
    selected = catalog.load_series(ids)
    if req.unit != "auto":
        for s in selected:
            units.factor(s, req.unit)
    if req.range == "custom":
        selection.resolve_range(req, timezone.now(), None)
    zone = plotfigure.zone_for(request, req)
    state = {"series": [s.as_json() for s in selected], "range": req.range,
             "start": iso(req.start) if req.start else None, "end": iso(req.end) if req.end else None,
             "unit": req.unit, "res": req.res, "stack": req.stack, "group": group, "zone": zone.key,
             "compare": ",".join(c.query_text() for c in req.compare)}
    user = request.user
    return render(request, "traffic/plot.html", {
        "state": state, "ranges": resolution.RANGE_CHOICES[:-1], "units": [("auto", "automatic")] + [
            (u.key, u.label) for u in units.UNITS.values()], "zone": zone.key,
        "can_save_view": user.has_perm(roles.SAVE_VIEWS), "can_mint_image": user.has_perm(roles.MINT_LINKS),
        "resolutions": [("auto", "automatic")] + [(r, resolution.RES_LABEL[r]) for r in resolution.RESOLUTIONS]})


@answers_400("json", budget="traffic.data")
def data(request: HttpRequest) -> HttpResponse:
    """The points, gaps and statistics of a plot. figure=1 adds the Plotly figure; points=0 leaves
    out the point columns (the page draws the figure); p95=0 leaves out the 95th percentile,
    which reads a finer resolution than the plot (the page asks api/p95 after drawing)."""
    started = time.perf_counter()
    req = selection.parse(request.GET)
    figure = selection.on_off(request.GET, "figure", False)
    with_points = selection.on_off(request.GET, "points", True)
    with_p95 = selection.on_off(request.GET, "p95", True)
    body, fig = plotfigure.data_body(request, plotfigure.planned(req), with_figure=figure, with_points=with_points,
                                     with_p95=with_p95)
    if fig is not None:
        body["figure"] = fig
    body["server_ms"] = round((time.perf_counter() - started) * 1000, 1)
    response = fast_json(body)
    response["Server-Timing"] = f"app;dur={body['server_ms']}"
    return response


@answers_400("json", budget="traffic.p95")
def p95(request: HttpRequest) -> HttpResponse:
    """The 95th percentile of each series over the same range as api/data with the same query."""
    started = time.perf_counter()
    plan, _ = reading.resolve(selection.parse(request.GET))
    body = datajson.p95_json(plan, reading.p95(plan))
    body["server_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return fast_json(body)


@answers_400("text", methods=("GET", "POST"))
def export(request: HttpRequest) -> HttpResponseBase:
    """GET: the CSV, streamed, when it is small enough (CELLAR_CSV_SYNC_MAX_CELLS) and a stream
    slot is free (429 otherwise); larger, a page (or JSON) offering a background export.
    POST (same query string): create that background export job. Not wrapped in a statement
    budget: the COPY sets its own, and its transaction outlives this function (streaming)."""
    raw = selection.on_off(request.GET, "raw", False)
    plan, _ = reading.resolve(selection.parse(request.GET), for_csv=True, res="raw" if raw else None)
    compare.attach(plan, for_csv=True)
    size = csvrows.cells(plan)
    if request.method == "POST":
        return exportjobs.start(request, plan, raw)
    if size > settings.CELLAR_CSV_SYNC_MAX_CELLS:
        return exportjobs.offer(request, plan, size)
    try:
        lease = streamslots.take(client_key(request))
    except streamslots.Busy as exc:
        busy = HttpResponse(f"{exc}\n", status=429, content_type="text/plain; charset=utf-8")
        busy["Retry-After"] = str(exc.retry_after)
        return busy
    ms = limit_ms("traffic.export")
    chunks = csvrows.stream(plan, timeout_ms=ms)
    try:
        # The header and the first ~64 KiB of rows before answering: a query that times out
        # before its first rows (a sort, an aggregate) is then a 503 with the limit, not a CSV
        # cut short. One that times out later ends the stream unfinished (the client sees an
        # incomplete transfer).
        first = [next(chunks), next(chunks, b"")]
    except Exception as exc:
        lease.release()
        if is_timeout(exc):
            return too_slow_response(request, TooSlow("traffic.export", ms), "text")
        raise
    response = StreamingHttpResponse(streamslots.guarded(first, chunks, lease),
                                     content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{csvrows.filename(plan)}"'
    return response


def client_key(request: HttpRequest) -> str:
    """Whose streams these are: the user, or the address of an anonymous client."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"addr:{request.META.get('REMOTE_ADDR', '')}"


@answers_400("json")
def series_list(request: HttpRequest) -> JsonResponse:
    try:
        limit = int(request.GET.get("limit", "200"))
    except ValueError:
        raise BadRequest(f"limit={request.GET['limit']!r} is not a number") from None
    if not 1 <= limit <= 1000:
        raise BadRequest("limit must be between 1 and 1000")
    g = request.GET
    found = catalog.search(g.get("q", ""), g.get("switch", ""), g.get("port", ""), g.get("direction", ""),
                           g.get("metric", ""), limit)
    body = {"series": [s.as_json() for s in found.series], "total": found.total, "more": found.more}
    if found.more:
        body["note"] = (f"more than {catalog.RANK_MAX:,} series match: the first {catalog.RANK_MAX:,} found are "
                        "ranked; narrow the search")
    return JsonResponse(body)


@require_GET
def inventory(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"switches": catalog.switches()})


@require_GET
def inventory_switch(request: HttpRequest, switch_id: int) -> JsonResponse:
    switch = Switch.objects.filter(pk=switch_id).first()
    if switch is None:
        return JsonResponse({"error": f"unknown switch id {switch_id}"}, status=404)
    return JsonResponse(catalog.switch_tree(switch))


@require_GET
def for_port(request: HttpRequest, switch: str, port: str) -> HttpResponse:
    """/traffic/port/<switch>/<port>/[?vpi=N[&vci=N]][&direction=in|out]: the plot of that port,
    VP or VC (its traffic in both directions) for links from other pages that know names, not ids."""
    try:
        ids = catalog.entity_series(switch, port, request.GET.get("vpi"), request.GET.get("vci"),
                                    request.GET.get("direction", ""))
    except LookupError as exc:
        return render(request, "traffic/bad_request.html", {"message": str(exc)}, status=404)
    keep = {k: v for k, v in request.GET.items() if k in ("range", "start", "end", "unit", "res", "stack")}
    query = selection.PlotRequest(tuple(ids)).query() + ("&" + urlencode(keep) if keep else "")
    if keep:
        query = query.replace("range=24h&", "")
    return HttpResponseRedirect(f"{reverse('traffic:plot')}?{query}")
