"""webapp/traffic/plots.py: Plotly figures built from point columns (pure)."""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from collector.reader import points, units
from tests.support import traffic_factory
from tests.webapp.traffic.examples import CELLS, T0, VC, buckets, raw_series
from webapp.traffic import plots


class Pl:
    """Stands in for service.Plotted (the figure builder only reads these attributes)."""

    def __init__(self, info, cols, gaps=(), factor=1.0):
        self.info, self.cols, self.gaps, self.factor = info, cols, list(gaps), factor
        self.stats = points.stats(cols, T0, T0 + timedelta(hours=1), None, "raw")


def traces(fig, role):
    return [t for t in fig["data"] if (t.get("meta") or {}).get("role") == role]


def decode(spec):
    return traffic_factory.decode(spec)


def times(spec):
    return [plots.px(datetime.fromtimestamp(v / 1000, UTC)) for v in decode(spec)]


def test_raw_figure_steps_breaks_and_flags():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 3000, 1), (45, 15000, None, 2), (60, 15000, 1500, 0),
                      (75, 15000, 10 ** 9, 8)])
    gaps = [points.Gap(T0 + timedelta(seconds=30), T0 + timedelta(seconds=45), "withheld", "REBOOT", "")]
    fig = plots.build([Pl(CELLS, pts, gaps)], "cells", "raw", 15, T0, T0 + timedelta(minutes=2), False)
    line = traces(fig, "average")[0]
    assert line["line"]["shape"] == "vh"
    # first run starts at the beginning of its first interval; a None breaks the line at the reboot
    assert times(line["x"])[:3] == ["2026-11-22 10:00:00", "2026-11-22 10:00:15", "2026-11-22 10:00:30"]
    assert decode(line["y"])[:4] == [100.0, 100.0, 200.0, None]
    assert decode(line["customdata"])[:3] == [15.0, 15.0, 15.0]          # hover: each sample's interval
    flags = traces(fig, "flags")[0]
    assert len(flags["x"]) == 3 and "REBOOT" in flags["text"][1] and "OVER_CAPACITY" in flags["text"][2]
    assert flags["y"][2] == pytest.approx(353_207 * 1.02)      # over capacity: marked at the top, not drawn
    assert flags["marker"]["symbol"] == ["diamond-open", "triangle-down", "x"]
    assert len(fig["layout"]["shapes"]) == 1 and traces(fig, "gaps")[0]["text"][0].startswith("no traffic drawn")
    assert not traces(fig, "peak")


def test_bucket_figure_has_average_and_peak_envelope_and_converts_units():
    pts = buckets(3600, [(k * 3600, 360_000_000, 3_600_000, 150_000.0, 50_000.0, 240, 0) for k in range(3)])
    f = units.factor(CELLS, "mbps_cells")
    fig = plots.build([Pl(CELLS, pts, factor=f)], "mbps_cells", "1h", 3600, T0, T0 + timedelta(hours=3), False)
    avg, peak = traces(fig, "average")[0], traces(fig, "peak")[0]
    assert avg["line"]["shape"] == "hv" and len(decode(avg["x"])) == 4      # three buckets and the end of the last
    assert times(avg["x"])[-1] == "2026-11-22 13:00:00"
    assert decode(avg["y"])[0] == pytest.approx(100_000 * 424 / 1e6, rel=1e-7)      # float32 on the wire
    assert decode(peak["y"])[0] == pytest.approx(150_000 * 424 / 1e6, rel=1e-7)
    assert decode(avg["customdata"]) == [100.0] * 4                     # hover: % of the bucket drawn
    assert fig["layout"]["yaxis"]["title"]["text"] == "Mb/s of 53-byte cells"
    assert fig["layout"]["xaxis"]["range"] == ["2026-11-22 10:00:00", "2026-11-22 13:00:00"]


