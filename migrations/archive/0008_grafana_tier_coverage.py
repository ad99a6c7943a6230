"""grafana.tier(interval_ms, time_from): the tier 0007's grafana.tier(interval_ms) picks, or the
next coarser one that holds time_from, so that a panel over a range where its tier holds nothing
gets coarser points instead of "No data":

- raw rows start where the newest settled day ends (days settled into blocks after
  CELLAR_SETTLE_AFTER_HOURS are not rows any more: collector/archive/settle.py), and at raw
  retention's oldest chunk;
- each rollup tier starts at its oldest chunk (retention drops whole chunks);
- the 1-day tier is the last resort.

Dashboards call it once per query as `tier = (SELECT grafana.tier($__interval_ms, $__timeFrom()))`:
an InitPlan, so the coverage is looked up once and every branch of grafana.traffic but the chosen
one is skipped by its one-time filter (STABLE: it reads the catalog, so the planner cannot fold it
as it folds the IMMUTABLE one-argument form, which stays for queries written against it). The
newest settled day is looked for among the last 30 days' blocks only (an index probe per chunk):
an archive that stopped settling longer ago reads as unsettled there. SECURITY DEFINER: the role
may read the views only, not the tables and catalog this looks at.
"""
from django.db import migrations

ROLE = "cellar_grafana"

CREATE = f"""
CREATE FUNCTION grafana.tier(interval_ms bigint, time_from timestamptz) RETURNS text
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
           (1, '1m', (SELECT oldest FROM chunks WHERE h = 'traffic_rollup_1m')),
           (2, '15m', (SELECT oldest FROM chunks WHERE h = 'traffic_rollup_15m')),
           (3, '1h', (SELECT oldest FROM chunks WHERE h = 'traffic_rollup_1h')),
           (4, '1d', '-infinity'::timestamptz)
)
SELECT tier FROM cover
 WHERE k >= (SELECT k FROM cover WHERE tier = grafana.tier(interval_ms)) AND since <= time_from
 ORDER BY k LIMIT 1
$$;
REVOKE ALL ON FUNCTION grafana.tier(bigint, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grafana.tier(bigint, timestamptz) TO {ROLE};
"""

REVERSE = "DROP FUNCTION grafana.tier(bigint, timestamptz);"


class Migration(migrations.Migration):
    dependencies = [("archive", "0007_grafana_views")]

    operations = [migrations.RunSQL(CREATE, reverse_sql=REVERSE)]
