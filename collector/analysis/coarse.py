"""Fine against coarse (seed 002's year-2 plan: SC'95 15-second flows against Sprint's 15-minute
cell counts): both series summed into the same coarse intervals, then correlated at every lag.

Coarse intervals are aligned to the Unix epoch (00:00, 00:15, ... for 900 s), as carriers count.
A Cellar point (raw sample or bucket) falls into the interval that holds its time (the rollups'
rule: a sample's time is the end of its interval). An interval is used when the drawn seconds of
its points cover at least MIN_COVERAGE of it; its rate is its counts over the interval's length,
so an exact aggregate of the same counts gives r = 1 at lag 0. An imported series is taken as
it is when its interval is the coarse one, and summed when the coarse interval is a multiple.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from collector.analysis import source
from collector.analysis.selection import DEFAULT_COARSE_S, AnalysisRequest
from collector.analysis.source import Sampled
from collector.core.isotime import iso
from collector.external import read as external
from collector.reader.points import at
from collector.reader.selection import BadRequest, PlotRequest
from numerics.correlation import aggregate, cross_correlation

MIN_COVERAGE = 0.9


def second(req: AnalysisRequest, first: Sampled) -> Sampled:
    """The series to correlate with, over the first one's window."""
    assert req.with_id is not None
    if req.with_kind == "x":
        try:
            xs = external.find(str(req.with_id))
        except LookupError as exc:
            raise BadRequest(str(exc)) from None
        return source.external_window(xs, first.start, first.end)
    plot = PlotRequest(series_ids=(req.with_id,), range="custom", start=first.start, end=first.end,
                       unit=req.plot.unit, res="auto")
    if first.res != "external":
        plot = replace(plot, res=first.res)
    return source.cellar(plot)


def interval_of(req: AnalysisRequest, a: Sampled, b: Sampled) -> int:
    if req.coarse_s is not None:
        width = req.coarse_s
    else:
        ext = [s.step_s for s in (a, b) if s.res == "external"]
        width = int(max(ext)) if ext else DEFAULT_COARSE_S
    for s in (a, b):
        if width < s.step_s or abs(width / s.step_s - round(width / s.step_s)) > 1e-9:
            raise BadRequest(f"the coarse interval {width} s is not a whole multiple of {s.label}'s "
                             f"{s.step_s:g}-second points ({s.res_label}): give coarse= a multiple of it")
    return width


def binned(s: Sampled, width: int, lo: float, n: int) -> tuple[np.ndarray, int]:
    """Rates per coarse interval [lo + k*width, ...), NaN where coverage is short; intervals short."""
    keep = ~np.isnan(s.delta) & (s.seconds > 0) if s.res != "external" else ~np.isnan(s.delta)
    t_bins, sums, _ = aggregate(s.t[keep], s.delta[keep], width)
    _, covered, _ = aggregate(s.t[keep], s.seconds[keep], width)
    rate = np.full(n, np.nan)
    idx = np.round((np.asarray(t_bins) - lo) / width).astype(np.int64)
    inside = (idx >= 0) & (idx < n)
    ok = np.asarray(covered) >= MIN_COVERAGE * width
    rate[idx[inside & ok]] = np.asarray(sums)[inside & ok] / width
    return rate, int(np.count_nonzero(inside & ~ok))


def correlate(req: AnalysisRequest, first: Sampled) -> dict:
    other = second(req, first)
    width = interval_of(req, first, other)
    lo = np.floor(first.start.timestamp() / width) * width
    hi = np.ceil(first.end.timestamp() / width) * width
    n = int(round((hi - lo) / width))
    x, short_x = binned(first, width, lo, n)
    y, short_y = binned(other, width, lo, n)
    xc = cross_correlation(x, y, min(req.max_lag, max(0, n - 3)))
    times = [iso(at(lo + k * width)) for k in range(n)]
    return {
        "interval_s": width, "max_lag": req.max_lag,
        "first": {"label": first.label, "unit": first.unit, "short_intervals": short_x, "values": _list(x)},
        "second": {"label": other.label, "unit": other.unit, "short_intervals": short_y, "values": _list(y),
                   "series": other.series},
        "t": times, **xc.as_json(),
        "text": (f"both series in {width}-second intervals from {times[0] if times else '-'}; an interval counts "
                 f"when at least {MIN_COVERAGE:.0%} of it holds data ({short_x} of the first and {short_y} of the "
                 "second were short and left out)"),
    }


def _list(a: np.ndarray) -> list[float | None]:
    return [None if v != v else float(v) for v in a.tolist()]
