"""ISO 8601 times as Cellar reads and writes them: UTC, with a Z. Pure."""
from __future__ import annotations

from datetime import UTC, datetime

# PostgreSQL's epoch, 2000-01-01T00:00:00Z, in Unix seconds: a binary timestamptz (COPY binary, the
# binary protocol) is int64 microseconds since it.
PG_EPOCH_S = 946_684_800


def iso(t: datetime) -> str:
    """ISO 8601 UTC with a Z (fractions of a second only when there are some)."""
    return t.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def parse_iso(text: str) -> datetime:
    """An aware UTC datetime from ISO 8601 ("2026-11-22T10:00:00Z", "+01:00", a space for the T;
    no offset means UTC). ValueError when it is not one."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    if " " in value and "T" not in value:
        value = value.replace(" ", "T", 1)
    t = datetime.fromisoformat(value)
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def parse_optional(name: str, text: str | None) -> datetime | None:
    """parse_iso of a user's input, None when empty; ValueError whose message names the input and
    shows the expected form (the one wording of this error in pages, the API, CSV and the CLI)."""
    value = (text or "").strip()
    if not value:
        return None
    try:
        return parse_iso(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not an ISO 8601 time (e.g. 2026-11-22T10:00:00Z)") from None
