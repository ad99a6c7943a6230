"""Query parameters of an analysis: parsed and checked here. Pure (no database).

  s=12,13          Cellar series ids: analysed as their sum (at most MAX_SERIES)
  x=3              or an external (imported) series id instead of s
  range / start / end / unit / res   as on the plot page (collector/reader/selection.py); res=auto
                   takes the finest resolution with at most numerics.selfsim.MAX_SAMPLES points
  gaps=longest     the longest gap-free stretch (default), or gaps=interpolate (linear, across
                   gaps of at most max_gap samples, default 4, then the longest stretch)
  with=s:14 | with=x:3   a second series to correlate with, both aggregated to
  coarse=900       seconds (default: the external series' interval, else 900)
  max_lag=8        lags searched, in coarse intervals, both ways (at most MAX_LAG)

Every mistake raises BadRequest with a message saying what is accepted; the selection is kept as
a query string with the range made absolute (`canonical`), which is what a job stores and runs.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from collector.reader import selection as plot_params
from collector.reader.selection import BadRequest, PlotRequest
from numerics.selfsim import MAX_SAMPLES

MAX_SERIES = 12          # a sum of up to 12 series x MAX_SAMPLES points stays within a plot's read
MAX_LAG = 96             # a day of 15-minute intervals each way
MAX_GAP = 60
DEFAULT_COARSE_S = 900   # the seed's coarse data: Sprint's 15-minute cell counts
GAP_CHOICES = ("longest", "interpolate")

__all__ = ["AnalysisRequest", "BadRequest", "parse", "MAX_SAMPLES"]


@dataclass(frozen=True)
class AnalysisRequest:
    plot: PlotRequest                 # series ids, range, unit, resolution (as the plot page's)
    external_id: int | None = None    # x=: an imported series instead of s=
    gaps: str = "longest"
    max_gap: int = 4
    with_kind: str = ""               # "s" (Cellar series) or "x" (external), "" for none
    with_id: int | None = None
    coarse_s: int | None = None       # None: the default (the external's interval, else 900)
    max_lag: int = 8

    def query(self, **override: Any) -> str:
        r = replace(self, **override) if override else self
        q = r.plot.query()
        extra: list[tuple[str, str]] = []
        if r.external_id is not None:
            extra.append(("x", str(r.external_id)))
        if r.gaps != "longest":
            extra += [("gaps", r.gaps), ("max_gap", str(r.max_gap))]
        if r.with_kind:
            extra.append(("with", f"{r.with_kind}:{r.with_id}"))
            if r.coarse_s is not None:
                extra.append(("coarse", str(r.coarse_s)))
            extra.append(("max_lag", str(r.max_lag)))
        return q + ("&" + urlencode(extra, safe=":") if extra else "")

    def canonical(self, start: datetime, end: datetime) -> str:
        """The selection with the window made absolute: what a job stores and reruns."""
        return self.query(plot=replace(self.plot, range="custom", start=start, end=end))


def _int(params: Mapping, name: str, default: int, lo: int, hi: int) -> int:
    text = plot_params.single(params, name, "")
    if not text:
        return default
    if not text.strip().lstrip("-").isdigit():
        raise BadRequest(f"{name}={text!r} is not a whole number ({lo} to {hi})")
    v = int(text)
    if not lo <= v <= hi:
        raise BadRequest(f"{name}={v} is out of range: give {lo} to {hi}")
    return v


def _ref(text: str) -> tuple[str, int]:
    kind, _, ident = text.partition(":")
    if kind not in ("s", "x") or not ident.strip().isdigit():
        raise BadRequest(f"with={text!r}: give with=s:<series id> (a Cellar series) or with=x:<id> "
                         "(an imported external series)")
    return kind, int(ident)


def parse(params: Mapping) -> AnalysisRequest:
    plot = plot_params.parse(params)
    if plot.stack:
        raise BadRequest("stack does not apply to an analysis (several series are analysed as their sum)")
    if len(plot.series_ids) > MAX_SERIES:
        raise BadRequest(f"{len(plot.series_ids)} series asked; an analysis sums at most {MAX_SERIES}")
    x_text = plot_params.single(params, "x", "")
    external_id = None
    if x_text:
        if not x_text.isdigit():
            raise BadRequest(f"x={x_text!r}: give the id of an imported external series (see /external/)")
        if plot.series_ids:
            raise BadRequest("give either s= (Cellar series, summed) or x= (one external series), not both")
        external_id = int(x_text)
    elif not plot.series_ids:
        raise BadRequest("no series selected: give s=<series id>[,<series id>...] or x=<external series id>")
    gaps = plot_params.single(params, "gaps", "longest")
    if gaps not in GAP_CHOICES:
        raise BadRequest(f"gaps={gaps!r}: use gaps=longest (the longest gap-free stretch) or gaps=interpolate")
    max_gap = _int(params, "max_gap", 4, 1, MAX_GAP)
    with_text = plot_params.single(params, "with", "")
    with_kind, with_id = _ref(with_text) if with_text else ("", None)
    coarse = plot_params.single(params, "coarse", "")
    coarse_s = _int(params, "coarse", DEFAULT_COARSE_S, 60, 7 * 86400) if coarse else None
    max_lag = _int(params, "max_lag", 8, 0, MAX_LAG)
    if (coarse or plot_params.single(params, "max_lag", "")) and not with_kind:
        raise BadRequest("coarse and max_lag apply to a correlation: give with=s:<id> or with=x:<id> as well")
    return AnalysisRequest(plot, external_id, gaps, max_gap, with_kind, with_id, coarse_s, max_lag)
