"""Plotly figures from plotted data. Pure: the same input always gives the same JSON-able dict.

How a series is drawn:
- x values are epoch milliseconds and the long columns travel as Plotly typed arrays (base64 of
  little-endian binary: x float64, y float32 — 7 digits, the hover shows 4 —, hover % uint8):
  a year of 48 ports is built and encoded without a Python loop, in a third of the JSON;
- raw samples: a step line; each rate holds over its own interval (t - interval, t], so an
  average over missed polls (GAP) is a flat segment across the hole, shaded and explained;
- rollup buckets: a step line of the bucket averages and, unless stacked, a thinner line of the
  peaks (the highest single-sample rate in the bucket: MRTG's max envelope);
- gaps (nothing drawn) break the line and are shaded; hovering their marker tells why (flags,
  poll log); flagged samples get markers (OVER_CAPACITY in red at the top: kept, not drawn).
"""
from __future__ import annotations

import base64
from datetime import datetime, timedelta

import numpy as np

from collector.core.facts import Flag, flag_meanings, flag_names, rate_text, significant
from collector.reader.points import Columns, Gap, at
from collector.reader.units import UNITS, Unit

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
    """A rate of the plot's unit as the hover writes it (facts.rate_text: the pages' way)."""
    if v is None:
        return "–"
    if unit.key == "pct":
        return rate_text(v, "%", 3)
    if not unit.si:                  # Mb/s already: no further prefix
        return f"{significant(v, 4)} {unit.short}"
    return rate_text(v, unit.short, 4)


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


DTYPES = {"f8": "<f8", "f4": "<f4", "u1": "u1"}


def typed(values: np.ndarray, dtype: str = "f8") -> dict:
    """A column as a Plotly typed array {dtype, bdata: base64}; NaN breaks a line like null."""
    data = np.ascontiguousarray(values, dtype=DTYPES[dtype]).tobytes()
    return {"dtype": dtype, "bdata": base64.b64encode(data).decode("ascii")}


def runs(c: Columns, bucket_s: float | None) -> list[tuple[int, int]]:
    """[i, j) index ranges of drawn points with no hole between them."""
    n = len(c)
    if not n:
        return []
    drawn = c.seconds > 0
    if bucket_s is None:
        joined = c.t[1:] - c.span[1:] <= c.t[:-1] + 1
    else:
        joined = c.t[1:] - c.t[:-1] <= bucket_s
    # a run starts at a drawn point whose predecessor is not drawn or not joined to it
    starts = drawn.copy()
    starts[1:] &= ~(drawn[:-1] & joined)
    ends = drawn.copy()
    ends[:-1] &= ~(drawn[1:] & joined)
    return list(zip(np.flatnonzero(starts).tolist(), (np.flatnonzero(ends) + 1).tolist()))


def _line_xy(c: Columns, f: float, bucket_s: float | None) -> tuple[np.ndarray, ...]:
    """x (epoch ms), average y, peak y and hover value of the step lines of all runs (NaN between
    runs). A bucket run ends with its last value held to the end of its bucket; a raw run starts
    with its first value at the beginning of its first interval. Hover value: the sample's
    interval in seconds (raw) or the % of the bucket's time drawn."""
    avg, peak = c.avg() * f, c.peak * f
    extra = c.span if bucket_s is None else np.minimum(100.0, c.seconds * (100 / bucket_s))
    idx: list[np.ndarray] = []          # which point each drawn vertex shows
    xs: list[np.ndarray] = []
    for i, j in runs(c, bucket_s):
        if idx:                          # break the line: a vertex with no value
            idx.append(np.array([-1]))
            xs.append(c.t[i:i + 1])
        if bucket_s is None:
            idx.append(np.array([i]))
            xs.append(c.t[i:i + 1] - c.span[i:i + 1])
        idx.append(np.arange(i, j))
        xs.append(c.t[i:j])
        if bucket_s is not None:
            idx.append(np.array([j - 1]))
            xs.append(c.t[j - 1:j] + bucket_s)
    if not idx:
        empty = np.array([], dtype=np.float64)
        return empty, empty, empty, empty
    k = np.concatenate(idx)
    gap = k < 0

    def pick(col: np.ndarray) -> np.ndarray:
        out = col[k]
        out[gap] = np.nan
        return out

    return np.concatenate(xs) * 1000, pick(avg), pick(peak), pick(extra)


def _num_format(unit: Unit) -> str:
    """d3-format of a value in hover text."""
    return ".4s" if unit.si else (".3g" if unit.key == "pct" else ".4g")


