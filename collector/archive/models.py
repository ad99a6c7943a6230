"""What the collector archives: series, the layout of a poll's arrays, raw samples, poll log,
rollup tiers and their watermarks.

The tables keep the names they were created with (traffic_*: the app that first owned them);
samples, poll log and tiers are hypertables made by hand-written migrations
(migrations/traffic/0003-0008), and the models here describe them for the ORM (moved with
state-only operations, migrations/archive/0001).

Storage design (why arrays): one row per (switch, poll) holds every counter reading of that
poll in a fixed order given by a Layout. Per-row overhead in PostgreSQL is ~28 bytes plus ~24
bytes of index entry; a row per counter would cost ~90 bytes per sample, a row per poll costs
~18 bytes per counter (raw 8 + delta 8 + flags 2) plus that overhead shared by all counters of
the switch. Raw readings are the source of truth; delta and flags are derived once at ingest
by collector/core/counters.py. Counter64 values are stored exactly in bigint by reinterpreting
the unsigned value as two's complement (collector/core/facts.py; SQL: cellar_u64()).
"""
from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath


class Series(models.Model):
    """One counter of one object on one switch (e.g. portReceivedCells of port A1)."""
    id = models.AutoField(primary_key=True)  # int4: layouts hold arrays of these ids
    DIRECTIONS = [("in", "receive"), ("out", "transmit"), ("", "n/a")]
    KINDS = [("counter", "counter"), ("discontinuity", "discontinuity time")]
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="series")
    object_name = models.CharField(max_length=64, help_text="profile object, e.g. portReceivedCells")
    index = models.CharField(max_length=64, help_text="OID index suffix, e.g. 2.0.201")
    kind = models.CharField(max_length=16, choices=KINDS, default="counter")
    port = models.ForeignKey(Port, on_delete=models.CASCADE, null=True, blank=True, related_name="series")
    vp = models.ForeignKey(VirtualPath, on_delete=models.CASCADE, null=True, blank=True, related_name="series")
    vc = models.ForeignKey(VirtualChannel, on_delete=models.CASCADE, null=True, blank=True, related_name="series")
    direction = models.CharField(max_length=3, choices=DIRECTIONS, blank=True, default="")
    metric = models.CharField(max_length=32, help_text="cells, octets, ucast_pkts, discards, errors ...")
    unit = models.CharField(max_length=16, help_text="cells, octets, packets")
    width = models.PositiveSmallIntegerField(default=32)
    capacity_per_s = models.BigIntegerField(null=True, blank=True, help_text="units/s at line rate")
    first_seen = models.DateTimeField(auto_now_add=True)
    gone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "traffic_series"
        ordering = ["switch", "object_name", "index"]
        verbose_name_plural = "series"
        constraints = [models.UniqueConstraint(fields=["switch", "object_name", "index"], name="series_unique")]

    def __str__(self) -> str:
        return f"{self.switch.name} {self.object_name}.{self.index}"

    def vpi_vci(self) -> tuple[int | None, int | None]:
        """(VPI, VCI) of a VC's series, (VPI, None) of a VP's, (None, None) of a port's or the switch's."""
        if self.vc is not None:
            return self.vc.vpi, self.vc.vci
        if self.vp is not None:
            return self.vp.vpi, None
        return None, None


class Layout(models.Model):
    """The order of series in the arrays of a sample row; a new one when the set changes."""
    id = models.AutoField(primary_key=True)  # int4 keeps the sample row narrow
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="layouts")
    series_ids = ArrayField(models.IntegerField())
    digest = models.CharField(max_length=64, help_text="sha256 of series_ids, to reuse layouts")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "traffic_layout"
        constraints = [models.UniqueConstraint(fields=["switch", "digest"], name="layout_unique_digest")]


