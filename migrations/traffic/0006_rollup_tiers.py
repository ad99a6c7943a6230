"""Rollup tiers (1 min, 15 min, 1 h, 1 d): per series and bucket, exact sums for averages.

The Apache edition of TimescaleDB has no continuous aggregates, so Celery tasks fill these
(collector/rollup.py). Each row holds the sum of the deltas drawn as traffic and the sum of
their intervals (average = sum_delta / sum_interval, exact), the max and min rate of the
samples in the bucket (the MRTG peak envelope), and counts of samples and of flagged ones.
"""
from django.db import migrations

TIERS = (("1m", "7 days"), ("15m", "30 days"), ("1h", "90 days"), ("1d", "365 days"))


def create(tier: str, chunk: str) -> str:
    return f"""
CREATE TABLE traffic_rollup_{tier} (
    bucket          timestamptz NOT NULL,
    sum_delta       bigint      NOT NULL,
    sum_interval_ms bigint      NOT NULL,
    max_rate        double precision,
    min_rate        double precision,
    series_id       integer     NOT NULL,
    samples         integer     NOT NULL,
    flagged         integer     NOT NULL,
    PRIMARY KEY (series_id, bucket)
);
SELECT create_hypertable('traffic_rollup_{tier}', by_range('bucket', INTERVAL '{chunk}'), create_default_indexes => false);
"""


class Migration(migrations.Migration):
    dependencies = [("traffic", "0005_u64_function")]

    operations = [
        migrations.RunSQL(create(tier, chunk), reverse_sql=f"DROP TABLE traffic_rollup_{tier};")
        for tier, chunk in TIERS
    ] + [
        migrations.RunSQL(
            """
CREATE TABLE traffic_rollup_watermark (
    tier       varchar(8)  PRIMARY KEY,
    done_until timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
""",
            reverse_sql="DROP TABLE traffic_rollup_watermark;",
        ),
    ]
