"""The viewer's time zone: their preference, else the site default (CELLAR_TIME_ZONE).

The middleware activates it for the request (django.utils.timezone), so templates and views show
times in it; data stays UTC everywhere (the database, the API's ISO times, the CSV by default).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from webapp.personal.models import Preference
from webapp.wallclock import is_utc


class UnknownZone(ValueError):
    """Not an IANA time zone name; str() says so and how to find one."""


@lru_cache(maxsize=256)
def zone(name: str) -> ZoneInfo:
    """The zone of an IANA name (Europe/Berlin, UTC), or UnknownZone."""
    if not name or name != name.strip() or name.startswith("/") or ".." in name:
        raise UnknownZone(f"time zone {name!r} is not an IANA name such as UTC or Europe/Berlin")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UnknownZone(f"unknown time zone {name!r}: use an IANA name such as UTC, Europe/Berlin, "
                          "America/Chicago") from None


@lru_cache(maxsize=1)
def choices() -> tuple[str, ...]:
    return tuple(sorted(available_timezones() | {"UTC"}))


def site_default() -> ZoneInfo:
    return zone(settings.CELLAR_TIME_ZONE)


def of_user(user) -> ZoneInfo:
    """The user's preference, else the site default (anonymous users: the site default)."""
    if getattr(user, "is_authenticated", False):
        name = Preference.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first()
        if name:
            try:
                return zone(name)
            except UnknownZone:         # a zone the tz database dropped: fall back, never fail a page
                pass
    return site_default()


SESSION_KEY = "cellar_tz"      # the preference kept in the session: no query per page


def for_request(request: HttpRequest) -> ZoneInfo:
    """The viewer's zone; a session remembers the preference (a token request reads it)."""
    session = getattr(request, "session", None)
    user = request.user
    if session is not None and user.is_authenticated:
        kept = session.get(SESSION_KEY)
        if kept is None:
            z = of_user(user)
            session[SESSION_KEY] = z.key if Preference.objects.filter(user_id=user.pk).exists() else ""
            return z
        try:
            return zone(kept) if kept else site_default()
        except UnknownZone:
            return site_default()
    return of_user(user)


def remember_at_login(sender, request, user, **kwargs) -> None:
    if request is not None and getattr(request, "session", None) is not None:
        name = Preference.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first()
        request.session[SESSION_KEY] = name or ""


def save(user, name: str, request: HttpRequest | None = None) -> ZoneInfo:
    """Keep the user's zone ('' : back to the site default); the request's session follows."""
    if not name:
        Preference.objects.filter(user=user).delete()
        z = site_default()
    else:
        z = zone(name)
        Preference.objects.update_or_create(user=user, defaults={"time_zone": z.key})
    if request is not None and getattr(request, "session", None) is not None:
        request.session[SESSION_KEY] = z.key if name else ""
    return z


def local_text(value: datetime, z: ZoneInfo | None = None, seconds: bool = True) -> str:
    """'2026-11-22 11:00:15 CET' in the zone (default: the active one); UTC says 'UTC'."""
    z = z or timezone.get_current_timezone()
    t = value.astimezone(z)
    text = t.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    return f"{text} {'UTC' if is_utc(z) else t.tzname()}"


def iso_local(value: datetime, z: ZoneInfo) -> str:
    """ISO 8601 with the zone's offset (Z for UTC)."""
    t = value.astimezone(z)
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z") if is_utc(z) else t.isoformat()


class ZoneMiddleware:
    """Activates the viewer's zone for the request (after the access middleware: token users too)
    and puts it on request.viewer_zone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        z = for_request(request)
        request.viewer_zone = z  # type: ignore[attr-defined]   # an attribute of Cellar's, read with getattr
        timezone.activate(z)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
