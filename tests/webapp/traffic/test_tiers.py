"""collector/reader/resolution.py: which resolution and which tables a plot reads."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.reader import resolution
from tests.webapp.traffic.examples import NOW

KEEP = {"raw": None, "1m": None, "15m": None, "1h": None, "1d": None}


@pytest.mark.parametrize("span, expected", [
    (timedelta(hours=1), "raw"), (timedelta(hours=3), "raw"), (timedelta(hours=24), "1m"),
    (timedelta(days=7), "15m"), (timedelta(days=30), "1h"), (timedelta(days=365), "1d"),
    (timedelta(days=3650), "1d"),
])
def test_each_range_reads_the_finest_tier_under_2000_points(span, expected):
    res = resolution.choose(NOW - span, NOW, 15, KEEP, 2000)
    assert res == expected
    assert resolution.points(res, NOW - span, NOW, 15) <= 2000 or res == "1d"


def test_retention_moves_old_ranges_to_coarser_tiers():
    cut = {**KEEP, "raw": NOW - timedelta(days=30), "1m": NOW - timedelta(days=30)}
    old = NOW - timedelta(days=60)
    assert resolution.choose(old, old + timedelta(hours=1), 15, cut, 2000) == "15m"
    assert resolution.choose(NOW - timedelta(hours=1), NOW, 15, cut, 2000) == "raw"


@pytest.mark.parametrize("days_ago, alone, summed", [
    (1, "raw", "1m"), (20, "raw", "15m"), (200, "raw", "1h"), (1000, "1d", "1d")])
def test_a_sum_over_switches_reads_the_finest_tier_still_kept(days_ago, alone, summed):
    # the default retentions: raw 400 days outlives 1m (7), 15m (90), 1h (730)
    cut = {"raw": NOW - timedelta(days=400), "1m": NOW - timedelta(days=7), "15m": NOW - timedelta(days=90),
           "1h": NOW - timedelta(days=730), "1d": None}
    start = NOW - timedelta(days=days_ago)
    assert resolution.choose(start, start + timedelta(hours=1), 15, cut, 2000) == alone
    assert resolution.finest_tier(start, cut) == summed


def test_segments_read_the_tier_then_finer_tiers_then_raw():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    done = {"1m": datetime(2026, 11, 22, 11, 58, tzinfo=UTC), "15m": datetime(2026, 11, 22, 11, 45, tzinfo=UTC),
            "1h": datetime(2026, 11, 22, 11, tzinfo=UTC), "1d": datetime(2026, 11, 22, tzinfo=UTC)}
    end = datetime(2026, 11, 23, tzinfo=UTC)
    main, tail = resolution.segments("1d", t0, end, done)
    assert main == ("1d", t0, done["1d"])
    assert tail == [("1h", done["1d"], done["1h"]), ("15m", done["1h"], done["15m"]),
                    ("1m", done["15m"], done["1m"]), ("raw", done["1m"], end)]
    # before any rollup ran: everything from raw samples
    assert resolution.segments("1h", t0, end, {k: None for k in done}) == (None, [("raw", t0, end)])
    assert resolution.segments("raw", t0, end, done) == (("raw", t0, end), [])


def test_align_takes_whole_buckets():
    s, e = resolution.align("15m", datetime(2026, 1, 1, 10, 7, tzinfo=UTC), datetime(2026, 1, 1, 11, 1, tzinfo=UTC))
    assert (s, e) == (datetime(2026, 1, 1, 10, 0, tzinfo=UTC), datetime(2026, 1, 1, 11, 15, tzinfo=UTC))
