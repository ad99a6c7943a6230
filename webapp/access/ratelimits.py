"""Per-user and per-address rate limits on the expensive endpoints (django-ratelimit, redis cache).

An expensive request counts against two budgets: its user's (or, when anonymous read is on, its
address's) and its address's (so one address cannot spread a burst over many accounts). Over
either, the answer is 429 with Retry-After: the seconds left in the budget's window.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django_ratelimit.core import get_usage

log = logging.getLogger(__name__)

# URL names (namespace:name) whose every request costs a database scan of many rows: CSV exports,
# percentiles, analyses and images. Plots are not here: a page draws them on each visit.
EXPENSIVE = frozenset({
    "traffic:export", "traffic:plot-csv", "traffic:p95", "datasets:export", "status:run_csv", "external:csv",
    "analysis:run", "analysis:create", "traffic:image-png", "traffic:image-svg", "links:image",
    "talkers:page", "talkers:api", "talkers:export", "exports:bulk",
})
GROUP = "cellar-expensive"


def _user_key(group: str, request: HttpRequest) -> str:
    user = request.user
    return f"user:{user.pk}" if user.is_authenticated else f"ip:{request.META.get('REMOTE_ADDR', '')}"


def _address_key(group: str, request: HttpRequest) -> str:
    return f"ip:{request.META.get('REMOTE_ADDR', '')}"


def limited(request: HttpRequest, view_name: str) -> JsonResponse | None:
    """None when the request may go on; else the 429 that says which limit and when to retry."""
    if view_name not in EXPENSIVE:
        return None
    for what, key, rate in (("user", _user_key, settings.CELLAR_RATE_LIMIT_USER),
                            ("address", _address_key, settings.CELLAR_RATE_LIMIT_ADDRESS)):
        try:
            usage = get_usage(request, group=f"{GROUP}-{what}", key=key, rate=rate, increment=True)
        except Exception:       # redis down: polls are failing too; do not also take the pages away
            log.warning("rate limit not checked: the cache (redis) does not answer", exc_info=True)
            return None
        if usage and usage["should_limit"]:
            retry = max(1, int(usage["time_left"]))
            body = {"error": f"too many expensive requests (CSV, percentiles, analyses, images) from this "
                             f"{what}: the limit is {rate}; retry in {retry} s"}
            response = JsonResponse(body, status=429)
            response["Retry-After"] = str(retry)
            return response
    return None
