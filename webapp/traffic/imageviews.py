"""Every plot as an image: /traffic/plot.png|.svg?<the plot's query> (the page's own query, so the
image shows what the page shows), and the image of a stored query for an image link
(webapp/personal/permalinks.py). 400 bad input, 429 no render free, 503 too slow."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from collector.reader import selection
from collector.reader.catalog import UnknownSeries
from collector.reader.selection import BadRequest
from collector.reader.timelimits import TooSlow, time_limited
from collector.reader.units import UnitError
from webapp.timelimits import too_slow_response
from webapp.traffic import images, plotfigure

BAD = (BadRequest, UnknownSeries, UnitError)


def _text(message: str, status: int) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


def image_response(request: HttpRequest, query: QueryDict, fmt: str, *, private: bool = True) -> HttpResponse:
    """The PNG or SVG of the plot of `query`: 400 bad input, 429 no render free, 503 too slow."""
    if fmt not in images.FORMATS:
        return _text(f"unknown image format {fmt!r}: use png or svg", 404)
    proxy = _with_query(request, query)
    try:
        w, h = images.size(query)
        with time_limited("traffic.image"):
            plan = plotfigure.planned(selection.parse(query))
            zone = plotfigure.zone_for(proxy, plan.req)
            key_query = plan.req.query()
            _, fig = plotfigure.data_body(proxy, plan, with_figure=True, with_points=False, with_p95=False)
        assert fig is not None
        data, hit, ttl = images.image(fig, plan, zone, fmt, w, h, key_query)
    except BAD as exc:
        return _text(str(exc), 400)
    except TooSlow as exc:
        return too_slow_response(request, exc, "text")
    except images.Busy as exc:
        r = _text(str(exc), 429)
        r["Retry-After"] = str(exc.retry_after)
        return r
    except images.RenderFailed as exc:
        return _text(f"{exc}; try again, or a smaller image (w, h) or fewer series", 503)
    r = HttpResponse(data, content_type=images.FORMATS[fmt])
    r["X-Cellar-Cache"] = "hit" if hit else "miss"
    r["Content-Disposition"] = f'inline; filename="cellar-plot.{fmt}"'
    if private:
        patch_cache_control(r, private=True, max_age=ttl)
    else:
        patch_cache_control(r, public=True, max_age=ttl)
    return r


def _with_query(request: HttpRequest, query: QueryDict) -> HttpRequest:
    """The request with another query string (an image link's stored one): bursts read request.GET."""
    if request.GET is query:
        return request
    # An image link's stored query, immutable as request.GET is (django-stubs types request.GET as its
    # own _ImmutableQueryDict, which no code can make).
    request.GET = query  # type: ignore[assignment]
    return request


@require_GET
def plot_image(request: HttpRequest, fmt: str) -> HttpResponse:
    return image_response(request, request.GET, fmt)
