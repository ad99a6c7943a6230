"""Query parameters of the traffic pages, API and CSV export: parsed and checked here. Pure.

Every way a request can be wrong raises BadRequest with a message that says what was wrong and
what is accepted; views turn it into a 400. The same parameters make a page URL, an API call
and a CSV download, so a plot can be bookmarked, shared and exported as it is seen.

  s=12,13        series ids (repeatable)            range=1h|3h|24h|7d|30d|1y|all|custom
  g=7            a group's members instead (stacked, with their total line: webapp/traffic/grouptotal.py)
  start, end     ISO 8601 (UTC if no offset)        unit=auto|cells|mbps_cells|mbps_payload|bps|pps|eps|pct
  res=auto|raw|1m|15m|1h|1d                         stack=1 (stack the series)
  compare=1d,1w | 12:1d   the same series an offset earlier (all series, or series 12 only), dashed
  tz=Europe/Berlin        the zone times are shown in (default: the viewer's); data stays UTC
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from collector.core.facts import EARLIEST_DATA
from collector.core.isotime import iso, parse_optional
from collector.reader import resolution, units

MAX_SERIES = 50
# Values (series x points at the chosen resolution) one request may read: the plot's JSON, and
# a CSV even as a background export (a year of 15-second samples of 50 series is 105 million).
# A CSV above CELLAR_CSV_SYNC_MAX_CELLS is not streamed but offered as a background export.
MAX_PLOT_CELLS = 1_000_000
MAX_EXPORT_CELLS = 200_000_000
FUTURE_SLACK = timedelta(days=1)
# range=auto (what the plot page opens on): the last 24 h, or less when the series' data began
# later, so a young archive is not a nearly empty plot with a point at its right edge.
AUTO_SPAN = timedelta(hours=24)
RANGE_VALUES = (*resolution.RANGE_CHOICES, "auto")
MAX_SPAN = timedelta(days=366 * 30)


class BadRequest(ValueError):
    """The request cannot be answered as asked; str() is the message for the user."""


MAX_COMPARE = 4          # compare entries (offsets, or series:offset) one request may give
COMPARE_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
_COMPARE = re.compile(r"^(?:(\d+):)?(\d+)([mhdwy])$")


@dataclass(frozen=True)
class Compare:
    """One comparison: `series` (None: every series of the plot) an `offset` earlier."""
    offset: timedelta
    series: int | None = None

    @property
    def text(self) -> str:
        """1d, 7d, 90m... as given in a query (the largest unit that divides it)."""
        s = int(self.offset.total_seconds())
        for unit in "ywdhm":
            if s % COMPARE_UNITS[unit] == 0:
                return f"{s // COMPARE_UNITS[unit]}{unit}"
        return f"{s // 60}m"

    @property
    def words(self) -> str:
        """'1 day', '1 week', '90 minutes'."""
        n, unit = int(self.text[:-1]), self.text[-1]
        word = {"m": "minute", "h": "hour", "d": "day", "w": "week", "y": "year"}[unit]
        return f"{n} {word}{'s' if n != 1 else ''}"

    def query_text(self) -> str:
        return self.text if self.series is None else f"{self.series}:{self.text}"


def parse_compare(params: Mapping, ids: tuple[int, ...]) -> tuple[Compare, ...]:
    """compare=1d,7d (every series) or compare=12:1d (series 12 only), repeatable."""
    getlist = getattr(params, "getlist", None)
    raw = getlist("compare") if getlist else ([params["compare"]] if "compare" in params else [])
    found: list[Compare] = []
    for chunk in raw:
        for part in chunk.split(","):
            part = part.strip().lower()
            if not part:
                continue
            m = _COMPARE.match(part)
            if not m:
                raise BadRequest(f"compare={part!r}: give an offset such as 1d, 7d, 1w, 12h, 90m or 1y "
                                 "(m, h, d, w, y), or series:offset (12:1d) for one series")
            offset = timedelta(seconds=int(m.group(2)) * COMPARE_UNITS[m.group(3)])
            if offset <= timedelta(0):
                raise BadRequest(f"compare={part!r}: the offset must be more than zero")
            if offset > MAX_SPAN:
                raise BadRequest(f"compare={part!r} is more than {MAX_SPAN.days} days back")
            series = int(m.group(1)) if m.group(1) else None
            if series is not None and series not in ids:
                raise BadRequest(f"compare={part!r}: series {series} is not in the plot (s=...)")
            c = Compare(offset, series)
            if c not in found:
                found.append(c)
    if len(found) > MAX_COMPARE:
        raise BadRequest(f"{len(found)} comparisons asked; a plot compares at most {MAX_COMPARE}")
    lines = sum(len(ids) if c.series is None else 1 for c in found)
    if lines and len(ids) + lines > MAX_SERIES:
        raise BadRequest(f"{len(ids)} series and {lines} comparison lines make {len(ids) + lines} lines; "
                         f"one plot shows at most {MAX_SERIES}")
    return tuple(found)


def parse_zone(params: Mapping) -> str:
    """tz=<IANA name> (checked), or '' for the viewer's own zone."""
    name = single(params, "tz", "").strip()
    if not name:
        return ""
    try:
        if name.startswith("/") or ".." in name:
            raise ValueError(name)
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError):
        raise BadRequest(f"unknown time zone tz={name!r}: use an IANA name such as UTC, Europe/Berlin, "
                         "America/Chicago") from None


