"""Experiment runs that overlap a plot (read with the plot's series: queries.series_and_clock):
listed in api/data and shaded on the figure with their names."""
from __future__ import annotations

from datetime import datetime

from collector.core.isotime import iso
from webapp.traffic.plots import px
from webapp.traffic.queries import RunBand

BAND_FILL = "rgba(16, 185, 129, 0.10)"
BAND_EDGE = "rgba(5, 150, 105, 0.8)"


def runs_json(runs: list[RunBand]) -> list[dict]:
    return [{"id": r.id, "name": r.name, "start": iso(r.start), "end": iso(r.end) if r.end else None,
             "url": f"/runs/{r.id}/", "going_on": r.end is None} for r in runs]


def bands(runs: list[RunBand], now: datetime) -> list[dict]:
    return [{"type": "rect", "xref": "x", "yref": "paper", "x0": px(r.start), "x1": px(r.end or now), "y0": 0,
             "y1": 1, "fillcolor": BAND_FILL, "layer": "below", "name": "run",
             "line": {"width": 1, "color": BAND_EDGE},
             "label": {"text": r.name, "textposition": "top left", "font": {"size": 11, "color": "#047857"}}}
            for r in runs]
