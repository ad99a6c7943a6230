"""Late samples invalidate rollup buckets: a log table and the trigger that fills it.

The rollup (collector/rollup.py) materializes the 1 min tier up to a watermark that trails the
clock by CELLAR_ROLLUP_LAG_S (>= 120 s). A sample written later than that for a time the
rollup may already have passed (a spool replayed after a database outage, a poller that was
cut off from the database) is logged here as (switch, 1-minute bucket); the next rollup run
recomputes exactly those buckets and the coarser buckets that contain them.

The trigger is the same idea as TimescaleDB's own continuous-aggregate invalidation log (not
available in the Apache edition). It costs one comparison per inserted row; only late rows
write to the log (ON CONFLICT DO NOTHING keeps it one row per switch and minute).

Why `now() - 60 s` is safe: the rollup only passes times older than its own start minus the lag
(>= 120 s), and a writer transaction (statement_timeout 60 s) lasts less than half of that, so
every row the rollup could have missed is older than its transaction's now() - 60 s.
Why `< watermark + 6 h`: rows at or above the watermark are picked up by the forward pass anyway
(bulk historical loads before the first rollup therefore log nothing); 6 h is the longest span
one forward step advances the watermark (rollup.FORWARD_STEP), so a row whose trigger read the
watermark just before a step committed is still logged.
"""
from django.db import migrations

CREATE = """
CREATE TABLE traffic_rollup_invalidation (
    switch_id integer     NOT NULL,
    bucket    timestamptz NOT NULL,
    PRIMARY KEY (switch_id, bucket)
);

CREATE FUNCTION cellar_rollup_invalidate() RETURNS trigger
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

CREATE TRIGGER traffic_sample_rollup_invalidate
AFTER INSERT ON traffic_sample
FOR EACH ROW EXECUTE FUNCTION cellar_rollup_invalidate();
"""

REVERSE = """
DROP TRIGGER traffic_sample_rollup_invalidate ON traffic_sample;
DROP FUNCTION cellar_rollup_invalidate();
DROP TABLE traffic_rollup_invalidation;
"""


class Migration(migrations.Migration):
    dependencies = [("traffic", "0006_rollup_tiers")]
    operations = [migrations.RunSQL(CREATE, reverse_sql=REVERSE)]