def _hovertemplate(unit: Unit, bucket_s: float | None, role: str) -> str:
    """Hover text built by Plotly in the browser from the values (customdata: one number a point)."""
    v = _num_format(unit)
    u = unit.short
    if bucket_s is None:
        return (f"%{{x|%Y-%m-%d %H:%M:%S}} UTC<br>%{{y:{v}}} {u} over %{{customdata:.1f}} s"
                f"<extra>%{{fullData.name}}</extra>")
    word = "peak" if role == "peak" else "average"
    return (f"%{{x|%Y-%m-%d %H:%M}} UTC, {_width_text(bucket_s)}<br>{word} %{{y:{v}}} {u}<br>"
            f"%{{customdata:.0f}} % of the time drawn<extra>%{{fullData.name}}</extra>")


def _width_text(seconds: float) -> str:
    return {60: "1 min", 900: "15 min", 3600: "1 h", 86400: "1 day"}.get(int(seconds), f"{seconds:.0f} s")


def _symbol(flags: int) -> str:
    names = set(flag_names(flags))
    for name, symbol in SYMBOL:
        if name in names:
            return symbol
    return "circle-open"


def _markers(c: Columns, f: float, unit: Unit, bucket_s: float | None, color: str,
             top: float | None, stacked: bool) -> dict | None:
    """Flagged samples (raw) or buckets with flagged samples: few, so plain lists with text."""
    xs, ys, texts, symbols, colors = [], [], [], [], []
    if bucket_s is None:
        flag_bits, stored_deltas = c.raw_flags()
        marked = flag_bits
    else:
        marked = c.flagged
    for k in np.flatnonzero(marked).tolist():
        t, drawn = at(float(c.t[k])), bool(c.seconds[k] > 0)
        avg = int(c.delta[k]) / float(c.seconds[k]) * f if drawn else None
        if bucket_s is None:
            flags, stored, span = int(flag_bits[k]), stored_deltas[k], float(c.span[k])
            if drawn:
                y = 0.0 if stacked else avg
            elif flags & Flag.OVER_CAPACITY and top is not None:
                y = top
            else:
                y = 0.0
            xs.append(px(t))
            ys.append(y)
            value = stored / span * f if stored is not None and span else None
            texts.append(f"{hhmm(t)} UTC<br>{flag_meanings(flags)}"
                         + (f"<br>stored delta {stored:,} ({fmt(value, unit)})" if stored is not None else ""))
            symbols.append(_symbol(flags))
        else:
            xs.append(px(t + timedelta(seconds=bucket_s / 2)))
            ys.append(0.0 if stacked or avg is None else avg)
            texts.append(f"{hhmm(t)} UTC<br>{int(c.flagged[k])} of {int(c.samples[k])} samples flagged "
                         "(missed polls, reboots, resets, over capacity...): zoom in to see them")
            symbols.append("circle-open")
        colors.append(color if drawn else "#c2271b")
    if not xs:
        return None
    return {"type": "scatter", "mode": "markers", "x": xs, "y": ys, "text": texts,
            "hovertemplate": "%{text}<extra></extra>", "showlegend": False,
            "marker": {"symbol": symbols, "color": colors, "size": 9, "line": {"width": 1.5}}}


def build(plotted: list, unit_key: str, res: str, res_seconds: float, start: datetime, end: datetime,
          stack: bool) -> dict:
    """plotted: service.Plotted items (info, factor, cols, gaps, stats). Returns {data, layout}."""
    unit = UNITS[unit_key]
    bucket_s = None if res == "raw" else res_seconds
    data: list[dict] = []
    shapes: list[dict] = []
    peak_all = 0.0
    for i, pl in enumerate(plotted):
        color = _color(i)
        f = pl.factor
        x, y, peak_y, extra = _line_xy(pl.cols, f, bucket_s)
        xs, ys, peak_ys = typed(x), typed(y, "f4"), typed(peak_y, "f4")
        # hover: interval seconds (raw) or whole % of the bucket drawn (0 where the line breaks)
        custom = typed(extra, "f4") if bucket_s is None else typed(np.nan_to_num(np.round(extra)), "u1")
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
        peak = pl.stats.peak
        if peak is not None:
            peak_all = max(peak_all, peak * f)
        top = None
        if pl.info.capacity_per_s:
            top = pl.info.capacity_per_s * f * 1.02
        elif peak is not None:
            top = peak * f * 1.05
        markers = _markers(pl.cols, f, unit, bucket_s, color, top, stack)
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
