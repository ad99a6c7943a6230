"""The events list (filters, pages of read.PER_PAGE, counted up to read.COUNT_MAX), the note
form's target and the JSON API (GET: list; POST: a note, operator role, session or API token)."""
from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from collector.core.isotime import iso, parse_optional
from collector.events import notes, read
from collector.events.models import KINDS, Event
from collector.events.record import EventError
from webapp.access import roles


def _filters(request: HttpRequest) -> read.Filters:
    """read.Filters from the query string; ValueError naming a bad time."""
    g = request.GET
    return read.Filters(kinds=g.getlist("kind"), switch=g.get("switch", "").strip(), port=g.get("port", "").strip(),
                        host=g.get("host", "").strip(),
                        start=parse_optional("start", g.get("start")), end=parse_optional("end", g.get("end")),
                        text=g.get("q", "").strip()[:200])


def event_json(e: Event) -> dict:
    return {"id": e.id, "at": iso(e.at), "kind": e.kind, "source": e.source, "message": e.message,
            "switch": e.switch.name if e.switch else None, "port": e.port.name if e.port else None,
            "vp": e.vp.vpi if e.vp else None, "vc": [e.vc.vpi, e.vc.vci] if e.vc else None,
            "host": e.host.name if e.host else None, "user": e.actor.get_username() if e.actor else None,
            "data": e.data}


def event_list(request: HttpRequest) -> HttpResponse:
    try:
        f = _filters(request)
    except ValueError as exc:
        return render(request, "events/list.html", {"error": str(exc), "kinds": KINDS, "f": None}, status=400)
    page_no = request.GET.get("page", "1")
    if not page_no.isdigit() or not 1 <= int(page_no) <= read.MAX_PAGES:
        return render(request, "events/list.html", {
            "error": f"page={page_no!r}: a page number from 1 to {read.MAX_PAGES} (the list reaches the newest "
                     f"{read.COUNT_MAX:,} matching events: narrow the filters, From and To, for older ones)",
            "kinds": KINDS, "f": f}, status=400)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "events/list.html", {
        "page": read.listing(f, int(page_no)), "count_max": read.COUNT_MAX, "kinds": KINDS, "f": f,
        "query": query.urlencode(), "can_note": request.user.has_perm(roles.POST_NOTES)})


def events_api(request: HttpRequest) -> HttpResponse:
    """GET ?kind=&switch=&port=&host=&start=&end=&q=&limit= (newest first, at most read.MAX_LIST);
    POST {"text", "switch"?, "port"?, "at"?}: a note (operator)."""
    if request.method == "POST":
        if not request.user.has_perm(roles.POST_NOTES):
            return roles.denied(request, "posting a note needs the operator role")
        try:
            body = json.loads(request.body or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body is a JSON object: {\"text\": ..., \"switch\": ..., \"port\": ...}")
            ev = notes.post(str(body.get("text", "")), switch=str(body.get("switch") or ""),
                            port=str(body.get("port") or ""), at=parse_optional("at", body.get("at")),
                            user_id=request.user.pk, source="api")
        except (EventError, ValueError) as exc:
            return JsonResponse({"error": str(exc)}, status=400)
        return JsonResponse(event_json(ev), status=201)
    if request.method != "GET":
        return JsonResponse({"error": "GET or POST"}, status=405)
    try:
        f = _filters(request)
        limit = int(request.GET.get("limit", "100"))
    except ValueError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    if not 1 <= limit <= read.MAX_LIST:
        return JsonResponse({"error": f"limit={limit}: from 1 to {read.MAX_LIST}"}, status=400)
    return JsonResponse({"events": [event_json(e) for e in f.query()[:limit]], "limit": limit})


@roles.require(roles.POST_NOTES, "posting a note needs the operator role")
@require_POST
def note_create(request: HttpRequest) -> HttpResponse:
    """The note form on switch and port pages: back to the page, with the outcome as a message."""
    p = request.POST
    target = p.get("next") or "/events/"
    if not target.startswith("/") or target.startswith("//"):
        target = "/events/"
    try:
        notes.post(p.get("text", ""), switch=p.get("switch", ""), port=p.get("port", ""), user_id=request.user.pk)
    except EventError as exc:
        messages.error(request, f"note not posted: {exc}")
    else:
        messages.success(request, "note posted")
    return HttpResponseRedirect(target)
