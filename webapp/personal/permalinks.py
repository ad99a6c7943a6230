"""Links to plots: saved views (/v/<code>, and /v/<code>.png|.svg|.csv|.json) and image links
(/i/<secret>.png|.svg), and the plot page's forms that make them (POST /traffic/api/views and
/traffic/api/image-links).

A saved view is a plot's query under a short code: its forms redirect to the plot's own forms
(webapp/traffic), so what the page shows is what the image, the CSV and the JSON hold. Saved views
need the viewer role like the page; an image link (links.py: why, and its risk) shows its one stored
selection without a login while it lives and its owner may read.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, QueryDict
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from collector.reader import selection
from collector.reader.catalog import UnknownSeries
from collector.reader.selection import BadRequest
from collector.reader.units import UnitError
from webapp.access import roles
from webapp.personal import links, zones
from webapp.traffic import imageviews

BAD = (BadRequest, UnknownSeries, UnitError)
FORMS = ("png", "svg", "csv", "json")


def _text(message: str, status: int) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


def _checked_query(request: HttpRequest) -> str | JsonResponse:
    """The plot query of a POST (field `query`, the page's query string), checked and canonical."""
    text = request.POST.get("query", "").lstrip("?")
    if len(text) > 4000:
        return JsonResponse({"error": "the query is longer than 4,000 characters"}, status=400)
    try:
        req = selection.parse(QueryDict(text))
    except BAD as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    if not req.series_ids:
        return JsonResponse({"error": "no series selected: a saved view or an image link needs s=..."}, status=400)
    extra = [(k, v) for k, v in QueryDict(text).items() if k.startswith("burst")]
    q = req.query()
    return q + ("&" + "&".join(f"{k}={v}" for k, v in extra) if extra else "")


@require_POST
@roles.require(roles.SAVE_VIEWS, "saving a view needs the operator role")
def save_view(request: HttpRequest) -> HttpResponse:
    """POST query=<the plot's query>: its short URL (the same query always gets the same one)."""
    q = _checked_query(request)
    if isinstance(q, JsonResponse):
        return q
    view = links.save_view(q, request.user)
    base = request.build_absolute_uri("/")[:-1]
    return JsonResponse({"code": view.code, "url": f"{base}/v/{view.code}", "query": view.query,
                         "forms": {f: f"{base}/v/{view.code}.{f}" for f in FORMS}}, status=201)


@require_POST
@roles.require(roles.MINT_LINKS, "making an image link needs the operator role")
def mint_image_link(request: HttpRequest) -> HttpResponse:
    """POST query=<the plot's query>[&days=N]: a read-only, expiring image link of that plot (shown once)."""
    q = _checked_query(request)
    if isinstance(q, JsonResponse):
        return q
    if "tz=" not in q:                  # the image shows the zone of the one who made the link
        q += f"&tz={getattr(request, 'viewer_zone', zones.site_default()).key}"
    try:
        days = int(request.POST.get("days", links.IMAGE_LINK_DEFAULT_DAYS))
        minted = links.mint(request.user, q, days)
    except ValueError as exc:
        return JsonResponse({"error": str(exc) if isinstance(exc, links.LinkError) else "days is not a number"},
                            status=400)
    base = request.build_absolute_uri("/")[:-1]
    return JsonResponse({"png": f"{base}/i/{minted.secret}.png", "svg": f"{base}/i/{minted.secret}.svg",
                         "expires": minted.link.expires.isoformat(), "query": q,
                         "note": "shown once: anyone with this URL sees this image until it expires or is revoked "
                                 "(/me/)"}, status=201)


@require_GET
def short(request: HttpRequest, code: str) -> HttpResponse:
    view = links.find_view(code)
    if view is None:
        return _text(f"no saved view {code!r}", 404)
    return HttpResponseRedirect(f"{reverse('traffic:plot')}?{view.query}")


@require_GET
def short_form(request: HttpRequest, code: str, fmt: str) -> HttpResponse:
    """/v/<code>.png|.svg|.csv|.json: the same selection's form."""
    view = links.find_view(code)
    if view is None:
        return _text(f"no saved view {code!r}", 404)
    target = {"png": "traffic:image-png", "svg": "traffic:image-svg", "csv": "traffic:export", "json": "traffic:data"}
    if fmt not in target:
        return _text(f"unknown form .{fmt}: use .png, .svg, .csv or .json", 404)
    extra = "&figure=1" if fmt == "json" else ""
    return HttpResponseRedirect(f"{reverse(target[fmt])}?{view.query}{extra}")


@login_not_required
@require_GET
def image_link(request: HttpRequest, secret: str, fmt: str) -> HttpResponse:
    """An image link: no login (a wiki, a mail); its owner must still be allowed to read."""
    try:
        link = links.check(secret)
    except links.LinkError as exc:
        return _text(str(exc), 404 if "unknown" in str(exc) else 410)
    if not roles.can_read(link.owner):
        return _text(f"the owner of image link {link.prefix}… may no longer read the archive", 410)
    return imageviews.image_response(request, QueryDict(link.query), fmt, private=False)
