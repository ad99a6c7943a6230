"""Formatting for the status pages: durations like the 1995 tables, SI counts, SVG history strips."""
from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from collector.core import facts

register = template.Library()


@register.filter
def dur(seconds) -> str:
    """Time in a state, as table 2c: '10d 06:27', '3d 10:30', '08:52:08' under a day."""
    if seconds is None or seconds == "":
        return "-"
    s = int(seconds)
    days, rest = divmod(s, 86400)
    h, rest = divmod(rest, 3600)
    m, sec = divmod(rest, 60)
    if days:
        return f"{days}d {h:02d}:{m:02d}"
    return f"{h:02d}:{m:02d}:{sec:02d}"


@register.filter
def uptime(seconds) -> str:
    """As table 2b's header: '10 days, 6:26'."""
    if seconds is None:
        return "unknown"
    s = int(seconds)
    days, rest = divmod(s, 86400)
    h, rest = divmod(rest, 3600)
    m = rest // 60
    head = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    return f"{head}{h}:{m:02d}"


@register.filter
def si(value, digits: int = 1) -> str:
    """68_000_000 -> '68.0 M' (the 'Cells 68 M' of table 2c)."""
    if value is None or value == "":
        return "-"
    v = float(value)
    for limit, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= limit:
            return f"{v / limit:.{int(digits)}f} {suffix}"
    return f"{v:.0f}"


@register.filter
def num(value, digits: int = 0) -> str:
    """A number with thousands separators, '-' when unknown."""
    if value is None or value == "":
        return "-"
    if isinstance(value, int) and not int(digits):
        return f"{value:,}"                 # exact: counters can exceed a float's 53 bits
    return f"{float(value):,.{int(digits)}f}"


@register.filter
def rate(value) -> str:
    """A rate with precision that fits its size (no '0.0' for a trickle)."""
    if value is None or value == "":
        return "-"
    v = float(value)
    if v == 0:
        return "0"
    if abs(v) < 1:
        return f"{v:.3f}"
    if abs(v) < 100:
        return f"{v:.1f}"
    return f"{v:,.0f}"


@register.filter
def quantity(value, unit: str = "") -> str:
    """A measured value with its unit and three significant digits: '24.0 Mb/s', '92.0 %', '600 s'
    (collector/core/facts.quantity, the one way rates are written)."""
    return facts.quantity(None if value is None or value == "" else float(value), unit or "")


@register.filter
def utc(value: datetime | None) -> str:
    if not value:
        return "-"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


@register.filter
def ago(value: datetime | None) -> str:
    """'12 s ago', '5 min ago', '3 h ago', '2 d ago'."""
    if not value:
        return "never"
    s = (timezone.now() - value).total_seconds()
    future = s < 0
    s = abs(s)
    if s < 90:
        txt = f"{s:.0f} s"
    elif s < 5400:
        txt = f"{s / 60:.0f} min"
    elif s < 172800:
        txt = f"{s / 3600:.0f} h"
    else:
        txt = f"{s / 86400:.0f} d"
    return f"in {txt}" if future else f"{txt} ago"


@register.simple_tag
def when(value: datetime | None, fmt: str = "full"):
    """<time> element: the time in the viewer's zone (webapp/personal: activated per request),
    with the zone and how long ago it was in the title; the datetime attribute stays UTC.
    fmt: "full" (to the second), "ms" (to the millisecond) or "short" (the time of day)."""
    if not value:
        return mark_safe('<span class="muted">never</span>')
    local = timezone.localtime(value)
    text = local.strftime("%Y-%m-%d %H:%M:%S" if fmt in ("full", "ms") else "%H:%M:%S")
    if fmt == "ms":      # an experiment's window: its edges to the millisecond, as entered
        text += f".{local.microsecond // 1000:03d}"
    return format_html('<time datetime="{}" title="{} {} · {}">{}</time>', value.astimezone(UTC).isoformat(),
                       local.tzname(), timezone.get_current_timezone_name(), ago(value), text)


@register.simple_tag
def zone_name() -> str:
    """The zone the page's times are in (the viewer's)."""
    return timezone.get_current_timezone_name()


