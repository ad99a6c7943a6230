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


def test_a_bucket_lies_in_one_block_that_starts_on_a_bucket_boundary():
    t = int(datetime(2026, 3, 4, 5, 6, tzinfo=UTC).timestamp())
    for tier in tiers.TIERS:
        span = int(tier.block.total_seconds())
        assert span % tier.seconds == 0 and 360 <= span // tier.seconds <= 1440, tier.name
        bucket = t // tier.seconds * tier.seconds
        lo = tier.block_start(bucket)
        assert lo % tier.seconds == 0 and lo <= bucket < lo + span, tier.name
        assert tier.block_start(lo + span - tier.seconds) == lo and tier.block_start(lo + span) == lo + span
