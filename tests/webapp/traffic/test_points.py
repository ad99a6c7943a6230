"""collector/reader/points.py: what is drawn, where the gaps are and why, exact averages."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.reader import points
from tests.webapp.traffic.examples import T0, buckets, raw_series, values


def test_raw_points_draw_only_what_is_traffic():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 10 ** 9, 8), (45, 15000, None, 2), (60, 15000, 3000, 1)])
    assert values(pts.avg()) == [100.0, None, None, 200.0]
    assert pts.stored[1] == 10 ** 9 and pts.flagged[1] == 1
    assert pts.flagged[3] == 0          # WRAP alone is routine
    st = points.stats(pts, T0, T0 + timedelta(minutes=1), 150.0, "raw")
    assert st.total == 4500 and st.seconds == 30 and st.average == 150.0 and st.peak == 200.0


def test_gaps_at_raw_resolution_say_why():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, None, 2), (45, 15000, 1500, 0),
                      (345, 300000, 30000, 64), (360, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(minutes=6), T0 + timedelta(minutes=6))
    kinds = [(g.kind, g.lo - T0, g.hi - T0, g.detail) for g in gaps]
    assert ("withheld", timedelta(seconds=15), timedelta(seconds=30), "REBOOT") in kinds
    assert ("missed", timedelta(seconds=45), timedelta(seconds=345), "average over 300 s") in kinds
    assert len(gaps) == 2


def test_before_the_first_sample_is_no_data_not_a_withheld_sample():
    pts = raw_series([(600, None, None, 32), (615, 15000, 1500, 0), (630, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(seconds=640), T0 + timedelta(seconds=640))
    assert [(g.kind, g.lo - T0, g.hi - T0, g.detail) for g in gaps] == [
        ("nodata", timedelta(0), timedelta(seconds=600), "before the first sample in this range")]


def test_a_switch_that_stopped_answering_shows_a_trailing_gap():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(minutes=10), T0 + timedelta(minutes=10))
    assert [(g.kind, g.lo - T0) for g in gaps] == [("nodata", timedelta(seconds=30))]
    g = gaps[0]
    assert points.describe(g, {"timeout": (36, "No SNMP response")}) == "36 polls timeout (No SNMP response)"


def test_gaps_between_buckets():
    pts = buckets(60, [(k * 60, 6000, 60000, 120.0, 80.0, 4, 0) for k in (0, 1, 4)] + [(300, 0, 0, None, None, 4, 4)])
    gaps = points.find_gaps(pts, 60, 15, T0, T0 + timedelta(minutes=6), T0 + timedelta(hours=1))
    assert [(g.kind, g.lo - T0, g.hi - T0) for g in gaps] == [
        ("nodata", timedelta(minutes=2), timedelta(minutes=4)),
        ("withheld", timedelta(minutes=5), timedelta(minutes=6))]


@pytest.mark.parametrize("present, drawn, now_after, expected", [
    # every bucket there and drawn: no gap (the fast path)
    ((0, 1, 2, 3, 4, 5), (0, 1, 2, 3, 4, 5), 60, []),
    # the first two missing: no data before the first sample
    ((2, 3, 4, 5), (2, 3, 4, 5), 60, [("nodata", 0, 2, "before the first sample in this range")]),
    # nothing at all: one gap, no claim about a first sample
    ((), (), 60, [("nodata", 0, 6, "")]),
    # the last two missing, the range is over: a trailing gap to the end of the range
    ((0, 1, 2, 3), (0, 1, 2, 3), 60, [("nodata", 4, 6, "")]),
    # the last bucket missing but "now" is within it: still being polled, not a gap
    ((0, 1, 2, 3, 4), (0, 1, 2, 3, 4), -300 + 37.5, []),
    # one bucket present but nothing drawn in it
    ((0, 1, 2, 3, 4, 5), (0, 1, 3, 4, 5), 60, [("withheld", 2, 3, "4 samples, none drawn (1 flagged)")]),
])
def test_bucket_gaps_table(present, drawn, now_after, expected):
    spec = [(k * 60, 6000 if k in drawn else 0, 60000 if k in drawn else 0, 100.0 if k in drawn else None,
             100.0 if k in drawn else None, 4, 0 if k in drawn else 1) for k in present]
    end = T0 + timedelta(minutes=6)
    gaps = points.find_gaps(buckets(60, spec), 60, 15, T0, end, end + timedelta(seconds=now_after))
    assert [(g.kind, (g.lo - T0) / timedelta(minutes=1), (g.hi - T0) / timedelta(minutes=1), g.detail)
            for g in gaps] == expected


def test_bucket_average_is_exact():
    pts = buckets(900, [(0, 1_000_001, 899_999, 2000.0, 1000.0, 60, 0), (900, 0, 0, None, None, 60, 60)])
    assert values(pts.avg()) == [1_000_001 / 899.999, None]
