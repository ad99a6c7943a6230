"""Plotly figures from plotted data. Pure: the same input always gives the same JSON-able dict.

How a series is drawn:
- raw samples: a step line; each rate holds over its own interval (t - interval, t], so an
  average over missed polls (GAP) is a flat segment across the hole, shaded and explained;
- rollup buckets: a step line of the bucket averages and, unless stacked, a thinner line of the
  peaks (the highest single-sample rate in the bucket: MRTG's max envelope);
- gaps (nothing drawn) break the line and are shaded; hovering their marker tells why (flags,
  poll log); flagged samples get markers (OVER_CAPACITY in red at the top: kept, not drawn).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from webapp.traffic.points import FLAG_BITS, Gap, Point, flag_names, flag_text
from webapp.traffic.units import UNITS, Unit

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22")
GAP_FILL = {"nodata": "rgba(120,120,120,0.16)", "withheld": "rgba(194,39,27,0.10)", "missed": "rgba(230,160,0,0.14)"}
GAP_WORD = {"nodata": "no data", "withheld": "no traffic drawn", "missed": "missed polls, drawn as their average"}
SYMBOL = (("OVER_CAPACITY", "x"), ("REBOOT", "triangle-down"), ("RESET", "triangle-down"),
          ("AMBIGUOUS", "hourglass"), ("CLOCK", "hourglass"), ("MISSING", "square-open"),
          ("FIRST", "star-open"), ("GAP", "circle-open"), ("WRAP", "diamond-open"))


def px(t: datetime) -> str:
    """Plotly date string (naive UTC; the axis says UTC)."""
    return t.replace(tzinfo=None).isoformat(sep=" ")


def hhmm(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S") if t.second or t.microsecond else t.strftime("%Y-%m-%d %H:%M")


def fmt(v: float | None, unit: Unit) -> str:
    if v is None:
        return "–"
    if unit.key == "pct":
        return f"{v:.3g} %"
    if unit.key.startswith("mbps"):
        return f"{v:.4g} Mb/s"
    for div, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.4g} {prefix}{unit.short}"
    return f"{v:.4g} {unit.short}"


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _runs(points: list[Point], bucket_s: float | None) -> list[list[Point]]:
    """Maximal runs of drawn points with no hole between them."""
    runs: list[list[Point]] = []
    prev: Point | None = None
    for p in points:
        if not p.drawn:
            prev = None
            continue
        if prev is not None:
            if bucket_s is None:
                joined = p.t - timedelta(seconds=p.span) <= prev.t + timedelta(seconds=1)
            else:
                joined = p.t - prev.t <= timedelta(seconds=bucket_s)
        else:
            joined = False
        if joined:
            runs[-1].append(p)
        else:
            runs.append([p])
        prev = p
    return runs


def _s(v: float | None, f: float) -> float | None:
    return None if v is None else v * f


def _num_format(unit: Unit) -> str:
    """d3-format of a value in hover text."""
    return ".4s" if unit.si else (".3g" if unit.key == "pct" else ".4g")


def _hovertemplate(unit: Unit, bucket_s: float | None, role: str) -> str:
    """Hover text built by Plotly in the browser from customdata (numbers are cheaper to send)."""
    v = _num_format(unit)
    u = unit.short
    if bucket_s is None:
        # customdata: [interval s, flag text]
        return (f"%{{x|%Y-%m-%d %H:%M:%S}} UTC<br>%{{y:{v}}} {u} over %{{customdata[0]:.1f}} s"
                f"%{{customdata[1]}}<extra>%{{fullData.name}}</extra>")
    # customdata: [average, peak, low, samples, % drawn, flagged text]
    return (f"%{{x|%Y-%m-%d %H:%M}} UTC, {_width_text(bucket_s)}<br>average %{{customdata[0]:{v}}} {u} · "
            f"peak %{{customdata[1]:{v}}} · low %{{customdata[2]:{v}}}<br>%{{customdata[3]}} samples, "
            f"%{{customdata[4]:.0f}} % of the time drawn%{{customdata[5]}}<extra>%{{fullData.name}}</extra>")


def _width_text(seconds: float) -> str:
    return {60: "1 min", 900: "15 min", 3600: "1 h", 86400: "1 day"}.get(int(seconds), f"{seconds:.0f} s")


def _custom(p: Point, f: float, bucket_s: float | None) -> list:
    if bucket_s is None:
        return [p.span, ("<br>" + flag_text(p.flags)) if p.flags else ""]
    cover = min(100.0, 100 * p.seconds / bucket_s) if bucket_s else 0.0
    flagged = f", {p.flagged} flagged (zoom in to see them)" if p.flagged else ""
    return [_s(p.avg, f), _s(p.peak, f), _s(p.low, f), p.samples, cover, flagged]


def _line_xy(runs: list[list[Point]], f: float, bucket_s: float | None) -> tuple[list, list, list, list]:
    """x, average y, peak y and customdata of the step lines of all runs (None between runs)."""
    xs: list = []
    avg: list = []
    peak: list = []
    custom: list = []

    def add(x: str, p: Point) -> None:
        xs.append(x)
        avg.append(_s(p.avg, f))
        peak.append(_s(p.peak, f))
        custom.append(_custom(p, f, bucket_s))

    for run in runs:
        if xs:
            xs.append(px(run[0].t))
            avg.append(None)
            peak.append(None)
            custom.append(None)
        if bucket_s is None:
            add(px(run[0].t - timedelta(seconds=run[0].span)), run[0])
        for p in run:
            add(px(p.t), p)
        if bucket_s is not None:
            add(px(run[-1].t + timedelta(seconds=bucket_s)), run[-1])
    return xs, avg, peak, custom


def _symbol(flags: int) -> str:
    names = set(flag_names(flags))
    for name, symbol in SYMBOL:
        if name in names:
            return symbol
    return "circle-open"


def _markers(points: list[Point], f: float, unit: Unit, bucket_s: float | None, color: str,
             top: float | None, stacked: bool) -> dict | None:
    xs, ys, texts, symbols, colors = [], [], [], [], []
    for p in points:
        if bucket_s is None:
            if not p.flags:
                continue
            if p.drawn:
                y = 0.0 if stacked else _s(p.avg, f)
            elif p.flags & FLAG_BITS["OVER_CAPACITY"] and top is not None:
                y = top
            else:
                y = 0.0
            xs.append(px(p.t))
            ys.append(y)
            value = p.stored / p.span * f if p.stored is not None and p.span else None
            texts.append(f"{hhmm(p.t)} UTC<br>{flag_text(p.flags)}"
                         + (f"<br>stored delta {p.stored:,} ({fmt(value, unit)})" if p.stored is not None else ""))
            symbols.append(_symbol(p.flags))
            colors.append(color if p.drawn else "#c2271b")
        else:
            if not p.flagged:
                continue
            xs.append(px(p.t + timedelta(seconds=bucket_s / 2)))
            ys.append(0.0 if stacked or p.avg is None else _s(p.avg, f))
            texts.append(f"{hhmm(p.t)} UTC<br>{p.flagged} of {p.samples} samples flagged "
                         "(missed polls, reboots, resets, over capacity...): zoom in to see them")
            symbols.append("circle-open")
            colors.append(color if p.drawn else "#c2271b")
    if not xs:
        return None
    return {"type": "scatter", "mode": "markers", "x": xs, "y": ys, "text": texts,
            "hovertemplate": "%{text}<extra></extra>", "showlegend": False,
            "marker": {"symbol": symbols, "color": colors, "size": 9, "line": {"width": 1.5}}}


def build(plotted: list, unit_key: str, res: str, res_seconds: float, start: datetime, end: datetime,
          stack: bool) -> dict:
    """plotted: service.Plotted items (info, factor, points, gaps, stats). Returns {data, layout}."""
    unit = UNITS[unit_key]
    bucket_s = None if res == "raw" else res_seconds
    data: list[dict] = []
    shapes: list[dict] = []
    peak_all = 0.0
    for i, pl in enumerate(plotted):
        color = _color(i)
        f = pl.factor
        runs = _runs(pl.points, bucket_s)
        xs, ys, peak_ys, custom = _line_xy(runs, f, bucket_s)
        trace = {"type": "scatter", "mode": "lines", "name": pl.info.label, "x": xs, "y": ys, "customdata": custom,
                 "hovertemplate": _hovertemplate(unit, bucket_s, "average"), "legendgroup": str(pl.info.id),
                 "line": {"color": color, "width": 1.6, "shape": "vh" if bucket_s is None else "hv"},
                 "connectgaps": False, "meta": {"series": pl.info.id, "role": "average"}}
        if stack:
            trace["stackgroup"] = "stack"
            trace["stackgaps"] = "infer zero"
        data.append(trace)
        if bucket_s is not None and not stack:
            data.append({"type": "scatter", "mode": "lines", "name": f"{pl.info.label} peak", "x": xs, "y": peak_ys,
                         "customdata": custom, "hovertemplate": _hovertemplate(unit, bucket_s, "peak"),
                         "legendgroup": str(pl.info.id), "opacity": 0.55, "connectgaps": False,
                         "line": {"color": color, "width": 1, "dash": "dot", "shape": "hv"},
                         "meta": {"series": pl.info.id, "role": "peak"}})
        peaks = [p.peak for p in pl.points if p.peak is not None]
        if peaks:
            peak_all = max(peak_all, max(peaks) * f)
        top = None
        if pl.info.capacity_per_s:
            top = pl.info.capacity_per_s * f * 1.02
        elif peaks:
            top = max(peaks) * f * 1.05
        markers = _markers(pl.points, f, unit, bucket_s, color, top, stack)
        if markers:
            markers["name"] = f"{pl.info.label} flags"
            markers["legendgroup"] = str(pl.info.id)
            markers["meta"] = {"series": pl.info.id, "role": "flags"}
            data.append(markers)
    gap_trace, gap_shapes = _gaps(plotted)
    shapes += gap_shapes
    if gap_trace:
        data.append(gap_trace)
    shapes += _capacity(plotted, unit, peak_all, stack)
    layout = {
        "xaxis": {"type": "date", "range": [px(start), px(end)], "title": {"text": "time (UTC)"}},
        "yaxis": {"title": {"text": unit.label}, "rangemode": "tozero", "fixedrange": True,
                  "tickformat": "~s" if unit.si else "", "automargin": True},
        "hovermode": "closest", "showlegend": True,
        "legend": {"orientation": "h", "x": 0, "y": -0.18},
        "margin": {"l": 70, "r": 20, "t": 20, "b": 40},
        "shapes": shapes, "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff",
        "font": {"family": "system-ui, sans-serif", "size": 12},
    }
    return {"data": data, "layout": layout}


def _gaps(plotted: list) -> tuple[dict | None, list[dict]]:
    seen: dict[tuple, Gap] = {}
    labels: dict[tuple, list[str]] = {}
    for pl in plotted:
        for g in pl.gaps:
            key = (g.lo, g.hi, g.kind, g.text())
            seen.setdefault(key, g)
            labels.setdefault(key, []).append(pl.info.label)
    shapes, xs, ys, texts = [], [], [], []
    for key, g in sorted(seen.items(), key=lambda kv: kv[0][0]):
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": px(g.lo), "x1": px(g.hi), "y0": 0,
                       "y1": 1, "fillcolor": GAP_FILL[g.kind], "line": {"width": 0}, "layer": "below"})
        xs.append(px(g.lo + (g.hi - g.lo) / 2))
        ys.append(0.0)
        who = labels[key]
        texts.append(f"{GAP_WORD[g.kind]}: {hhmm(g.lo)} – {hhmm(g.hi)} UTC<br>{g.text()}<br>"
                     + ", ".join(who[:4]) + (f" (+{len(who) - 4})" if len(who) > 4 else ""))
    if not xs:
        return None, shapes
    return ({"type": "scatter", "mode": "markers", "name": "gaps (hover for why)", "x": xs, "y": ys, "text": texts,
             "hovertemplate": "%{text}<extra></extra>", "meta": {"role": "gaps"},
             "marker": {"symbol": "line-ns-open", "size": 14, "color": "#667085", "line": {"width": 2}}}, shapes)


def _capacity(plotted: list, unit: Unit, peak: float, stack: bool) -> list[dict]:
    """A dashed line at line rate when the traffic comes near it (or always in % of capacity)."""
    if unit.key == "pct":
        level = 100.0
    else:
        levels = {pl.info.capacity_per_s * pl.factor for pl in plotted if pl.info.capacity_per_s}
        if len(levels) != 1 or len({pl.info.capacity_per_s for pl in plotted}) != 1:
            return []
        level = levels.pop()
    if peak < 0.5 * level:
        return []
    return [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": level, "y1": level,
             "line": {"color": "#c2271b", "width": 1, "dash": "dash"}}]
