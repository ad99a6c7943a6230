"""The whole figure of a plot as the page, the API (figure=1) and the images draw it: the lines
(plots.build), burst and run bands, event markers (eventmarks.py), a group's total line
(grouptotal.py), the comparison lines (compare.py), in the viewer's zone (timeaxis.py); and the
answer of api/data around it. One place, so the PNG is the page's plot.
"""
from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpRequest

from collector.reader import reading
from collector.reader.reading import Plan, Plotted
from collector.reader.selection import PlotRequest
from webapp.traffic import burstbands, compare, datajson, eventmarks, grouptotal, plots, runbands, timeaxis


def zone_for(request: HttpRequest, req: PlotRequest) -> ZoneInfo:
    """tz= of the request, else the viewer's zone (webapp/personal middleware), else the site's."""
    if req.tz:
        return ZoneInfo(req.tz)
    found = getattr(request, "viewer_zone", None)
    return found if found is not None else ZoneInfo(settings.CELLAR_TIME_ZONE)


def figure(p: Plan, plotted: list[Plotted], earlier: list[compare.Fetched], found: list, zone: ZoneInfo) -> dict:
    fig = plots.build(plotted, p.unit, p.res, p.res_seconds, p.start, p.end, p.req.stack)
    fig["layout"]["shapes"] += burstbands.bands(found) + runbands.bands(p.runs, p.now) + eventmarks.lines(p.events)
    fig["layout"].setdefault("annotations", []).extend(runbands.names(p.runs, p.start, p.end))
    marks = eventmarks.trace(p.events)
    if marks is not None:
        fig["data"].append(marks)
    if p.req.group is not None and p.res != "raw" and p.unit != "pct" and plotted:
        fig["data"].append(grouptotal.trace(grouptotal.total(plotted), p.res_seconds, f"total of {p.group_name}",
                                            plots.typed))
    if earlier:
        fig["data"] += compare.traces(p, earlier)
    return timeaxis.localize(fig, zone)


def planned(req: PlotRequest) -> Plan:
    """The plan of a request with its comparisons (BadRequest and friends as the views expect)."""
    plan, _ = reading.resolve(req, with_events=True, with_buckets=True)
    return compare.attach(plan)


def data_body(request: HttpRequest, plan: Plan, *, with_figure: bool, with_points: bool = True,
              with_p95: bool = True) -> tuple[dict, dict | None]:
    """api/data's answer and, when asked, the figure (the images use it too): points, gaps,
    statistics, bursts, runs, comparisons, the zone."""
    rule = burstbands.rule_from(request.GET)
    plotted = reading.fetch(plan, with_p95=with_p95, with_events=True)
    earlier = compare.fetch(plan)
    body = datajson.data_json(plan, plotted, with_points=with_points)
    found = burstbands.attach(body, plotted, rule, plan.res == "raw")
    body["runs"] = runbands.runs_json(plan.runs)
    body["events"] = eventmarks.events_json(plan.events)
    zone = zone_for(request, plan.req)
    body["zone"] = zone.key
    note = timeaxis.bucket_day_note(plan.res, zone)
    if note:
        body["notes"].append(note)
    if earlier:
        body["compare"] = compare.as_json(earlier, with_points)
    fig = figure(plan, plotted, earlier, found, zone) if with_figure else None
    return body, fig
