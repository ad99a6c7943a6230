"""Who is acting: one contextvar, set per web request, per management command, per API token.

The middleware binds the request and resolves it only when an event is recorded, so a page
that changes nothing never loads the session's user for the audit. Token authentication (or
anything that knows better than the session) calls set_actor(); management commands wrap
their handle() in @command_actor. With nothing bound (Celery tasks, beat) the actor is
"system" and the source "task".
"""
from __future__ import annotations

import functools
import os
import pwd
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

Source = Literal["web", "admin", "api", "cli", "task"]
SOURCES: tuple[Source, ...] = ("web", "admin", "api", "cli", "task")


@dataclass(frozen=True)
class Actor:
    label: str                    # "alice", "cli:root", "api-token:alice/ci", "system"
    source: Source
    user: Any = None              # the auth user, when one is known
    address: str | None = None    # the client address of a web request


SYSTEM = Actor("system", "task")


class _RequestActor:
    """A request's actor, resolved when first needed (request.user is lazy)."""

    def __init__(self, request: Any) -> None:
        self.request = request

    def resolve(self) -> Actor:
        request = self.request
        user = getattr(request, "user", None)
        known = user if user is not None and user.is_authenticated else None
        match = getattr(request, "resolver_match", None)
        token = getattr(request, "api_token", None)     # set by webapp.access when a Bearer token is used
        if known is not None and token is not None:
            return Actor(f"api-token:{known.get_username()}/{token.name}", "api", known, client_address(request))
        source: Source = "admin" if match is not None and "admin" in match.namespaces else "web"
        return Actor(known.get_username() if known else "anonymous", source, known, client_address(request))


_current: ContextVar[Actor | _RequestActor] = ContextVar("cellar_audit_actor", default=SYSTEM)


def client_address(request: Any) -> str | None:
    """REMOTE_ADDR: the peer as the WSGI server saw it (behind a proxy, the proxy's address
    unless the server is told to trust its forwarding header)."""
    return request.META.get("REMOTE_ADDR") or None


def current() -> Actor:
    value = _current.get()
    return value.resolve() if isinstance(value, _RequestActor) else value


def bind_request(request: Any) -> Token:
    return _current.set(_RequestActor(request))


def set_actor(label: str, user: Any = None, source: Source = "api", address: str | None = None) -> Token:
    """Who acts from now on in this context (e.g. token authentication: set_actor(
    f"api-token:{user}/{token.name}", user, source="api")). The client address of the request
    being served is kept unless one is given. Returns the token for reset()."""
    if source not in SOURCES:
        raise ValueError(f"audit source {source!r} is not one of {', '.join(SOURCES)}")
    return _current.set(Actor(label, source, user, address or current().address))


def reset(token: Token) -> None:
    _current.reset(token)


@contextmanager
def acting_as(label: str, user: Any = None, source: Source = "task", address: str | None = None) -> Iterator[Actor]:
    token = set_actor(label, user, source, address)
    try:
        yield current()
    finally:
        reset(token)


def unix_user() -> str:
    """The effective unix user (not $USER, which anyone can set), and who ran sudo."""
    name = pwd.getpwuid(os.geteuid()).pw_name
    sudo = os.environ.get("SUDO_USER")
    return f"{name} (sudo: {sudo})" if sudo and sudo != name else name


F = TypeVar("F", bound=Callable[..., Any])


def command_actor(handle: F) -> F:
    """Decorate a management command's handle(): its changes are recorded as cli:<unix user>."""
    @functools.wraps(handle)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with acting_as(f"cli:{unix_user()}", source="cli"):
            return handle(*args, **kwargs)
    return wrapper  # type: ignore[return-value]
