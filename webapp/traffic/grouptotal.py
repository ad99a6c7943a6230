"""A group's total line: per bucket, the sum of its members' averages, and of their exact volumes. Pure.

The total of a bucket is the sum over the members that drew traffic in it of each member's
average (its drawn delta over its drawn time, in the plot's unit): the top of the stacked areas,
and exactly the sum of the members' "average" columns of the CSV of the same selection. The
volume is the sum of the members' archived deltas (exact integers) when they count the same
unit. A bucket in which no member drew anything is a gap of the total too. The total needs a
common time grid: buckets (1 minute or coarser), never raw samples (polls of different switches
happen at different instants).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collector.core.isotime import iso
from collector.reader.points import at

TOTAL_COLOR = "#17212f"


@dataclass
class Total:
    t: np.ndarray            # bucket starts, epoch seconds
    avg: np.ndarray          # the plot's unit; NaN where no member drew traffic
    delta: np.ndarray | None  # units counted (when every member counts the same unit)
    drawn: np.ndarray        # members that drew traffic in the bucket
    unit: str | None          # what delta counts: cells, bytes, packets

    def average(self, plotted) -> float | None:
        """The group's average rate over the range: the sum of its members' averages."""
        values = [pl.stats.average * pl.factor for pl in plotted if pl.stats.average is not None]
        return float(sum(values)) if values else None


def total(plotted: list) -> Total:
    """plotted: service.Plotted members at one bucket resolution."""
    units = {_total_unit(pl.info.unit) for pl in plotted}
    grid = np.unique(np.concatenate([pl.cols.t for pl in plotted])) if plotted else np.zeros(0)
    avg = np.zeros(len(grid))
    drawn = np.zeros(len(grid), dtype=np.int64)
    delta = np.zeros(len(grid), dtype=np.int64)
    for pl in plotted:
        c = pl.cols
        idx = np.searchsorted(grid, c.t)
        ok = c.seconds > 0
        np.add.at(avg, idx[ok], (c.delta[ok] / c.seconds[ok]) * pl.factor)
        np.add.at(drawn, idx[ok], 1)
        np.add.at(delta, idx, c.delta.astype(np.int64))
    avg[drawn == 0] = np.nan
    same = len(units) == 1
    return Total(grid, avg, delta if same else None, drawn, units.pop() if same else None)


def _total_unit(unit: str) -> str:
    return {"cells": "cells", "octets": "bytes", "packets": "packets"}.get(unit, unit)


def as_json(tot: Total, plotted: list, with_points: bool) -> dict:
    finite = tot.avg[~np.isnan(tot.avg)]
    d: dict = {"members": len(plotted), "average": tot.average(plotted),
         "peak": float(finite.max()) if len(finite) else None,
         "total": int(tot.delta.sum()) if tot.delta is not None else None, "total_unit": tot.unit,
         "n_points": len(tot.t)}
    if with_points:
        d["points"] = {"t": [iso(at(t)) for t in tot.t.tolist()],
                       "avg": [None if v != v else v for v in tot.avg.tolist()],
                       "total": None if tot.delta is None else tot.delta.tolist(), "drawn": tot.drawn.tolist()}
    return d


def trace(tot: Total, bucket_s: float, name: str, typed) -> dict:
    """The total as a step line over the stacked members (typed: plots.typed, for the arrays)."""
    x = np.append(tot.t, tot.t[-1:] + bucket_s) * 1000 if len(tot.t) else np.zeros(0)
    y = np.append(tot.avg, tot.avg[-1:]) if len(tot.avg) else np.zeros(0)
    return {"type": "scatter", "mode": "lines", "name": name, "x": typed(x), "y": typed(y, "f4"),
            "line": {"color": TOTAL_COLOR, "width": 2.2, "shape": "hv"}, "connectgaps": False,
            "hovertemplate": "%{x|%Y-%m-%d %H:%M} UTC<br>total %{y:.4s}<extra></extra>",
            "meta": {"role": "total"}}
