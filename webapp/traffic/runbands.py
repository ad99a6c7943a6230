"""Experiment runs that overlap a plot (read with the plot's series: queries.series_and_clock):
listed in api/data, shaded on the figure and named at the top of their band.

Names of runs that start close together would be printed on top of each other: each name goes on
the highest row where it clears the name before it, judged in pixels of the narrowest plot that
draws it (the figure does not know the width it will get; narrower means more rows, never overlap).
"""
from __future__ import annotations

from datetime import datetime

from collector.core.isotime import iso
from collector.reader.queries import RunBand
from webapp.traffic.plots import px

BAND_FILL = "rgba(16, 185, 129, 0.10)"
BAND_EDGE = "rgba(5, 150, 105, 0.8)"
NAME_FONT = {"size": 11, "color": "#047857"}
# Chromium draws the 11 px sans-serif at about 5.7 px a character; the margins leave room for wider fonts.
NAME_PX_PER_CHAR = 6.5
NAME_GAP_PX = 10
NAME_ROW_PX = 14
PLOT_PX = 700           # the page's plot is about 900 px wide in a 1,400 px window; images are 1,000 by default
MAX_ROWS = 5            # beyond this, a name goes on the row that frees soonest (50 runs at most per plot)


def runs_json(runs: list[RunBand]) -> list[dict]:
    return [{"id": r.id, "name": r.name, "start": iso(r.start), "end": iso(r.end) if r.end else None,
             "url": f"/runs/{r.id}/", "going_on": r.end is None} for r in runs]


def bands(runs: list[RunBand], now: datetime) -> list[dict]:
    return [{"type": "rect", "xref": "x", "yref": "paper", "x0": px(r.start), "x1": px(r.end or now), "y0": 0,
             "y1": 1, "fillcolor": BAND_FILL, "layer": "below", "name": "run",
             "line": {"width": 1, "color": BAND_EDGE}} for r in runs]


def name_rows(runs: list[RunBand], start: datetime, end: datetime, plot_px: float = PLOT_PX) -> list[int]:
    """The row (0 = top) of each run's name, in the order of `runs`."""
    per_px = max((end - start).total_seconds(), 1.0) / plot_px
    row_ends: list[float] = []          # where the last name of each row ends, in seconds from start
    rows = [0] * len(runs)
    for i in sorted(range(len(runs)), key=lambda k: runs[k].start):
        x = max((runs[i].start - start).total_seconds(), 0.0)
        width = (len(runs[i].name) * NAME_PX_PER_CHAR + NAME_GAP_PX) * per_px
        row = next((k for k, e in enumerate(row_ends) if e <= x), None)
        if row is None and len(row_ends) < MAX_ROWS:
            row_ends.append(0.0)
            row = len(row_ends) - 1
        elif row is None:
            row = min(range(len(row_ends)), key=row_ends.__getitem__)
        row_ends[row] = x + width
        rows[i] = row
    return rows


def names(runs: list[RunBand], start: datetime, end: datetime) -> list[dict]:
    """The names at the top left of their bands (from the plot's left edge for a run begun before it)."""
    return [{"xref": "x", "yref": "paper", "x": px(max(r.start, start)), "y": 1, "xanchor": "left",
             "yanchor": "top", "xshift": 2, "yshift": -2 - row * NAME_ROW_PX, "showarrow": False, "name": "run",
             "text": r.name.replace("<", "&lt;"), "font": NAME_FONT}
            for r, row in zip(runs, name_rows(runs, start, end), strict=True)]
