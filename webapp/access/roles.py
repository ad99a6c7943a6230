"""The three roles, as Django groups with permissions, and the checks views use.

viewer:   reads pages, plots, CSV and the JSON API.
operator: a viewer who also checks switches and hosts now, creates experiment runs, imports
          external series from CSV, makes groups of series and tags, saves views (short
          URLs) and makes image links (and, as they come, alert rules).
admin:    an operator who also edits the inventory and its SNMP credentials in the admin (is_staff),
          sees the audit trail, manages everyone's API tokens, and makes, changes and deletes
          bills (money: an operator reads them) and the groups bills use.
Superusers have every permission. Users and groups are managed by superusers (admin or
`manage.py role`): a role that could grant itself superuser would not be a role.

The groups are synced from ROLES after every migrate (and a test's flush), so a permission added
here reaches existing databases without a data migration.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from functools import wraps

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.http import urlencode

log = logging.getLogger(__name__)

READ = "access.read_archive"
RUN_CHECKS = "access.run_checks"
CREATE_RUNS = "runs.add_experimentrun"
IMPORT_EXTERNAL = "external.add_externalseries"      # import a CSV into a new or existing external series
EDIT_GROUPS = "groups.change_group"                  # make, change and delete groups of series
EDIT_TAGS = "groups.add_tag"                         # tag and untag switches, ports, VPs and VCs
EDIT_BILLS = "billing.change_bill"                   # make, change and delete bills (and their groups)
ACK_ALERTS = "alerts.change_state"                   # acknowledge and mute alerts (with an expiry)
EDIT_ALERTS = "alerts.change_rule"                   # make, change, mute and delete alert rules
EDIT_DESTINATIONS = "alerts.change_destination"      # notification destinations, "send test"
POST_NOTES = "events.add_event"                      # post notes (events of kind "note") on pages and the API
SAVE_VIEWS = "personal.add_savedview"               # short URLs of plots
MINT_LINKS = "personal.add_imagelink"                # read-only, expiring image links of plots
ADD_SWITCHES = "inventory.add_switch"                 # add switches by address, sweep allowed ranges

# "app.*" is every permission of the app's models; a name that does not exist (an app not
# installed yet) is skipped.
VIEWER = (READ,)
OPERATOR = VIEWER + (RUN_CHECKS, CREATE_RUNS, "runs.change_experimentrun",
                     "runs.view_experimentrun", IMPORT_EXTERNAL, "external.change_externalseries",
                     "external.view_externalseries", "groups.add_group", EDIT_GROUPS, "groups.delete_group",
                     "groups.view_group", EDIT_TAGS, "groups.delete_tag", "groups.view_tag",
                     SAVE_VIEWS, MINT_LINKS,
                     "inventory.change_mapposition",   # move nodes on the map
                     ACK_ALERTS, "alerts.view_state", "alerts.add_rule", EDIT_ALERTS, "alerts.delete_rule",
                     "alerts.view_rule", "alerts.add_destination", EDIT_DESTINATIONS, "alerts.delete_destination",
                     POST_NOTES, "events.view_event", ADD_SWITCHES)
ADMIN = OPERATOR + ("inventory.*", "runs.*", "bursts.*", "alerts.*", "events.*", "external.*", "groups.*", "billing.*",
                    "poller.view_switchhealth", "poller.view_hoststate",
                    "access.view_apitoken", "access.change_apitoken", "access.delete_apitoken",
                    "audit.view_auditevent")
ROLES: dict[str, tuple[str, ...]] = {"viewer": VIEWER, "operator": OPERATOR, "admin": ADMIN}


def _permissions(names: Iterable[str]) -> list[Permission]:
    found: list[Permission] = []
    for name in names:
        app, _, codename = name.partition(".")
        qs = Permission.objects.filter(content_type__app_label=app)
        found += list(qs if codename == "*" else qs.filter(codename=codename))
    return found


def sync() -> None:
    """Create the role groups and set their permissions to exactly ROLES (idempotent)."""
    for role, names in ROLES.items():
        group, _ = Group.objects.get_or_create(name=role)
        group.permissions.set(_permissions(names))


def sync_after_migrate(sender, using="default", **kwargs) -> None:
    if sender.label == "access":          # once per migrate: post_migrate is sent for every app
        sync()


def role_of(user) -> str | None:
    """The highest role the user holds, or None."""
    if getattr(user, "is_superuser", False):
        return "admin"
    names = set(user.groups.values_list("name", flat=True)) if user.is_authenticated else set()
    return next((r for r in reversed(ROLES) if r in names), None)


def grant(user, role: str | None) -> None:
    """Give the user exactly this role (None: none); admins get the admin site (is_staff)."""
    if role is not None and role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    sync()
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    if role:
        user.groups.add(Group.objects.get(name=role))
    if not user.is_superuser:
        user.is_staff = role == "admin"
    user.save()


def can_read(user) -> bool:
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return settings.CELLAR_ANONYMOUS_READ
    return user.is_active and user.has_perm(READ)


def wants_machine_answer(request: HttpRequest) -> bool:
    """API, CSV and token callers get a status code (401/403) and a message, not a login page."""
    path = request.path
    return ("/api" in path or path.endswith((".csv", ".json", ".png", ".svg"))
            or "HTTP_AUTHORIZATION" in request.META)


def denied(request: HttpRequest, why: str) -> HttpResponse:
    """401 (machine) or a redirect to the login page for a visitor who is not logged in; 403 for
    a user whose role does not allow it."""
    if request.user.is_authenticated:
        if wants_machine_answer(request):
            return JsonResponse({"error": why}, status=403)
        raise PermissionDenied(why)
    if wants_machine_answer(request):
        r = JsonResponse({"error": f"{why}: log in, or send an API token (Authorization: Bearer ...)"},
                         status=401)
        r["WWW-Authenticate"] = 'Bearer realm="cellar"'
        return r
    return HttpResponseRedirect(f"{reverse('access:login')}?{urlencode({'next': request.get_full_path()})}")


class AuthenticatedRequest(HttpRequest):
    """The request of a view behind login_required: its user is a user, never anonymous (a type
    for the views' signatures; Django makes plain HttpRequests)."""
    user: User


def require(permission: str, why: str) -> Callable:
    """View decorator: the user must hold `permission` (denied() answers otherwise)."""
    def wrap(view: Callable) -> Callable:
        @wraps(view)
        def check(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not (request.user.is_authenticated and request.user.is_active and request.user.has_perm(permission)):
                return denied(request, why)
            return view(request, *args, **kwargs)
        # Read by the access table test; mypy knows no attributes on a function.
        check.cellar_permission = permission  # type: ignore[attr-defined]
        return check
    return wrap
