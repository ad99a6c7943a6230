"""Run names on a plot: each on the highest row where it clears the name before it, so names of runs
that start close together are never printed on top of each other. Pure."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.reader.queries import RunBand
from webapp.traffic import runbands

T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)
HOUR = (T0, T0 + timedelta(hours=1))     # on a 700 px plot a pixel is 5.1 s: a 15-letter name takes 8.9 minutes


def run(k: int, minute: float, name: str = "iperf-morning-1") -> RunBand:
    return RunBand(k, name, T0 + timedelta(minutes=minute), T0 + timedelta(minutes=minute + 1))


@pytest.mark.parametrize("starts, rows", [
    ([0, 20, 40], [0, 0, 0]),                 # far apart: one row
    ([0, 2, 4], [0, 1, 2]),                   # close: a row each
    ([0, 2, 10], [0, 1, 0]),                  # the first name is cleared by minute 9: back on the top row
    ([4, 0, 2], [2, 0, 1]),                   # rows follow the time, not the order given
    ([-30, -20, 1], [0, 1, 2]),               # begun before the plot: named from its left edge
    ([0, 0.5, 1, 1.5, 2, 2.5, 3], [0, 1, 2, 3, 4, 0, 1]),   # more than MAX_ROWS: the row that frees soonest
])
def test_rows_of_names(starts, rows):
    assert runbands.name_rows([run(k, m) for k, m in enumerate(starts)], *HOUR) == rows


def test_a_name_is_an_annotation_on_its_row_escaped():
    found = runbands.names([run(1, 0, "a<b"), run(2, 1)], *HOUR)
    assert [(a["text"], a["yshift"], a["x"]) for a in found] == [
        ("a&lt;b", -2, "2026-11-27 10:00:00"), ("iperf-morning-1", -2 - runbands.NAME_ROW_PX, "2026-11-27 10:01:00")]
