"""The rollup tiers (1 min, 15 min, 1 h, 1 d) and the tables retention can drop. Pure.

One definition read by the rollup (collector/archive/rollup.py), retention, the plots'
choice of resolution (collector/reader/resolution.py), the CSV export and the status pages' totals.
Tier tables are the models Rollup1m ... Rollup1d (collector/archive/models.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


@dataclass(frozen=True)
class Tier:
    name: str
    seconds: int
    source: str | None        # the tier it is computed from; None = raw samples
    step: timedelta           # the longest range one forward step computes (bounded work)
    block: timedelta          # the span of one block of settled buckets (collector/core/tierblocks.py):
                              # about a thousand buckets, so a block's fixed cost is spread thin

    @property
    def table(self) -> str:
        return f"traffic_rollup_{self.name}"

    @property
    def width(self) -> timedelta:
        return timedelta(seconds=self.seconds)

    def block_start(self, epoch_s: int) -> int:
        """The start (seconds since the epoch) of the block holding the bucket that starts at epoch_s."""
        span = int(self.block.total_seconds())
        return epoch_s // span * span


# FORWARD_STEP of the 1m tier must not exceed the "6 hours" in migration 0007's trigger.
FORWARD_STEP = timedelta(hours=6)
TIERS: tuple[Tier, ...] = (
    Tier("1m", 60, None, FORWARD_STEP, timedelta(days=1)),
    Tier("15m", 900, "1m", timedelta(hours=6), timedelta(days=10)),
    Tier("1h", 3600, "15m", timedelta(days=1), timedelta(days=40)),
    Tier("1d", 86400, "1h", timedelta(days=7), timedelta(days=400)),
)
TIER = {t.name: t for t in TIERS}
# A tier table's columns, in the order every writer and staging table uses.
TIER_COLUMNS = "bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged"
# What retention can drop: raw samples, the tiers, and the poll log (gap reasons).
RETAINED = ("raw", "1m", "15m", "1h", "1d", "poll_log")
TABLE_OF = {"raw": "traffic_sample", "poll_log": "traffic_poll_log", **{t.name: t.table for t in TIERS}}
# Raw samples settled into blocks (collector/archive/settle.py) are kept as long as raw samples.
SETTLED_TABLES = ("traffic_settled_poll", "traffic_settled_series")
# The tiers whose buckets settle into blocks (collector/archive/tier_settle.py). The hourly and daily
# tiers stay rows: Grafana's views read rows only, and over a settled span they answer from the
# hourly tier (a panel of an old hour gets its hour, not "No data" from a day bucket outside it); the
# 1-day tier is grouped whole-network in SQL (inventory, talkers). Both cost little: 0.28 and 0.01 GB
# a day per 10,000 ports.
SETTLED_TIERS: tuple[Tier, ...] = tuple(t for t in TIERS if t.name in ("1m", "15m"))
SETTLED_TIER_TABLES = ("traffic_settled_tier", "traffic_settled_tier_series")
# The tier computed from each tier (its buckets are settled only once that one has read them).
CONSUMER = {t.source: t for t in TIERS if t.source is not None}



def floor_time(t: datetime, seconds: int) -> datetime:
    """Start of the bucket of width `seconds` containing t (UTC-aligned, as time_bucket)."""
    epoch = int(t.timestamp() // seconds) * seconds
    return datetime.fromtimestamp(epoch, tz=UTC)


def ceil_time(t: datetime, seconds: int) -> datetime:
    """The first bucket boundary at or after t."""
    f = floor_time(t, seconds)
    return f if f == t else f + timedelta(seconds=seconds)
