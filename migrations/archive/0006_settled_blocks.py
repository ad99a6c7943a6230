"""Settled raw samples: compressed blocks of a switch's polls of a UTC day (collector/archive/settle.py).

traffic_settled_poll holds a switch's spine block of a day (every poll's time, layout, uptime and
interval: collector/core/settled.py), with its first and last poll time and count readable without
decoding; traffic_settled_series one column block per series of that switch and day. Both are
hypertables on the day (7-day chunks), so retention drops them as it drops traffic_sample's chunks
(metadata, not row deletes) and backups take them as they take the other hypertables. A block is
~6 kB: compressed already, it is stored EXTERNAL (TOAST without a second, futile compression).

The primary keys lead with the switch: every read knows the switch of its series (a switch's
day, then its series), and the settle task and late rows find a switch's blocks by day.

The rollup trigger (migration traffic/0007) skips rows put back from blocks (a late row reopens
its day: the rows come back as they were, their buckets are right already): a transaction that
sets cellar.reopening = on.
"""
from django.db import migrations, models

CREATE = """
CREATE TABLE traffic_settled_poll (
    lo          timestamptz NOT NULL,
    first_time  timestamptz NOT NULL,
    last_time   timestamptz NOT NULL,
    switch_id   integer     NOT NULL,
    polls       integer     NOT NULL,
    block       bytea       NOT NULL,
    PRIMARY KEY (switch_id, lo)
);
SELECT create_hypertable('traffic_settled_poll', by_range('lo', INTERVAL '7 days'), create_default_indexes => false);
ALTER TABLE traffic_settled_poll ALTER COLUMN block SET STORAGE EXTERNAL;

CREATE TABLE traffic_settled_series (
    lo          timestamptz NOT NULL,
    switch_id   integer     NOT NULL,
    series_id   integer     NOT NULL,
    block       bytea       NOT NULL,
    PRIMARY KEY (switch_id, lo, series_id)
);
SELECT create_hypertable('traffic_settled_series', by_range('lo', INTERVAL '7 days'), create_default_indexes => false);
ALTER TABLE traffic_settled_series ALTER COLUMN block SET STORAGE EXTERNAL;

CREATE OR REPLACE FUNCTION cellar_rollup_invalidate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.time < now() - interval '60 seconds'
       AND coalesce(current_setting('cellar.reopening', true), '') <> 'on'
       AND NEW.time < (SELECT done_until + interval '6 hours'
                       FROM traffic_rollup_watermark WHERE tier = '1m') THEN
        INSERT INTO traffic_rollup_invalidation (switch_id, bucket)
        VALUES (NEW.switch_id, time_bucket(interval '1 minute', NEW.time))
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
"""

REVERSE = """
DROP TABLE traffic_settled_series;
DROP TABLE traffic_settled_poll;
CREATE OR REPLACE FUNCTION cellar_rollup_invalidate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.time < now() - interval '60 seconds'
       AND NEW.time < (SELECT done_until + interval '6 hours'
                       FROM traffic_rollup_watermark WHERE tier = '1m') THEN
        INSERT INTO traffic_rollup_invalidation (switch_id, bucket)
        VALUES (NEW.switch_id, time_bucket(interval '1 minute', NEW.time))
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("archive", "0005_series_total")]

    operations = [
        migrations.RunSQL(CREATE, reverse_sql=REVERSE, state_operations=[
            migrations.CreateModel(
                name="SettledPoll",
                fields=[
                    ("pk", models.CompositePrimaryKey("switch_id", "lo", blank=True, editable=False, primary_key=True,
                                                      serialize=False)),
                    ("switch_id", models.IntegerField()),
                    ("lo", models.DateTimeField(help_text="the UTC day settled: [lo, lo + 1 day)")),
                    ("first_time", models.DateTimeField()),
                    ("last_time", models.DateTimeField()),
                    ("polls", models.IntegerField()),
                    ("block", models.BinaryField()),
                ],
                options={"db_table": "traffic_settled_poll"},
            ),
            migrations.CreateModel(
                name="SettledSeries",
                fields=[
                    ("pk", models.CompositePrimaryKey("switch_id", "lo", "series_id", blank=True, editable=False,
                                                      primary_key=True, serialize=False)),
                    ("switch_id", models.IntegerField()),
                    ("lo", models.DateTimeField()),
                    ("series_id", models.IntegerField()),
                    ("block", models.BinaryField()),
                ],
                options={"db_table": "traffic_settled_series"},
            ),
        ]),
    ]
