"""/metrics/counters: every counter's cumulative total in the Prometheus text format, for a scraper.

Off unless CELLAR_PROMETHEUS_COUNTERS is on (404). Who may scrape is decided here, not by the access
middleware (the view is login_not_required so that an allow-listed scraper needs no account): a
user with the viewer role (an API token, Authorization: Bearer, or a session), else a client whose
address is in CELLAR_PROMETHEUS_SCRAPERS, else nobody (401; 403 for a user without the role).
`?switch=NAME` (repeatable) and `?group=ID` narrow the scope; a scope over
CELLAR_PROMETHEUS_MAX_SERIES is refused with 413 and both numbers, never truncated. Every statement
runs within the "metrics" time limit (503 stating it); the totals are read piece by piece
(collector/reader/cumulative.py PIECE series a statement), so the process holds one piece's rows and
the text (about 150 bytes a series). Not rate-limited as the expensive requests are: scrape jobs
split by switch would spend a user's budget; the cardinality and time limits bound each scrape.
"""
from __future__ import annotations

import ipaddress
import time

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from collector.reader import cumulative
from collector.reader.timelimits import TooSlow, time_limited
from webapp.access import roles
from webapp.metrics import exposition
from webapp.timelimits import too_slow_response

PARAMETERS = ("switch", "group")


def _text(status: int, message: str) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


def from_scraper(address: str, networks: list[str]) -> bool:
    """True when `address` (REMOTE_ADDR) lies in one of the allow-listed networks."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(net, strict=False) for net in networks)


def refusal(request: HttpRequest) -> HttpResponse | None:
    """None when the request may scrape; else the 401 or 403 (JSON, as every refusal of the site's
    machine answers) that says what it needs."""
    user = request.user
    if user.is_authenticated:
        if roles.can_read(user):
            return None
        return JsonResponse({"error": f"user {user} may not read the archive: scraping counters needs the viewer "
                                      "role"}, status=403)
    address = request.META.get("REMOTE_ADDR", "")
    if from_scraper(address, settings.CELLAR_PROMETHEUS_SCRAPERS) or roles.can_read(user):
        return None
    response = JsonResponse({"error": "scraping counters needs the viewer role: log in, or send an API token "
                                      "(Authorization: Bearer cellar_...), or scrape from an address in "
                                      f"CELLAR_PROMETHEUS_SCRAPERS; {address or 'this address'} is not in it"},
                            status=401)
    response["WWW-Authenticate"] = 'Bearer realm="cellar"'
    return response


@login_not_required
@require_GET
@gzip_page
def counters(request: HttpRequest) -> HttpResponse:
    refused = refusal(request)
    if refused is not None:
        return refused
    if not settings.CELLAR_PROMETHEUS_COUNTERS:
        return _text(404, "the Prometheus exposition of counters is off: set CELLAR_PROMETHEUS_COUNTERS=true "
                          "(docs/integrations.md)")
    unknown = sorted(set(request.GET) - set(PARAMETERS))
    if unknown:
        return _text(400, f"unknown parameter {', '.join(unknown)}: a scrape takes switch=NAME (repeatable) and "
                          "group=ID")
    groups = request.GET.getlist("group")
    if len(groups) > 1 or any(not g.strip() for g in groups):
        return _text(400, "group= names one group, by its id (see /groups/)")
    switches = request.GET.getlist("switch")
    if any(not s.strip() for s in switches):
        return _text(400, "switch= names a switch (see /switches/)")
    started = time.monotonic()
    limit = settings.CELLAR_PROMETHEUS_MAX_SERIES
    read = 0

    def counted(readings):
        nonlocal read
        for r in readings:
            read += 1
            yield r
    try:
        with time_limited("metrics"):
            series = cumulative.scope(switches, groups[0] if groups else None, limit=limit)
            # rendered as each piece is read: the rows of one piece, and the text, at a time
            lines = list(exposition.render(counted(cumulative.read(series)), exposition.shared(series)))
    except cumulative.TooMany as exc:
        return _text(413, str(exc))
    except cumulative.UnknownScope as exc:
        return _text(404, str(exc))
    except cumulative.ScopeError as exc:
        return _text(400, str(exc))
    except TooSlow as exc:
        return too_slow_response(request, exc, "text")
    seconds = time.monotonic() - started
    lines.append(f"# cellar: {read} series of {len(series)} in the scope (limit {limit}); {len(series) - read} "
                 f"without a poll in the last {int(cumulative.FRESH.total_seconds() // 60)} minutes left out; "
                 f"read in {seconds:.3f} s\n")
    response = HttpResponse("".join(lines), content_type=exposition.CONTENT_TYPE)
    response["Cellar-Series"] = str(read)
    response["Server-Timing"] = f"read;dur={seconds * 1000:.1f}"
    return response
