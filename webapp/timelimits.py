"""The web's side of the statement time limits (collector/reader/timelimits.py): a view decorator
that runs a whole view within its endpoint's limit, and the 503 that states the limit."""
from __future__ import annotations

import functools
from collections.abc import Callable

import orjson
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from collector.reader.timelimits import TooSlow, time_limited


def too_slow_response(request: HttpRequest, exc: TooSlow, kind: str) -> HttpResponse:
    """503 (the server gave up, the request may work narrower or later) in the endpoint's format."""
    message = str(exc)
    if kind == "json":
        response = HttpResponse(orjson.dumps({"error": message, "limit_ms": exc.ms}), status=503,
                                content_type="application/json")
    elif kind == "html":
        response = render(request, "too_slow.html", {"message": message}, status=503)
    else:
        response = HttpResponse(message + "\n", status=503, content_type="text/plain; charset=utf-8")
    response["Cellar-Limit-Ms"] = str(exc.ms)
    return response


def limited(name: str, kind: str = "html") -> Callable:
    """View decorator: the whole view runs within the endpoint's statement budget."""
    def wrap(view: Callable) -> Callable:
        @functools.wraps(view)
        def inner(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                with time_limited(name):
                    return view(request, *args, **kwargs)
            except TooSlow as exc:
                return too_slow_response(request, exc, kind)
        return inner
    return wrap
