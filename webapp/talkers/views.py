"""Top talkers: the page, its JSON and its CSV (the same parameters and rows). Read only.

Bounds: at most MAX_ROWS tier rows aggregated (queries.py), at most P95_MAX_VALUES rates for a
ranking by percentile (ranking.py), every statement within the "talkers" limit (collector/reader/timelimits.py),
and the requests count against the expensive-request rate limits (webapp/access/ratelimits.py).
"""
from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

import orjson
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from collector.core.isotime import iso
from collector.groups.models import Group
from collector.inventory.models import Switch
from collector.reader.catalog import UnknownSeries
from collector.reader.selection import BadRequest
from collector.reader.timelimits import TooSlow, time_limited
from webapp.talkers import params, ranking
from webapp.timelimits import too_slow_response

CSV_FIELDS = ["rank", "series_id", "switch", "port", "port_label", "vpi", "vci", "direction", "metric", "value",
              "average", "peak", "p95", "unit", "total", "total_unit", "total_bytes", "share_pct", "coverage_pct",
              "samples", "flagged", "plot"]


def _answer(request: HttpRequest, kind: str):
    """The ranking of the request, or the response that says why there is none."""
    try:
        with time_limited("talkers"):
            return ranking.build(params.parse(request.GET))
    except (BadRequest, UnknownSeries) as exc:
        if kind == "json":
            return HttpResponse(orjson.dumps({"error": str(exc)}), status=400, content_type="application/json")
        if kind == "text":
            return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
        if isinstance(exc, ranking.NothingInScope) and exc.empty_archive:
            return _page(request, None, "Nothing archived yet: top talkers appear after the first polls.", 200)
        return _page(request, None, str(exc), 400)
    except TooSlow as exc:
        return too_slow_response(request, exc, kind)


def plot_url(r: ranking.Ranking, series_id: int) -> str:
    return "/traffic/?" + urlencode({"s": series_id, "start": iso(r.start), "end": iso(r.end)})


def row_json(r: ranking.Ranking, row: ranking.Row) -> dict:
    s, a = row.info, row.agg
    total_unit = {"cells": "cells", "octets": "bytes", "packets": "packets"}.get(s.unit, s.unit)
    return {"rank": row.rank, "series_id": s.id, "label": s.label, "switch": s.switch, "port": s.port,
            "port_label": s.port_label, "vpi": s.vpi, "vci": s.vci, "direction": s.direction, "metric": s.metric,
            "value": row.value, "average": a.average, "peak": a.peak, "p95": row.p95, "unit": r.unit_label,
            "total": a.total, "total_unit": total_unit, "total_bytes": a.total * a.kb if a.kb else None,
            "share_pct": None if row.share is None else row.share * 100,
            "coverage_pct": min(100.0, a.drawn_s / r.window_s * 100) if r.window_s else None,
            "samples": a.samples, "flagged": a.flagged, "plot": plot_url(r, s.id)}


def as_json(r: ranking.Ranking) -> dict:
    o = r.other
    return {"start": iso(r.start), "end": iso(r.end), "scope": r.req.scope_text, "entity": r.req.entity,
            "metric": r.req.metric, "direction": r.req.direction, "by": r.req.by, "order": r.req.order,
            "unit": r.unit_label, "tier": r.plan.tier.name, "tiers_read": r.plan.text, "in_scope": r.in_scope,
            "ranked": r.ranked, "without_data": r.without_data, "without_capacity": r.without_capacity,
            "p95_basis": r.p95_basis, "p95_computed": r.p95_computed, "notes": r.notes, "server_ms": r.server_ms,
            "query": r.req.query(), "rows": [row_json(r, row) for row in r.rows],
            "other": {"count": o.count, "average": o.average, "total": o.total, "total_bytes": o.total_bytes,
                      "share_pct": None if o.share is None else o.share * 100}}


def _page(request: HttpRequest, r: ranking.Ranking | None, error: str = "", status: int = 200) -> HttpResponse:
    try:
        req = params.parse(request.GET)
    except BadRequest:
        req = params.TalkersRequest()
    query = urlencode({k: v for k, v in request.GET.items()})
    body = as_json(r) if r else None
    if body:
        top = max((abs(row["value"]) for row in body["rows"]), default=0.0) or 1.0
        for row in body["rows"]:
            row["bar_pct"] = round(abs(row["value"]) / top * 100, 1)
    return render(request, "talkers/talkers.html", {
        "r": r, "req": req, "error": error, "query": query, "body": body, "by_label": params.BY[req.by],
        "entity_label": {"port": "port", "vp": "VP", "vc": "VC", "any": "port, VP and VC"}[req.entity],
        "ranges": params.RANGES, "entities": params.ENTITIES, "metrics": params.METRICS.items(),
        "directions": params.DIRECTIONS, "bys": params.BY.items(), "units": params.UNITS,
        "switches": Switch.objects.order_by("name").values_list("name", flat=True),
        "poller_groups": sorted(set(Switch.objects.values_list("poller_group", flat=True))),
        "groups": Group.objects.order_by("name").values_list("id", "name")}, status=status)


@require_GET
def page(request: HttpRequest) -> HttpResponse:
    r = _answer(request, "html")
    return r if isinstance(r, HttpResponse) else _page(request, r)


@require_GET
def api(request: HttpRequest) -> HttpResponse:
    r = _answer(request, "json")
    if isinstance(r, HttpResponse):
        return r
    return HttpResponse(orjson.dumps(as_json(r)), content_type="application/json")


@require_GET
def export(request: HttpRequest) -> HttpResponse:
    r = _answer(request, "text")
    if isinstance(r, HttpResponse):
        return r
    buf = io.StringIO()
    buf.write(f"# Cellar top talkers of {r.req.scope_text}, {r.req.entity} {r.req.metric} by {r.req.by} "
              f"({r.req.order}), unit {r.unit_label}\n")
    for note in r.notes:
        buf.write(f"# {note}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for row in r.rows:
        d = row_json(r, row)
        w.writerow(["" if d[k] is None else d[k] for k in CSV_FIELDS])
    o = as_json(r)["other"]
    w.writerow(["other", "", f"{o['count']} series", "", "", "", "", "", "", "", "" if o["average"] is None
                else o["average"], "", "", r.unit_label, o["total"], "", "" if o["total_bytes"] is None
                else o["total_bytes"], "" if o["share_pct"] is None else o["share_pct"], "", "", "", ""])
    response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (f'attachment; filename="cellar-talkers-{r.start:%Y%m%dT%H%M}-'
                                       f'{r.end:%Y%m%dT%H%M}.csv"')
    return response
