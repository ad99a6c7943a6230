"""A billing period as a Plotly figure and as table rows. Pure: stored Period values in, dicts out.

95th-percentile bills: the rate of every sample interval in and out (and in + out for the sum
rule), the billed percentile and the committed rate as dashed lines; intervals without measured
traffic are gaps. Quota bills: the billed volume cumulated over the period against the quota.
Times are the bill's zone's wall clock (its billing day starts at its midnight).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

MBPS = 1e6
GB = 1e9


def interval_starts(start: datetime, width: int, n: int) -> list[datetime]:
    return [start + timedelta(seconds=width * i) for i in range(n)]


def rates(p) -> dict[str, np.ndarray]:
    """bits/s of each interval, NaN where nothing was measured (in, out, sum)."""
    n = len(p.bins_in)
    secs = np.full(n, float(p.sample_interval_s))
    if n and p.as_of:
        last = (p.as_of - p.start).total_seconds() - p.sample_interval_s * (n - 1)
        secs[-1] = last if last > 0 else secs[-1]
    vin, vout = np.asarray(p.bins_in, float), np.asarray(p.bins_out, float)
    mi, mo = np.asarray(p.measured_in_s, float) > 0, np.asarray(p.measured_out_s, float) > 0
    r_in = np.where(mi, vin * 8 / secs, np.nan)
    r_out = np.where(mo, vout * 8 / secs, np.nan)
    r_sum = np.where(mi | mo, (vin + vout) * 8 / secs, np.nan)
    return {"in": r_in, "out": r_out, "sum": r_sum}


def _x(p, tz: ZoneInfo) -> list[str]:
    return [t.astimezone(tz).strftime("%Y-%m-%d %H:%M") for t in interval_starts(p.start, p.sample_interval_s,
                                                                                 len(p.bins_in))]


def _line(y: float, text: str, color: str) -> tuple[dict, dict]:
    shape = {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
             "line": {"color": color, "width": 1.2, "dash": "dash"}}
    note = {"xref": "paper", "x": 1, "xanchor": "right", "yref": "y", "y": y, "yanchor": "bottom", "text": text,
            "showarrow": False, "font": {"color": color, "size": 11}}
    return shape, note


def _clean(values: np.ndarray) -> list[float | None]:
    return [None if v != v else round(float(v), 6) for v in values.tolist()]


def figure(p) -> dict:
    """The period's figure (p: a billing Period)."""
    tz = ZoneInfo(p.zone)
    x = _x(p, tz)
    shapes, notes = [], []
    data: list[dict[str, Any]]          # the traces
    if p.mode == "quota":
        per = {"in": np.nan_to_num(np.asarray(p.bins_in, float)), "out": np.nan_to_num(np.asarray(p.bins_out, float))}
        cum_in, cum_out = np.cumsum(per["in"]) / GB, np.cumsum(per["out"]) / GB
        billed = {"in": cum_in, "out": cum_out, "sum": cum_in + cum_out, "max": np.maximum(cum_in, cum_out)}
        data = [{"type": "scatter", "mode": "lines", "name": f"billed volume ({p.direction})", "x": x,
                 "y": _clean(billed[p.direction]), "line": {"color": "#1f5fa8", "width": 2},
                 "hovertemplate": "%{x}<br>%{y:.4g} GB<extra></extra>"}]
        if p.quota_bytes is not None:
            s, n = _line(p.quota_bytes / GB, f"quota {p.quota_bytes / GB:.4g} GB", "#c2271b")
            shapes.append(s)
            notes.append(n)
        ytitle = "GB since the period began"
    else:
        r = rates(p)
        traces = [("in", "#1f77b4"), ("out", "#2ca02c")] + ([("sum", "#9467bd")] if p.direction == "sum" else [])
        data = [{"type": "scatter", "mode": "lines", "name": f"{d} (Mb/s)", "x": x, "y": _clean(r[d] / MBPS),
                 "connectgaps": False, "line": {"color": c, "width": 1.2, "shape": "hv"},
                 "hovertemplate": "%{x}<br>%{y:.4g} Mb/s<extra>" + d + "</extra>"} for d, c in traces]
        if p.p95_bps is not None:
            s, n = _line(p.p95_bps / MBPS, f"billed 95th ({p.direction}) {p.p95_bps / MBPS:.4g} Mb/s", "#c2271b")
            shapes.append(s)
            notes.append(n)
        if p.committed_bps is not None:
            s, n = _line(p.committed_bps / MBPS, f"committed {p.committed_bps / MBPS:.4g} Mb/s", "#667085")
            shapes.append(s)
            notes.append(n)
        ytitle = "Mb/s per sample interval"
    return {"data": data, "layout": {
        "xaxis": {"type": "date", "title": {"text": f"interval start ({p.zone})"}},
        "yaxis": {"title": {"text": ytitle}, "rangemode": "tozero"}, "shapes": shapes, "annotations": notes,
        "margin": {"l": 70, "r": 20, "t": 20, "b": 50}, "height": 380, "hovermode": "closest",
        "legend": {"orientation": "h", "x": 0, "y": -0.2}, "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff",
        "font": {"family": "system-ui, sans-serif", "size": 12}}}


INTERVAL_FIELDS = ["start", "start_local", "seconds", "bytes_in", "bytes_out", "measured_in_s", "measured_out_s",
                   "rate_in_bps", "rate_out_bps", "rate_sum_bps", "counted"]


def interval_rows(p) -> list[list]:
    """Every sample interval of the period: what its percentile was taken over."""
    tz = ZoneInfo(p.zone)
    r = rates(p)
    rows = []
    starts = interval_starts(p.start, p.sample_interval_s, len(p.bins_in))
    for i, t in enumerate(starts):
        secs = p.sample_interval_s if i < len(starts) - 1 else (
            (p.as_of - t).total_seconds() if p.as_of and p.as_of > t else p.sample_interval_s)
        counted = p.measured_in_s[i] > 0 or p.measured_out_s[i] > 0
        rows.append([t, t.astimezone(tz).isoformat(), secs, round(p.bins_in[i], 3), round(p.bins_out[i], 3),
                     round(p.measured_in_s[i], 3), round(p.measured_out_s[i], 3),
                     *("" if v != v else round(float(v), 3) for v in (r["in"][i], r["out"][i], r["sum"][i])),
                     int(counted)])
    return rows
