"""Settled rollup buckets: compressed blocks of a switch's buckets of one tier over one block span
(collector/archive/tier_settle.py; the format is collector/core/tierblocks.py, the spans Tier.block).

traffic_settled_tier holds a switch's spine block of a tier and span (which buckets exist, the
intervals and sample counts its series share, the intervals its extreme rates were found at), with
its first and last bucket and count readable without decoding; traffic_settled_tier_series one
column block per series of that switch, tier and span. The 1-minute and 15-minute tiers settle;
the hourly and daily tiers stay rows (collector/archive/tiers.py SETTLED_TIERS). Both tables are
hypertables on the span's start with 40-day chunks (the longest span): retention deletes a tier's
whole blocks past its cutoff (a chunk holds every tier). Blocks are compressed already: EXTERNAL.

The primary keys lead with the switch, as traffic_settled_poll's: a read knows its series' switches.

grafana.tier(interval_ms, time_from) (migration 0008) learns that a settled tier's rows start after
its newest settled bucket, as raw rows start where the newest settled day ends: a panel over a
settled range gets the next coarser tier that holds it as rows, the hourly tier (it stays rows).
"""
from django.db import migrations, models

ROLE = "cellar_grafana"

CREATE = """
CREATE TABLE traffic_settled_tier (
    tier          varchar(8)  NOT NULL,
    lo            timestamptz NOT NULL,
    switch_id     integer     NOT NULL,
    first_bucket  timestamptz NOT NULL,
    last_bucket   timestamptz NOT NULL,
    buckets       integer     NOT NULL,
    block         bytea       NOT NULL,
    PRIMARY KEY (switch_id, tier, lo)
);
SELECT create_hypertable('traffic_settled_tier', by_range('lo', INTERVAL '40 days'), create_default_indexes => false);
ALTER TABLE traffic_settled_tier ALTER COLUMN block SET STORAGE EXTERNAL;

CREATE TABLE traffic_settled_tier_series (
    tier        varchar(8)  NOT NULL,
    lo          timestamptz NOT NULL,
    switch_id   integer     NOT NULL,
    series_id   integer     NOT NULL,
    block       bytea       NOT NULL,
    PRIMARY KEY (switch_id, tier, lo, series_id)
);
SELECT create_hypertable('traffic_settled_tier_series', by_range('lo', INTERVAL '40 days'),
                         create_default_indexes => false);
ALTER TABLE traffic_settled_tier_series ALTER COLUMN block SET STORAGE EXTERNAL;
"""


def coverage(settled_tiers: bool) -> str:
    """grafana.tier(interval_ms, time_from), as 0008 wrote it or knowing settled tiers."""
    def since(tier: str, span: str, width: str) -> str:
        # rows start after the newest settled bucket (a span is settled up to a midnight, the rest rows)
        oldest = f"(SELECT oldest FROM chunks WHERE h = 'traffic_rollup_{tier}')"
        if not settled_tiers:
            return oldest
        return (f"greatest({oldest}, (SELECT max(last_bucket) + interval '{width}' FROM traffic_settled_tier "
                f"WHERE tier = '{tier}' AND lo > now() - interval '{span}' - interval '30 days'))")
    return f"""
CREATE OR REPLACE FUNCTION grafana.tier(interval_ms bigint, time_from timestamptz) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
WITH chunks AS (
    SELECT hypertable_name::text AS h, min(range_start) AS oldest FROM timescaledb_information.chunks
     WHERE hypertable_schema = 'public' AND hypertable_name IN
           ('traffic_sample', 'traffic_rollup_1m', 'traffic_rollup_15m', 'traffic_rollup_1h')
     GROUP BY hypertable_name
), cover (k, tier, since) AS (
    VALUES (0, 'raw', greatest(
                (SELECT oldest FROM chunks WHERE h = 'traffic_sample'),
                (SELECT max(lo) + interval '1 day' FROM traffic_settled_poll WHERE lo > now() - interval '30 days'))),
           (1, '1m', {since('1m', '1 day', '1 minute')}),
           (2, '15m', {since('15m', '10 days', '15 minutes')}),
           (3, '1h', {since('1h', '40 days', '1 hour')}),
           (4, '1d', '-infinity'::timestamptz)
)
SELECT tier FROM cover
 WHERE k >= (SELECT k FROM cover WHERE tier = grafana.tier(interval_ms)) AND since <= time_from
 ORDER BY k LIMIT 1
$$;
"""


REVERSE = "DROP TABLE traffic_settled_tier_series; DROP TABLE traffic_settled_tier;"


class Migration(migrations.Migration):
    dependencies = [("archive", "0008_grafana_tier_coverage")]

    operations = [
        migrations.RunSQL(CREATE, reverse_sql=REVERSE, state_operations=[
            migrations.CreateModel(
                name="SettledTier",
                fields=[
                    ("pk", models.CompositePrimaryKey("switch_id", "tier", "lo", blank=True, editable=False,
                                                      primary_key=True, serialize=False)),
                    ("tier", models.CharField(max_length=8)),
                    ("lo", models.DateTimeField(help_text="the block's span: [lo, lo + Tier.block)")),
                    ("switch_id", models.IntegerField()),
                    ("first_bucket", models.DateTimeField()),
                    ("last_bucket", models.DateTimeField()),
                    ("buckets", models.IntegerField()),
                    ("block", models.BinaryField()),
                ],
                options={"db_table": "traffic_settled_tier"},
            ),
            migrations.CreateModel(
                name="SettledTierSeries",
                fields=[
                    ("pk", models.CompositePrimaryKey("switch_id", "tier", "lo", "series_id", blank=True,
                                                      editable=False, primary_key=True, serialize=False)),
                    ("tier", models.CharField(max_length=8)),
                    ("lo", models.DateTimeField()),
                    ("switch_id", models.IntegerField()),
                    ("series_id", models.IntegerField()),
                    ("block", models.BinaryField()),
                ],
                options={"db_table": "traffic_settled_tier_series"},
            ),
        ]),
        migrations.RunSQL(coverage(True), reverse_sql=coverage(False)),
    ]
