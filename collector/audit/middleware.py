"""Binds each request to the audit actor (after AuthenticationMiddleware, which sets request.user)."""
from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from collector.audit import context


class AuditActorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = context.bind_request(request)
        try:
            return self.get_response(request)
        finally:
            # A worker thread serves the next request: nothing of this one may stay bound.
            context.reset(token)
