"""collector/archive/tiers.py: the tiers, and buckets aligned as time_bucket aligns them."""
from __future__ import annotations

from datetime import UTC, datetime

from collector.archive import tiers
from collector.archive.tiers import floor_time


def test_floor_and_ceil_align_like_time_bucket():
    t = datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=UTC)
    assert floor_time(t, 60) == datetime(2026, 3, 4, 5, 6, tzinfo=UTC)
    assert floor_time(t, 900) == datetime(2026, 3, 4, 5, 0, tzinfo=UTC)
    assert floor_time(t, 86400) == datetime(2026, 3, 4, tzinfo=UTC)
    assert tiers.ceil_time(t, 3600) == datetime(2026, 3, 4, 6, tzinfo=UTC)
    assert tiers.ceil_time(datetime(2026, 3, 4, 6, tzinfo=UTC), 3600) == datetime(2026, 3, 4, 6, tzinfo=UTC)
