"""A plot's time axis in the viewer's zone. Pure: a figure of plots.build in, the same figure with
its times as wall-clock times of the zone out (the data, API and CSV times stay UTC).

Plotly has no time zones: a date axis draws the times it is given. So every x of the figure (the
typed x arrays of the lines, the marker and band times, the axis range) is moved by the zone's
UTC offset at that instant, the axis title and hover labels name the zone instead of UTC, and
the times written in hover texts are rewritten. Where clocks go back, the repeated hour is drawn
over the hour before it (both are there, hover tells them apart by value); where they go forward
the line steps across the missing hour. UTC (the default) leaves the figure untouched.

The times are moved by webapp/wallclock.py (the zone's offsets over the range, applied to
whole arrays; a single time, such as an axis end, goes through the same code).
"""
from __future__ import annotations

import base64
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np

from webapp.traffic import plots
from webapp.wallclock import is_utc, shift_ms, wall_clock_text, wall_clock_texts

_STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d(?:\.\d+)?)?)")


def _shift_x(x, zone: ZoneInfo):
    if isinstance(x, dict) and x.get("dtype") == "f8":
        values = np.frombuffer(base64.b64decode(x["bdata"]), "<f8")
        return plots.typed(shift_ms(values, zone))
    if isinstance(x, list) and any(isinstance(v, str) for v in x):
        return wall_clock_texts(x, zone)
    return x


def _label(zone: ZoneInfo, t: datetime) -> str:
    """The zone's abbreviation at t (CET, CEST, CST) or, where it has none, its name."""
    name = t.astimezone(zone).tzname() or zone.key
    return zone.key if name.startswith(("+", "-")) else name


def _shift_words(text: str, zone: ZoneInfo) -> str:
    """Times written in a hover text ('... 2026-11-22 10:00 – 2026-11-22 11:00 UTC') in the zone."""
    if "UTC" not in text:
        return text
    last: list[datetime] = []

    def one(m: re.Match) -> str:
        t = datetime.fromisoformat(m.group(1)).replace(tzinfo=UTC)
        last.append(t)
        local = t.astimezone(zone)
        fmt = "%Y-%m-%d %H:%M:%S" if len(m.group(1)) > 16 else "%Y-%m-%d %H:%M"
        return local.strftime(fmt)

    out = _STAMP.sub(one, text)
    return out.replace(" UTC", " " + (_label(zone, last[-1]) if last else zone.key))


def localize(fig: dict, zone: ZoneInfo) -> dict:
    """The figure with its times in `zone` (in place; returned for convenience)."""
    if is_utc(zone):
        return fig
    for trace in fig.get("data", []):
        if "x" in trace:
            trace["x"] = _shift_x(trace["x"], zone)
        if isinstance(trace.get("hovertemplate"), str):
            trace["hovertemplate"] = trace["hovertemplate"].replace("} UTC", "} " + zone.key)
        if isinstance(trace.get("text"), list):
            trace["text"] = [_shift_words(t, zone) if isinstance(t, str) else t for t in trace["text"]]
    layout = fig.get("layout", {})
    for shape in layout.get("shapes", []):
        if shape.get("xref") == "x":
            for k in ("x0", "x1"):
                if isinstance(shape.get(k), str):
                    shape[k] = wall_clock_text(shape[k], zone)
    for ann in layout.get("annotations", []):
        if ann.get("xref") == "x" and isinstance(ann.get("x"), str):
            ann["x"] = wall_clock_text(ann["x"], zone)
    xaxis = layout.get("xaxis", {})
    if isinstance(xaxis.get("range"), list):
        xaxis["range"] = [wall_clock_text(v, zone) if isinstance(v, str) else v for v in xaxis["range"]]
    title = xaxis.get("title")
    if isinstance(title, dict) and isinstance(title.get("text"), str):
        title["text"] = title["text"].replace("(UTC)", f"({zone.key})")
    return fig


def span_text(start: datetime, end: datetime, zone: ZoneInfo) -> str:
    """'2026-11-22 10:00 – 2026-11-23 10:00 CET' (or UTC): a title's range."""
    a, b = start.astimezone(zone), end.astimezone(zone)
    fmt = "%Y-%m-%d %H:%M"
    la, lb = ("UTC", "UTC") if is_utc(zone) else (_label(zone, start), _label(zone, end))
    return f"{a:{fmt}} {la} – {b:{fmt}} {lb}" if la != lb else f"{a:{fmt}} – {b:{fmt}} {lb}"


def bucket_day_note(res: str, zone: ZoneInfo) -> str | None:
    """Daily buckets are UTC days whatever the zone: say so when the zone is not UTC."""
    if res == "1d" and not is_utc(zone):
        return f"1-day averages are of UTC days (midnight UTC is not midnight in {zone.key})"
    return None
