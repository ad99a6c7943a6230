"""Billing periods: from the billing day of one month to that of the next, at midnight in the
bill's time zone. Pure (zoneinfo).

A billing day beyond the month's last day falls on its last day: day 31 starts the February
period on the 28th (29th in a leap year), the April period on the 30th, the March one on the
31st. Midnight is the zone's (daylight saving time included: such a period is an hour shorter
or longer); stored and compared as UTC instants.
"""
from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Bounds = tuple[datetime, datetime]


def zone(name: str) -> ZoneInfo:
    """The zone of that IANA name ("" is UTC); ValueError for an unknown one."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name!r} is not an IANA time zone name (e.g. Europe/Paris, America/Chicago, UTC)") from None


def day_in_month(year: int, month: int, billing_day: int) -> date:
    """The billing day of that month: the month's last day when it has no such day."""
    if not 1 <= billing_day <= 31:
        raise ValueError(f"billing day {billing_day}: a day of the month, 1 to 31 (31: the last day of "
                         "each month)")
    return date(year, month, min(billing_day, calendar.monthrange(year, month)[1]))


def _shift(year: int, month: int, by: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + by
    return k // 12, k % 12 + 1


def start_of(year: int, month: int, billing_day: int, tz: ZoneInfo) -> datetime:
    """The UTC instant the period of (year, month) starts: local midnight of its billing day."""
    return datetime.combine(day_in_month(year, month, billing_day), time(0), tz).astimezone(UTC)


def containing(t: datetime, billing_day: int, tz: ZoneInfo) -> Bounds:
    """[start, end) of the period that holds instant t."""
    local = t.astimezone(tz)
    year, month = local.year, local.month
    this = start_of(year, month, billing_day, tz)
    if t >= this:
        return this, start_of(*_shift(year, month, 1), billing_day, tz)
    return start_of(*_shift(year, month, -1), billing_day, tz), this


def between(first: datetime, until: datetime, billing_day: int, tz: ZoneInfo) -> list[Bounds]:
    """Every period from the one holding `first` to the one holding `until`, oldest first."""
    out: list[Bounds] = []
    bounds = containing(first, billing_day, tz)
    while bounds[0] <= until:
        out.append(bounds)
        bounds = containing(bounds[1], billing_day, tz)
    return out


def local_day(t: datetime, tz: ZoneInfo) -> str:
    """"2026-02-28" of an instant in the zone (how pages name a period's days)."""
    return t.astimezone(tz).date().isoformat()