def test_stacked_vcs_share_a_stackgroup_and_have_no_envelope():
    pts = buckets(60, [(0, 600, 60000, 12.0, 8.0, 4, 0)])
    fig = plots.build([Pl(VC, pts), Pl(replace(VC, id=9, vci=16), pts)], "cells", "1m", 60, T0,
                      T0 + timedelta(minutes=1), True)
    assert [t["stackgroup"] for t in traces(fig, "average")] == ["stack", "stack"]
    assert not traces(fig, "peak")


def test_capacity_line_only_near_line_rate():
    busy = buckets(60, [(0, 353_207 * 50, 60000, 353_207.0, 1.0, 4, 0)])
    quiet = buckets(60, [(0, 600, 60000, 10.0, 10.0, 4, 0)])
    end = T0 + timedelta(minutes=1)
    assert plots.build([Pl(CELLS, busy)], "cells", "1m", 60, T0, end, False)["layout"]["shapes"][0]["y0"] == 353_207
    assert plots.build([Pl(CELLS, quiet)], "cells", "1m", 60, T0, end, False)["layout"]["shapes"] == []


def test_figure_is_json_serialisable_and_deterministic():
    import json

    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 64)])
    a = plots.build([Pl(CELLS, pts)], "cells", "raw", 15, T0, T0 + timedelta(minutes=1), False)
    b = plots.build([Pl(CELLS, pts)], "cells", "raw", 15, T0, T0 + timedelta(minutes=1), False)
    assert json.dumps(a) == json.dumps(b)


def test_a_hole_in_buckets_breaks_the_line():
    pts = buckets(60, [(0, 600, 60000, 12.0, 8.0, 4, 0), (60, 600, 60000, 12.0, 8.0, 4, 0),
                       (180, 1200, 60000, 30.0, 10.0, 4, 0)])
    fig = plots.build([Pl(CELLS, pts)], "cells", "1m", 60, T0, T0 + timedelta(minutes=4), False)
    line = traces(fig, "average")[0]
    assert times(line["x"]) == ["2026-11-22 10:00:00", "2026-11-22 10:01:00", "2026-11-22 10:02:00",
                                "2026-11-22 10:03:00", "2026-11-22 10:03:00", "2026-11-22 10:04:00"]
    assert decode(line["y"]) == [10.0, 10.0, 10.0, None, 20.0, 20.0]


@pytest.mark.parametrize("minutes, drawn, expected", [
    ((0, 1, 2, 3), (0, 1, 2, 3), [(0, 4)]),                 # one run
    ((0, 1, 3, 4), (0, 1, 3, 4), [(0, 2), (2, 4)]),         # a missing bucket splits it
    ((0, 1, 2, 3), (0, 1, 3), [(0, 2), (3, 4)]),            # so does a bucket with nothing drawn
    ((0, 1, 2, 3), (), []),                                 # nothing drawn at all
    ((0,), (0,), [(0, 1)]),
    ((), (), []),
])
def test_bucket_runs_table(minutes, drawn, expected):
    pts = buckets(60, [(m * 60, 600 if m in drawn else 0, 60000 if m in drawn else 0, 10.0, 10.0, 4, 0)
                       for m in minutes])
    assert plots.runs(pts, 60) == expected


def test_raw_runs_join_samples_whose_intervals_touch():
    # 15 s polls; the fourth sample comes after a 45 s hole (its own interval is 15 s); the fifth is withheld
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 0), (45, 15000, 1500, 0), (105, 15000, 1500, 0),
                      (120, 15000, None, 2), (135, 15000, 1500, 0)])
    assert plots.runs(pts, None) == [(0, 3), (3, 4), (5, 6)]


@pytest.mark.parametrize("value, unit, text", [
    (23_957_320.93, "bps", "23.96 Mb/s"), (119.81, "mbps_cells", "119.8 Mb/s"), (92.04, "pct", "92.0 %"),
    (2_500, "cells", "2.500 kcells/s"), (None, "cells", "–"),
])
def test_hover_rates_are_written_as_the_pages_write_them(value, unit, text):
    assert plots.fmt(value, units.UNITS[unit]) == text
