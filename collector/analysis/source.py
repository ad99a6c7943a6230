"""What an analysis reads: a series (or a sum of series) from the archive, as rates on a regular
grid, with every point it could not use counted and the reason stated.

Cellar series are read through the plot's query service (collector/reader/reading.py), so an
analysis sees exactly the points the plot and the CSV export of the same window and resolution
show. The resolution is the finest whose point count stays within numerics.selfsim.MAX_SAMPLES
(res=auto), and the answer says which it used.

Which points are used (the rule the CSV reproduction follows, tests/integration/analysis):
- a raw sample is used when it is drawn (not OVER_CAPACITY) and has a delta; samples flagged
  REBOOT, RESET, FIRST, AMBIGUOUS, CLOCK, WIDTH have none and are counted as excluded; a sample
  flagged GAP (after missed polls) averages over several intervals and is counted as excluded
  too, since the methods need one value per interval; a WRAP sample is exact and kept (counted);
- a bucket (1m, 15m, 1h, 1d) is used when its drawn seconds cover at least half its width
  (MIN_COVERAGE); its rate is its drawn delta over its drawn seconds;
- a sum of series is missing wherever one of its members is.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from collector.analysis.selection import AnalysisRequest
from collector.core.facts import FLAGS, NOT_DRAWN, Flag
from collector.external import read as external
from collector.external.models import ExternalSeries
from collector.reader import queries, reading, resolution, units
from collector.reader import selection as plot_params
from collector.reader.catalog import UnknownSeries
from collector.reader.points import Columns
from collector.reader.selection import BadRequest, PlotRequest
from numerics.selfsim import MAX_SAMPLES

MIN_COVERAGE = 0.5
NO_DELTA = Flag.REBOOT | Flag.RESET | Flag.FIRST | Flag.AMBIGUOUS | Flag.CLOCK | Flag.WIDTH | Flag.MISSING


@dataclass
class Sampled:
    """One analysed series: rates (units/s, NaN where unusable) at points t (epoch seconds; a
    raw sample's time is the end of its interval, a bucket's its start), and the counts (delta,
    drawn seconds) that coarse aggregation sums exactly."""
    label: str
    unit: str                       # unit label of the rates, e.g. "cells/s"
    count_unit: str                 # what delta counts, e.g. "cells"
    res: str                        # raw | 1m | 15m | 1h | 1d | external
    res_label: str
    step_s: float
    start: datetime
    end: datetime
    t: np.ndarray
    rate: np.ndarray
    delta: np.ndarray
    seconds: np.ndarray
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    series: list[dict] = field(default_factory=list)

    def accounting(self) -> list[str]:
        """Sentences: what was read and what was left out, with counts."""
        c = self.counts
        out = [f"{c.get('points', 0):,} points of {self.res_label} read, {c.get('used', 0):,} usable"]
        for key, text in EXCLUSIONS.items():
            if c.get(key):
                out.append(f"{c[key]:,} {text.replace('samples', 'sample', 1) if c[key] == 1 else text}"
                           .replace("buckets", "bucket", 1 if c[key] == 1 else 0)
                           .replace("points", "point", 1 if c[key] == 1 else 0))
        return out + self.notes


EXCLUSIONS = {
    "no_data": "points with no drawn data (missing)",
    "partial": f"buckets with less than {MIN_COVERAGE:.0%} of their width drawn (excluded)",
    "flagged_samples": "flagged samples inside the buckets used (reboot, reset, over capacity, gap: not in the "
                       "buckets' averages)",
    "after_gap": "samples after missed polls (an average over several intervals: excluded)",
    "wraps_kept": "samples across a counter wrap (exact: kept)",
    **{f"flag_{info.name.lower()}": f"samples flagged {info.word} (excluded)" for info in FLAGS
       if info.flag not in (Flag.WRAP, Flag.GAP)},
}


def plan(req: PlotRequest, *, summed: bool) -> reading.Plan:
    """The plot plan of the analysed window at the resolution within the budget."""
    span = resolution.RANGES.get(req.range)
    lo, hi = (req.start, req.end) if req.range == "custom" else (None, None)
    try:
        got = queries.series_and_clock(list(req.series_ids), lo, hi, span)
    except UnknownSeries as exc:
        raise BadRequest(f"no series with id {', '.join(map(str, exc.missing))} (see /traffic/api/series)") from None
    series, now, done = got.series, got.now, got.done
    first = queries.first_data(series) if req.range == "all" else None
    start, end = plot_params.resolve_range(req, now, first)
    poll = float(min(s.poll_interval_s for s in series))
    several_switches = summed and len({s.switch_id for s in series}) > 1
    if req.res == "auto":
        cut = queries.retention_cutoffs(now)
        res = resolution.choose(start, end, poll, cut, MAX_SAMPLES)
        if res == "raw" and several_switches:
            res = resolution.finest_tier(start, cut)
    else:
        res = req.res
        if res == "raw" and several_switches:
            raise BadRequest("a sum of series of several switches cannot use raw samples (their polls fall at "
                             "different times): choose res=1m or coarser")
    n = resolution.points(res, start, end, poll)
    if n > MAX_SAMPLES:
        raise BadRequest(f"{resolution.RES_LABEL[res]} over this window give {n:,} points; an analysis reads at most "
                         f"{MAX_SAMPLES:,} per series: choose a coarser resolution (or res=auto) or a shorter window")
    return reading.plan(replace(req, res=res), series, clock=(now, done), res=res)


def cellar(req: PlotRequest) -> Sampled:
    """The sum of the requested series (one series: itself) as a Sampled."""
    p = plan(req, summed=len(req.series_ids) > 1)
    plotted = reading.fetch(p, with_p95=False)
    width = p.res_seconds
    counts: dict[str, int] = {}
    per_series = [_usable(pl.cols, p.res == "raw", width, pl.info.poll_interval_s, counts) for pl in plotted]
    t = plotted[0].cols.t
    for pl in plotted[1:]:
        if len(pl.cols.t) != len(t) or not np.array_equal(pl.cols.t, t):
            raise BadRequest("the series' points do not fall at the same times (raw samples of different "
                             "switches?): choose res=1m or coarser")
    rate = np.sum([r * pl.factor for r, pl in zip(per_series, plotted)], axis=0)
    delta = np.sum([pl.cols.delta for pl in plotted], axis=0)
    seconds = np.min([pl.cols.seconds for pl in plotted], axis=0)
    counts["points"] = len(t)
    counts["used"] = int(np.count_nonzero(~np.isnan(rate)))
    names = [pl.info.label for pl in plotted]
    label = names[0] if len(names) == 1 else f"sum of {len(names)} series: {' + '.join(names)}"
    return Sampled(label=label, unit=units.UNITS[p.unit].label, count_unit=units.total_unit(plotted[0].info),
                   res=p.res, res_label=resolution.RES_LABEL[p.res], step_s=width, start=p.start, end=p.end,
                   t=t, rate=rate, delta=delta, seconds=seconds, counts=counts, notes=list(p.notes),
                   series=[{"id": pl.info.id, "label": pl.info.label, "unit": pl.info.unit} for pl in plotted])


def _usable(c: Columns, raw: bool, width: float, poll_s: float, counts: dict[str, int]) -> np.ndarray:
    """Rates of the points the analysis may use, NaN elsewhere; what was left out counted."""
    rate = c.avg()
    nothing = c.seconds <= 0
    if raw:
        assert c.flags is not None
        flags = c.flags
        after_gap = (flags & int(Flag.GAP)) != 0
        _add(counts, "after_gap", int(np.count_nonzero(after_gap & ~nothing)))
        _add(counts, "wraps_kept", int(np.count_nonzero(((flags & int(Flag.WRAP)) != 0) & ~after_gap)))
        for info in FLAGS:
            if info.flag in (Flag.WRAP, Flag.GAP):
                continue
            _add(counts, f"flag_{info.name.lower()}", int(np.count_nonzero(flags & info.bit)))
        bad = nothing | after_gap | ((flags & int(NO_DELTA | NOT_DRAWN)) != 0)
        _add(counts, "no_data", int(np.count_nonzero(nothing & ((flags & int(NO_DELTA | NOT_DRAWN)) == 0))))
    else:
        partial = ~nothing & (c.seconds < MIN_COVERAGE * width)
        _add(counts, "no_data", int(np.count_nonzero(nothing)))
        _add(counts, "partial", int(np.count_nonzero(partial)))
        used = ~nothing & ~partial
        _add(counts, "flagged_samples", int(c.flagged[used].sum()))
        bad = nothing | partial
    return np.where(bad, np.nan, rate)


def _add(counts: dict[str, int], key: str, n: int) -> None:
    counts[key] = counts.get(key, 0) + n


def external_series(series_id: int, start: datetime | None, end: datetime | None) -> Sampled:
    """An imported series as rates (its counts over its interval)."""
    try:
        xs = external.find(str(series_id))
    except LookupError as exc:
        raise BadRequest(str(exc)) from None
    return external_window(xs, start, end)


def external_window(xs: ExternalSeries, start: datetime | None, end: datetime | None) -> Sampled:
    lo = start or xs.first
    hi = end or xs.last_end
    if lo is None or hi is None:
        raise BadRequest(f"external series {xs.name!r} holds no points")
    t, v = external.points(xs.id, lo, hi)
    step = float(xs.interval_s)
    if len(t) > MAX_SAMPLES:
        raise BadRequest(f"external series {xs.name!r} has {len(t):,} points in this window; an analysis reads at "
                         f"most {MAX_SAMPLES:,}: choose a shorter window")
    seconds = np.full(len(t), step)
    rate = v / step
    return Sampled(label=f"{xs.name} (external)", unit=f"{xs.unit}/s", count_unit=xs.unit, res="external",
                   res_label=f"imported {xs.interval_s}-second counts", step_s=step, start=lo, end=hi,
                   t=np.asarray(t, dtype=np.float64), rate=rate, delta=np.asarray(v, dtype=np.float64),
                   seconds=seconds, counts={"points": len(t), "used": int(np.count_nonzero(~np.isnan(rate)))},
                   series=[{"external_id": xs.id, "label": xs.name, "unit": xs.unit}])


def primary(req: AnalysisRequest) -> Sampled:
    if req.external_id is not None:
        start, end = window(req.plot)
        return external_series(req.external_id, start, end)
    return cellar(req.plot)


def window(req: PlotRequest) -> tuple[datetime | None, datetime | None]:
    """The window of a request that reads no Cellar series (an external one): range=all is the
    series' whole extent (None, None)."""
    if req.range == "all":
        return None, None
    if req.range == "custom":
        return req.start, req.end
    now, _ = queries.now_and_watermarks()
    return now - resolution.RANGES[req.range], now