@dataclass(frozen=True)
class PlotRequest:
    series_ids: tuple[int, ...] = ()
    range: str = "24h"
    start: datetime | None = None       # explicit (custom) start, UTC
    end: datetime | None = None
    unit: str = "auto"
    res: str = "auto"
    stack: bool = False
    group: int | None = None            # a group (collector/groups) whose members are the series
    compare: tuple[Compare, ...] = ()
    tz: str = ""                        # display zone ('' = the viewer's); times in data stay UTC

    def query(self, **override: Any) -> str:
        """The query string of this request (what a bookmark holds)."""
        r = replace(self, **override) if override else self
        q: list[tuple[str, str]] = []
        if r.group is not None:
            q.append(("g", str(r.group)))
        elif r.series_ids:
            q.append(("s", ",".join(map(str, r.series_ids))))
        if r.range == "custom" and r.start and r.end:
            q += [("start", iso(r.start)), ("end", iso(r.end))]
        else:
            q.append(("range", r.range))
        if r.unit != "auto":
            q.append(("unit", r.unit))
        if r.res != "auto":
            q.append(("res", r.res))
        if r.stack:
            q.append(("stack", "1"))
        if r.compare:
            q.append(("compare", ",".join(c.query_text() for c in r.compare)))
        if r.tz:
            q.append(("tz", r.tz))
        return urlencode(q, safe=",:/")


def parse_time(name: str, text: str) -> datetime:
    try:
        t = parse_optional(name, text)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    if t is None:
        raise BadRequest(f"{name} is empty: give an ISO 8601 time (e.g. 2026-11-22T10:00:00Z)")
    return t


def single(params: Mapping, name: str, default: str = "") -> str:
    getlist = getattr(params, "getlist", None)
    values = getlist(name) if getlist else ([params[name]] if name in params else [])
    values = [v for v in values if v != ""]
    if len(values) > 1:
        raise BadRequest(f"{name} is given {len(values)} times; give it once")
    return values[0] if values else default


def parse_ids(params: Mapping) -> tuple[int, ...]:
    getlist = getattr(params, "getlist", None)
    raw = getlist("s") if getlist else ([params["s"]] if "s" in params else [])
    ids: list[int] = []
    for chunk in raw:
        for part in chunk.split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                raise BadRequest(f"series id {part!r} is not a number (s=12,13 selects series 12 and 13)")
            if int(part) not in ids:
                ids.append(int(part))
    if len(ids) > MAX_SERIES:
        raise BadRequest(f"{len(ids)} series asked; one plot shows at most {MAX_SERIES}")
    return tuple(ids)