class Sample(models.Model):
    """One poll of one switch (hypertable on `time`, made in migrations/traffic)."""
    pk = models.CompositePrimaryKey("switch_id", "time")
    switch = models.ForeignKey(Switch, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    time = models.DateTimeField()
    layout = models.ForeignKey(Layout, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    uptime_cs = models.BigIntegerField(null=True)
    interval_ms = models.IntegerField(null=True, help_text="since the previous stored poll of this switch")
    raw = ArrayField(models.BigIntegerField(null=True))
    delta = ArrayField(models.BigIntegerField(null=True))
    flags = ArrayField(models.SmallIntegerField())

    class Meta:
        db_table = "traffic_sample"


class PollLog(models.Model):
    """Every poll attempt, successful or not: gaps in the data say why from here."""
    STATUSES = [("ok", "ok"), ("partial", "partial answer"), ("timeout", "timeout"),
                ("unreachable", "unreachable"), ("auth", "authentication failure"),
                ("error", "error"), ("skipped", "skipped (late)")]
    pk = models.CompositePrimaryKey("switch_id", "time")
    switch = models.ForeignKey(Switch, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    time = models.DateTimeField()
    status = models.CharField(max_length=16, choices=STATUSES)
    duration_ms = models.IntegerField(default=0)
    varbinds = models.IntegerField(default=0)
    samples = models.IntegerField(default=0)
    error = models.TextField(blank=True, default="")
    notes = models.JSONField(null=True, blank=True, help_text=(
        "values read by a rule or not used: {not_used: {reason: n}, read_by_rule: {reason: n}, "
        "examples: [[object, index, reason, value]]} (collector/core/readings.py)"))

    class Meta:
        db_table = "traffic_poll_log"


class RollupBucket(models.Model):
    """One bucket of one series in a rollup tier (collector/archive/rollup.py says what it holds)."""
    pk = models.CompositePrimaryKey("series_id", "bucket")
    series = models.ForeignKey(Series, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    bucket = models.DateTimeField()
    sum_delta = models.BigIntegerField()
    sum_interval_ms = models.BigIntegerField()
    max_rate = models.FloatField(null=True)
    min_rate = models.FloatField(null=True)
    samples = models.IntegerField()
    flagged = models.IntegerField()

    class Meta:
        abstract = True


# One model per tier (collector/archive/tiers.py TIERS: a test checks they agree).
class Rollup1m(RollupBucket):
    class Meta:
        db_table = "traffic_rollup_1m"


class Rollup15m(RollupBucket):
    class Meta:
        db_table = "traffic_rollup_15m"


class Rollup1h(RollupBucket):
    class Meta:
        db_table = "traffic_rollup_1h"


class Rollup1d(RollupBucket):
    class Meta:
        db_table = "traffic_rollup_1d"


class SeriesTotal(models.Model):
    """Per counter series, the sum of its 1-day buckets before the 1-day watermark: the part of a total
    since the first reading that no longer changes (but for late samples), kept by the rollup
    (collector/archive/rollup.py carry_1d) in the transaction that writes those buckets, so that a
    total reads one row here instead of a row per day (collector/reader/cumulative.py). The 1-day
    tier's retention (CELLAR_RETENTION_1D_DAYS) drops buckets, never what is carried here."""
    series_id = models.IntegerField(primary_key=True)
    total = models.DecimalField(max_digits=40, decimal_places=0)

    class Meta:
        db_table = "traffic_series_total"


class RollupWatermark(models.Model):
    """Every bucket of `tier` before done_until is final."""
    tier = models.CharField(max_length=8, primary_key=True)
    done_until = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        db_table = "traffic_rollup_watermark"


class RollupInvalidation(models.Model):
    """A 1-minute bucket of a switch that got a late sample (filled by a trigger, migration 0007)."""
    pk = models.CompositePrimaryKey("switch_id", "bucket")
    switch = models.ForeignKey(Switch, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    bucket = models.DateTimeField()

    class Meta:
        db_table = "traffic_rollup_invalidation"


class RollupRecomputedDay(models.Model):
    """A UTC day whose 1-minute buckets were recomputed for late samples (rollup.process_late), and
    when: what is derived from a day's buckets (stored bursts) is derived again after that."""
    day = models.DateField(primary_key=True)
    at = models.DateTimeField(help_text="when the day's 1-minute buckets were last recomputed")

    class Meta:
        db_table = "traffic_rollup_recomputed_day"


class SettledPoll(models.Model):
    """A switch's polls of a UTC day once settled: the spine block (collector/core/settled.py) of its
    rows, moved out of traffic_sample by collector/archive/settle.py (hypertable, migration 0006)."""
    pk = models.CompositePrimaryKey("switch_id", "lo")
    switch_id = models.IntegerField()
    lo = models.DateTimeField(help_text="the UTC day settled: [lo, lo + 1 day)")
    first_time = models.DateTimeField()
    last_time = models.DateTimeField()
    polls = models.IntegerField()
    block = models.BinaryField()

    class Meta:
        db_table = "traffic_settled_poll"


class SettledSeries(models.Model):
    """One series' column block of a settled switch-day (its raw values, deltas and flags)."""
    pk = models.CompositePrimaryKey("switch_id", "lo", "series_id")
    switch_id = models.IntegerField()
    lo = models.DateTimeField()
    series_id = models.IntegerField()
    block = models.BinaryField()

    class Meta:
        db_table = "traffic_settled_series"


class SettledTier(models.Model):
    """A switch's buckets of one rollup tier over one block span once settled: the spine block
    (collector/core/tierblocks.py), moved out of the tier's table by collector/archive/tier_settle.py
    (hypertable, migration 0009)."""
    pk = models.CompositePrimaryKey("switch_id", "tier", "lo")
    tier = models.CharField(max_length=8)
    lo = models.DateTimeField(help_text="the block's span: [lo, lo + Tier.block)")
    switch_id = models.IntegerField()
    first_bucket = models.DateTimeField()
    last_bucket = models.DateTimeField()
    buckets = models.IntegerField()
    block = models.BinaryField()
    settled_until = models.DateTimeField(null=True, help_text="the span's buckets before this are settled, none "
                                                              "left as rows; NULL: not known")

    class Meta:
        db_table = "traffic_settled_tier"


class SettledTierSeries(models.Model):
    """One series' column block of a settled switch, tier and span (its sums, extremes and flags)."""
    pk = models.CompositePrimaryKey("switch_id", "tier", "lo", "series_id")
    tier = models.CharField(max_length=8)
    lo = models.DateTimeField()
    switch_id = models.IntegerField()
    series_id = models.IntegerField()
    block = models.BinaryField()
    # the block's buckets summed (sums), their highest peak and lowest floor (migration 0011)
    total_delta = models.BigIntegerField(null=True)
    total_interval_ms = models.BigIntegerField(null=True)
    peak_rate = models.FloatField(null=True)
    floor_rate = models.FloatField(null=True)
    total_samples = models.BigIntegerField(null=True)
    total_flagged = models.BigIntegerField(null=True)

    class Meta:
        db_table = "traffic_settled_tier_series"