@register.filter
def status_class(status: str) -> str:
    return {"up": "ok", "ok": "ok", "responding": "ok", "partial": "warn", "mixed": "warn", "down": "bad",
            "broken": "bad", "incomplete": "warn", "terminates": "muted", "failing": "bad", "unreachable": "bad",
            "stale": "warn", "testing": "warn", "dormant": "warn", "lowerLayerDown": "bad"}.get(status or "", "muted")


@register.simple_tag
def vpvc(vpi, vci) -> str:
    """'0/210' for a VC, 'VP 7' for a whole virtual path."""
    return f"VP {vpi}" if vci is None else f"{vpi}/{vci}"


@register.filter
def vcfmt(vci) -> str:
    return "-" if vci is None else str(vci)


@register.simple_tag
def history_strip(buckets, width: int = 240, height: int = 26, rtt_scale=None):
    """Reachability (coloured cells) and delay (line, right-hand scale) over time, as inline SVG:
    readable without JavaScript; each cell's tooltip (<title>) tells its numbers."""
    n = len(buckets)
    if not n:
        return ""
    bw = width / n
    top = 3
    bar_h = height - top
    rtts = [b.rtt_avg for b in buckets if b.rtt_avg is not None]
    scale = float(rtt_scale or (max(rtts) if rtts else 0)) or 1.0
    colours = {"up": "#3fa35a", "down": "#d1453b", "mixed": "#d9a21b", "none": "#e4e7ec"}
    cells = []
    for i, b in enumerate(buckets):
        x = i * bw
        tip = f"{b.start.astimezone(UTC):%Y-%m-%d %H:%M} UTC: "
        if b.checks:
            tip += f"{b.ok}/{b.checks} checks answered"
            if b.rtt_avg is not None:
                tip += f", delay avg {b.rtt_avg:.1f} ms, max {b.rtt_max:.1f} ms"
        else:
            tip += "not checked"
        cells.append((f"{x:.2f}", top, f"{max(bw - 0.6, 0.5):.2f}", bar_h, colours[b.state], tip))
    rects = format_html_join("", '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>', cells)
    points = []
    for i, b in enumerate(buckets):
        if b.rtt_avg is not None:
            y = top + bar_h - 2 - (bar_h - 4) * min(1.0, b.rtt_avg / scale)
            points.append(f"{i * bw + bw / 2:.1f},{y:.1f}")
    line = ""
    if len(points) > 1:
        line = format_html('<polyline points="{}" fill="none" stroke="#17212f" stroke-width="1.2"/>', " ".join(points))
    elif len(points) == 1:
        cx, cy = points[0].split(",")
        line = format_html('<circle cx="{}" cy="{}" r="1.6" fill="#17212f"/>', cx, cy)
    label = ""
    if height >= 40 and rtts:
        label = format_html('<text x="{}" y="11" text-anchor="end" font-size="10" fill="#17212f" '
                            'stroke="#fff" stroke-width="3" paint-order="stroke">delay: top = {} ms</text>',
                            width - 3, rate(scale))
    return format_html('<svg class="strip" width="{}" height="{}" viewBox="0 0 {} {}" role="img" '
                       'aria-label="reachability and delay history">{}{}{}</svg>', width, height, width, height,
                       rects, line, label)


@register.simple_tag(takes_context=True)
def nav_class(context, *prefixes: str) -> str:
    """'active' when the page is under one of the prefixes (a menu names all of its items')."""
    request = context.get("request")
    path = getattr(request, "path", "")
    hit = any(path == "/" if prefix == "/" else path.startswith(prefix) for prefix in prefixes)
    return "active" if hit else ""


@register.simple_tag
def known_inventory(limit: int = 50):
    """Switches and hosts for the 404 page (two small queries)."""
    from django.db import DatabaseError

    from collector.inventory.models import Host, Switch

    try:
        return {"switches": list(Switch.objects.order_by("name").values_list("name", flat=True)[:limit]),
                "hosts": list(Host.objects.order_by("name").values_list("name", flat=True)[:limit])}
    except DatabaseError:      # a 404 page must render even when the database does not answer
        return {"switches": [], "hosts": []}


@register.simple_tag
def pair(a, b) -> str:
    """'155.5' when both directions agree, else 'in / out'."""
    if a == b or (a is not None and b is not None and abs(float(a) - float(b)) < 1e-9):
        return rate(a)
    return f"{rate(a)} / {rate(b)}"
