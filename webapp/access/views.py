"""Log in and out, and a user's own API tokens (list, make one: shown once, revoke)."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required, login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from webapp.access import roles, tokens
from webapp.access.models import ApiToken

login = login_not_required(auth_views.LoginView.as_view(template_name="access/login.html",
                                                        redirect_authenticated_user=True))
logout = auth_views.LogoutView.as_view()


def _tokens_page(request: roles.AuthenticatedRequest, status: int = 200, **extra) -> HttpResponse:
    rows = ApiToken.objects.filter(user=request.user).order_by("-created")
    return render(request, "access/tokens.html", {
        "tokens": rows, "now": timezone.now(), "role": roles.role_of(request.user),
        "max_days": tokens.MAX_DAYS, "default_days": tokens.DEFAULT_DAYS, **extra}, status=status)


@login_required
def token_list(request: roles.AuthenticatedRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            days = int(request.POST.get("days") or tokens.DEFAULT_DAYS)
        except ValueError:
            return _tokens_page(request, 400, error=f"days {request.POST.get('days')!r} is not a whole number")
        try:
            issued = tokens.issue(request.user, request.POST.get("name", ""), days)
        except tokens.TokenError as exc:
            return _tokens_page(request, 400, error=str(exc), name=request.POST.get("name", ""))
        # Shown in this answer only: it is not stored, and the page says so.
        return _tokens_page(request, 201, issued=issued)
    return _tokens_page(request)


@login_required
@require_POST
def token_revoke(request: roles.AuthenticatedRequest, token_id: int) -> HttpResponse:
    tok = ApiToken.objects.filter(pk=token_id, user=request.user).first()
    if tok is None:
        raise Http404("no such token of yours")
    if tokens.revoke(tok):
        messages.success(request, f"token {tok.name} ({tok.prefix}…) revoked: it no longer works")
    return HttpResponseRedirect(reverse("access:tokens"))


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' answer once a user name has failed too often from one address: 429, the
    lock-out's length in Retry-After and on the page (the login form stays, for after it)."""
    minutes = settings.CELLAR_LOGIN_LOCKOUT_MINUTES
    response = render(request, "access/login.html", {
        "locked": f"Too many failed logins for this user name from your address "
                  f"({settings.CELLAR_LOGIN_FAILURE_LIMIT}): locked out for {minutes} minutes."}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
