"""The data inventory: a page, its JSON and its CSV (seed 002, table 15, alive). Read only.

Bounds: one row per archived series (the HTML pages them by PAGE_ROWS), aggregated from the
finest tier whose rows fit queries.MAX_ROWS (4,000,000 tier rows at most); every statement within
the "datasets" time limit (collector/reader/timelimits.py); the CSV is built before it streams."""
from __future__ import annotations

from urllib.parse import urlencode

import orjson
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.views.decorators.http import require_GET

from collector.core.isotime import iso
from webapp.datasets import service, table
from webapp.timelimits import limited


def _bad(request: HttpRequest, message: str, as_json: bool) -> HttpResponse:
    if as_json:
        return HttpResponse(orjson.dumps({"error": message}), status=400, content_type="application/json")
    return render(request, "datasets/bad_request.html", {"message": message}, status=400)


def _inventory(request: HttpRequest, as_json: bool) -> service.Inventory | HttpResponse:
    """The request's inventory, or the 400 that says why there is none."""
    try:
        return service.build(service.parse(request.GET))
    except service.BadRequest as exc:
        return _bad(request, str(exc), as_json)


@require_GET
@limited("datasets", "html")
def page(request: HttpRequest) -> HttpResponse:
    inv = _inventory(request, as_json=False)
    if isinstance(inv, HttpResponse):
        return inv
    n_pages = max(1, -(-len(inv.rows) // service.PAGE_ROWS))
    page_no = min(inv.req.page, n_pages)
    shown = inv.rows[(page_no - 1) * service.PAGE_ROWS:page_no * service.PAGE_ROWS]
    base = {k: v for k, v in request.GET.items() if k not in ("sort", "page")}
    current = inv.req.sort.split(",")[0]
    headers = [(key, label, "?" + urlencode({**base, "sort": f"-{key}" if current == key else key}),
                "asc" if current == key else "desc" if current == f"-{key}" else "")
               for key, label in table.COLUMNS.items()]
    query = urlencode({k: v for k, v in request.GET.items() if k != "page"})
    return render(request, "datasets/inventory.html", {
        "inv": inv, "rows": shown, "headers": headers, "page": page_no, "pages": n_pages,
        "query": query, "with_bursts": sum(1 for r in inv.rows if r.bursts),
        "start_text": iso(inv.start), "end_text": iso(inv.end)})


@require_GET
@limited("datasets", "json")
def api(request: HttpRequest) -> HttpResponse:
    inv = _inventory(request, as_json=True)
    if isinstance(inv, HttpResponse):
        return inv
    return HttpResponse(orjson.dumps(service.as_json(inv)), content_type="application/json")


@require_GET
@limited("datasets", "text")
def export(request: HttpRequest) -> HttpResponseBase:
    try:
        inv = service.build(service.parse(request.GET))
    except service.BadRequest as exc:
        return HttpResponse(str(exc) + "\n", status=400, content_type="text/plain; charset=utf-8")
    notes = [f"Cellar data inventory {iso(inv.start)} - {iso(inv.end)}; tiers read: {inv.tiers_text}", *inv.notes]
    response = StreamingHttpResponse(table.csv_lines(inv.rows, notes), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="cellar-inventory-{inv.start:%Y%m%d}-{inv.end:%Y%m%d}.csv"'
    return response