def parse_window(params: Mapping, choices: tuple[str, ...]) -> tuple[str, datetime | None, datetime | None]:
    """(range, start, end) of a request: a range among `choices` (custom: start and end, ISO 8601)."""
    start_text, end_text = single(params, "start"), single(params, "end")
    rng = single(params, "range", "custom" if (start_text or end_text) else "24h")
    if rng not in choices:
        raise BadRequest(f"unknown range {rng!r}; use one of {', '.join(c for c in choices if c != 'custom')} "
                         "(custom: give start and end)")
    start = parse_time("start", start_text) if start_text else None
    end = parse_time("end", end_text) if end_text else None
    if rng == "custom" and start is None:
        raise BadRequest("a custom range needs start (and end, default now), ISO 8601")
    if rng != "custom" and (start or end):
        raise BadRequest(f"range={rng} and start/end contradict; give one or the other")
    return rng, start, end


def parse(params: Mapping) -> PlotRequest:
    ids = parse_ids(params)
    group_text = single(params, "g").strip()
    if group_text and not group_text.isdigit():
        raise BadRequest(f"group {group_text!r} is not a group id (g=7 plots group 7: see /groups/)")
    if group_text and ids:
        raise BadRequest("give the series (s=) or a group (g=), not both")
    unit = single(params, "unit", "auto")
    if unit not in units.CHOICES:
        raise BadRequest(f"unknown unit {unit!r}; use one of {', '.join(units.CHOICES)}")
    res = single(params, "res", "auto")
    if res not in resolution.CHOICES:
        raise BadRequest(f"unknown resolution {res!r}; use one of {', '.join(resolution.CHOICES)}")
    stack = on_off(params, "stack", bool(group_text))
    rng, start, end = parse_window(params, RANGE_VALUES)
    return PlotRequest(ids, rng, start, end, unit, res, stack, group=int(group_text) if group_text else None,
                       compare=parse_compare(params, ids), tz=parse_zone(params))


ON, OFF = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def on_off(params: Mapping, name: str, default: bool) -> bool:
    """A switch parameter (stack, figure, points, p95, raw): 1/0, true/false, on/off, yes/no."""
    text = single(params, name, "").strip().lower()
    if not text:
        return default
    if text not in ON + OFF:
        raise BadRequest(f"{name}={text!r}: use {name}=1 or {name}=0")
    return text in ON


def auto_start(now: datetime, first_data: datetime | None) -> datetime:
    """range=auto: 24 h back, or from a little before the first data when that is younger (a
    margin of a twentieth of its age, at least a minute, so the first point is not on the edge)."""
    start = now - AUTO_SPAN
    if first_data is None or first_data <= start:
        return start
    age = now - first_data
    return max(start, first_data - max(age / 20, timedelta(minutes=1)))


def resolve_range(req: PlotRequest, now: datetime, first_data: datetime | None) -> tuple[datetime, datetime]:
    """[start, end) in UTC, checked: start before end, not before 1990, not in the future."""
    start: datetime | None
    if req.range == "all":
        start, end = (first_data or now - timedelta(hours=1)), now
    elif req.range == "auto":
        start, end = auto_start(now, first_data), now
    elif req.range == "custom":
        start, end = req.start, (req.end or now)
    else:
        start, end = now - resolution.RANGES[req.range], now
    assert start is not None and end is not None
    if start >= end:
        raise BadRequest(f"start {iso(start)} is not before end {iso(end)}")
    if start < EARLIEST_DATA:
        raise BadRequest(f"start {iso(start)} is before {EARLIEST_DATA.year}: no switch was polled then")
    if end > now + FUTURE_SLACK:
        raise BadRequest(f"end {iso(end)} is more than a day in the future (now {iso(now)})")
    if end - start > MAX_SPAN:
        raise BadRequest(f"range of {(end - start).days} days is longer than {MAX_SPAN.days} days")
    if end - start < timedelta(seconds=1):
        raise BadRequest("range shorter than one second")
    return start, end
