"""ISO 8601 times as Cellar reads and writes them: UTC, with a Z. Pure."""
from __future__ import annotations

from datetime import UTC, datetime


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
