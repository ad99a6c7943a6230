"""Small validating readers for environment variables.

Every setting Cellar reads from the environment goes through one of these helpers, so a bad
value fails at start with the variable's name instead of surfacing later as a strange error.
All variables are documented in .env.example.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit


class EnvError(Exception):
    """A variable is missing or malformed; the message names it."""


_TRUE = {"1", "true", "yes", "on"}
# Every variable the settings read, so tests can check .env.example and docker-compose.yml
# against what the code really uses.
READ: set[str] = set()
_FALSE = {"0", "false", "no", "off", ""}


def load_env_file(path: Path) -> None:
    """Read KEY=VALUE lines into os.environ without overriding what is already set.

    `make run` writes state/cellar.env; loading it here lets `manage.py`, gunicorn and celery
    find the private database and redis without the operator exporting anything. Variables set
    in the real environment always win.
    """
    if not path.is_file():
        return
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise EnvError(f"{path}:{lineno}: expected KEY=VALUE, got {line[:40]!r}")
        os.environ.setdefault(key.strip(), value.strip())


def env_str(name: str, default: str | None = None) -> str:
    READ.add(name)
    value = os.environ.get(name)
    if value is None or value == "":
        if default is None:
            raise EnvError(f"{name} is required but not set (see .env.example)")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    READ.add(name)
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise EnvError(f"{name}={raw!r} is not a boolean (use true/false)")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    READ.add(name)
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise EnvError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise EnvError(f"{name}={value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        raise EnvError(f"{name}={value} is above the maximum {maximum}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0, maximum: float | None = None) -> float:
    READ.add(name)
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise EnvError(f"{name}={raw!r} is not a number") from None
    if not math.isfinite(value):
        raise EnvError(f"{name}={raw!r} is not a finite number")
    if value < minimum:
        raise EnvError(f"{name}={value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        raise EnvError(f"{name}={value} is above the maximum {maximum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    READ.add(name)
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_networks(name: str, default: list[str]) -> list[str]:
    """A comma-separated list of IP networks (192.0.2.0/24, 2001:db8::/64), each checked."""
    import ipaddress

    nets = env_list(name, default)
    for item in nets:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise EnvError(f"{name}: {item!r} is not an IP network (write 192.0.2.0/24)") from None
    return nets


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default)
    if value not in choices:
        raise EnvError(f"{name}={value!r} is not one of {', '.join(choices)}")
    return value


def parse_database_url(name: str, url: str) -> dict:
    """postgres://user:password@host:port/dbname -> Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise EnvError(f"{name} must start with postgres:// (got scheme {parts.scheme!r})")
    dbname = parts.path.lstrip("/")
    if not dbname:
        raise EnvError(f"{name} has no database name (postgres://user@host:port/NAME)")
    try:
        port = parts.port
    except ValueError:
        raise EnvError(f"{name} has an invalid port") from None
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(dbname),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(port or 5432),
    }


def check_redis_url(name: str, url: str) -> str:
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise EnvError(f"{name} must be a redis:// URL (got {url.split(':', 1)[0]!r})")
    return url


def env_rate(name: str, default: str) -> str:
    """A rate "N/s", "N/m", "N/h" or "N/d" (N requests per second, minute, hour, day)."""
    value = env_str(name, default).strip()
    count, sep, unit = value.partition("/")
    if not (sep and count.isdigit() and int(count) > 0 and unit in ("s", "m", "h", "d")):
        raise EnvError(f"{name}={value!r}: expected N/s, N/m, N/h or N/d with N > 0 (e.g. 30/m)")
    return value


def env_url_path(name: str, default: str) -> str:
    """A URL path prefix such as "admin/" or "ops/cellar-admin/" (no leading slash, one trailing)."""
    value = env_str(name, default).strip().strip("/")
    if not value or any(not part or not all(c.isalnum() or c in "-_." for c in part) for part in value.split("/")):
        raise EnvError(f"{name}={value!r}: expected a path like admin/ (letters, digits, - _ . and /)")
    return value + "/"


def env_zone(name: str, default: str) -> str:
    """An IANA time zone name (UTC, Europe/Berlin), checked against the zone database."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = env_str(name, default).strip()
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise EnvError(f"{name}={value!r} is not an IANA time zone name (UTC, Europe/Berlin, "
                       "America/Chicago)") from None
    return value


def env_site_url(name: str, default: str) -> str:
    """An absolute http(s) address of this site (https://cellar.example.org), no trailing slash."""
    value = env_str(name, default).strip().rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise EnvError(f"{name}={value!r}: expected an absolute http:// or https:// address such as "
                       "https://cellar.example.org")
    return value
