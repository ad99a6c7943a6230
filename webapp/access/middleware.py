"""The access gate: API tokens, read permission on every view, rate limits on expensive ones.

Every view needs the read permission (webapp.access.roles) unless it is marked
login_not_required (Django's decorator: the login page, healthz) or belongs to the admin site
(which checks staff itself). Write views add their own roles.require(...). A request with an
Authorization: Bearer token is that token's user; it carries no session or cookie, so it is not
subject to CSRF (a browser cannot be made to send it).
"""
from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from webapp.access import ratelimits, roles, tokens


class AccessMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        plaintext = tokens.from_header(header) if header else None
        if plaintext is not None:
            try:
                tok = tokens.check(plaintext)
            except tokens.TokenError as exc:
                r = JsonResponse({"error": str(exc)}, status=401)
                r["WWW-Authenticate"] = 'Bearer realm="cellar", error="invalid_token"'
                return r
            request.user = tok.user
            # Attributes HttpRequest's stubs do not declare: the token (read by the audit trail) and
            # the flag Django's CsrfViewMiddleware reads (a bearer request carries no cookie to forge).
            request.api_token = tok  # type: ignore[attr-defined]
            request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable, args, kwargs) -> HttpResponse | None:
        match = request.resolver_match
        if match is None or "admin" in match.namespaces or not getattr(view, "login_required", True):
            return None
        if not roles.can_read(request.user):
            return roles.denied(request, "reading the archive needs the viewer role")
        return ratelimits.limited(request, match.view_name)
