"""Schema `grafana`: stable views of the archive for Grafana's PostgreSQL data source, and the
read-only role `cellar_grafana` that may read them and nothing else (docs/integrations.md, "Grafana").

Every traffic view has the same columns, so a panel can read any of them (or `grafana.traffic`, all
of them with a `tier` column): time, value (the average rate in the series' unit per second:
sum_delta * 1000 / sum_interval_ms, the plots' arithmetic; NULL where nothing is drawn), peak and
low (the highest and lowest drawn rate inside the bucket), delta and interval_ms (the exact sums, so
that a query summing buckets gets exact averages), samples, flagged, and the labels series_id,
switch, port, vpi, vci, direction, metric, unit.

- traffic_1m, traffic_15m, traffic_1h, traffic_1d: the rollup tiers as they are, up to each tier's
  watermark (the newest minutes appear when the rollup has run; the plots add that tail on the fly).
- traffic_raw: the rows of traffic_sample, one per series and poll (the layout arrays unnested).
  Days settled into blocks (collector/archive/settle.py, after CELLAR_SETTLE_AFTER_HOURS) are not
  rows any more: there the tiers answer.
- series_labels: one row per counter series, for the dashboards' variables.
- vc_path(switch, port, vpi, vci): the endpoints a VC's cells pass, from where they enter: each hop's
  entry (direction in) and, through the switch's VC or VP cross-connect, its exit (out), then across
  the inventory's link (not rejected; a confirmed one first) to the next switch, as the status pages'
  VCC trace follows them (without its inferences from ILMI and port names). SECURITY DEFINER: it
  reads the inventory, which the role may not.
- tier(interval_ms): the tier a panel reads for Grafana's $__interval_ms (the range over the panel's
  points): raw below 30 s, 1m below 5 min, 15m below 30 min, 1h below 6 h, else 1d, so a panel gets
  between about half and five times the points it asks for (24 h: 1440 minutes; 7 days: 672 quarter
  hours; a year: 365 days). IMMUTABLE, so with the constant Grafana sends the planner folds
  `tier = grafana.tier(...)` and scans only that branch of grafana.traffic.

Each view selects from a hypertable with its time column unchanged (`time` is bucket or time), so a
panel's `$__timeFilter(time)` reaches the hypertable and excludes its chunks at planning.

Drawn and flagged (raw view) follow collector/archive/rollup.py drawn_sql and flagged_sql, written out
here so that this migration keeps meaning what it meant: NOT_DRAWN is OVER_CAPACITY (8) and ROUTINE is
WRAP (1) (collector/core/facts.py; tests/integration/grafana compare the view with the reader).

The role: NOLOGIN here, with SELECT on the views only (a view reads its tables with its owner's
rights, so the role needs nothing on them), read-only transactions, and the statement timeout of a
plot's data (collector/reader/timelimits.py "traffic.data", 15 s) so that a dashboard over an
unbounded range is stopped as the plot page would be. `manage.py grafana_role` gives it LOGIN and
the password of CELLAR_GRAFANA_PASSWORD, and the timeout scaled as the pages' are. A role belongs to
the whole cluster: it is created only if missing (a test database beside the real one), and dropped
on reverse only when no other database still grants it anything.
"""
from django.db import migrations

ROLE = "cellar_grafana"
TIMEOUT_MS = 15_000
TIERS = ("1m", "15m", "1h", "1d")
LABELS = "l.series_id, l.switch, l.port, l.vpi, l.vci, l.direction, l.metric, l.unit"
DRAWN = "(u.d IS NOT NULL AND (u.f & 8) = 0 AND s.interval_ms > 0)"
RATE = f"CASE WHEN {DRAWN} THEN u.d::float8 * 1000 / s.interval_ms END"


def tier_view(tier: str) -> str:
    return f"""
CREATE VIEW grafana.traffic_{tier} AS
SELECT r.bucket AS time,
       CASE WHEN r.sum_interval_ms > 0 THEN r.sum_delta::float8 * 1000 / r.sum_interval_ms END AS value,
       r.max_rate AS peak, r.min_rate AS low, r.sum_delta AS delta, r.sum_interval_ms AS interval_ms,
       r.samples, r.flagged, {LABELS}
  FROM traffic_rollup_{tier} r JOIN grafana.series_labels l ON l.series_id = r.series_id;"""


CREATE = f"""
CREATE SCHEMA grafana;

CREATE VIEW grafana.series_labels AS
SELECT s.id AS series_id, s.switch_id, sw.name::text AS switch, coalesce(p.name, s.index)::text AS port,
       coalesce(vc.vpi, vp.vpi) AS vpi, vc.vci, s.direction::text AS direction, s.metric::text AS metric,
       s.unit::text AS unit, s.object_name::text AS object, coalesce(p.label, '')::text AS port_label
  FROM traffic_series s
  JOIN inventory_switch sw ON sw.id = s.switch_id
  LEFT JOIN inventory_port p ON p.id = s.port_id
  LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
  LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id
 WHERE s.kind = 'counter';

{"".join(tier_view(t) for t in TIERS)}

CREATE VIEW grafana.traffic_raw AS
SELECT s.time, {RATE} AS value, {RATE} AS peak, {RATE} AS low,
       CASE WHEN {DRAWN} THEN u.d ELSE 0 END::bigint AS delta,
       CASE WHEN {DRAWN} THEN s.interval_ms ELSE 0 END::bigint AS interval_ms,
       1 AS samples, CASE WHEN (u.f & ~1) <> 0 THEN 1 ELSE 0 END AS flagged, {LABELS}
  FROM traffic_sample s
  JOIN traffic_layout lay ON lay.id = s.layout_id
 CROSS JOIN LATERAL unnest(lay.series_ids, s.delta, s.flags) AS u(sid, d, f)
  JOIN grafana.series_labels l ON l.series_id = u.sid AND l.switch_id = s.switch_id;

CREATE VIEW grafana.traffic AS
SELECT 'raw'::text AS tier, * FROM grafana.traffic_raw
{"".join(f" UNION ALL SELECT '{t}'::text, * FROM grafana.traffic_{t}" for t in TIERS)};

CREATE FUNCTION grafana.tier(interval_ms bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN interval_ms < 30000 THEN 'raw' WHEN interval_ms < 300000 THEN '1m'
            WHEN interval_ms < 1800000 THEN '15m' WHEN interval_ms < 21600000 THEN '1h' ELSE '1d' END
$$;

CREATE FUNCTION grafana.vc_path(at_switch text, at_port text, at_vpi integer, at_vci integer)
RETURNS TABLE (hop integer, switch text, port text, vpi integer, vci integer, direction text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
WITH RECURSIVE entered (hop, port_id, vpi, vci, seen) AS (
    SELECT 0, p.id, at_vpi, at_vci, ARRAY[p.id]
      FROM inventory_port p JOIN inventory_switch sw ON sw.id = p.switch_id
     WHERE sw.name = at_switch AND p.name = at_port
    UNION ALL
    SELECT e.hop + 1, far.port_id, x.out_vpi, x.out_vci, e.seen || far.port_id
      FROM entered e
     CROSS JOIN LATERAL (
           SELECT c.out_port_id, c.out_vpi, coalesce(c.out_vci, e.vci) AS out_vci FROM inventory_crossconnect c
            WHERE c.in_port_id = e.port_id AND c.in_vpi = e.vpi AND c.gone_at IS NULL
              AND (c.in_vci = e.vci OR (c.kind = 'vp' AND c.in_vci IS NULL))
            ORDER BY c.kind DESC LIMIT 1) x
     CROSS JOIN LATERAL (
           SELECT CASE WHEN l.a_port_id = x.out_port_id THEN l.b_port_id ELSE l.a_port_id END AS port_id
             FROM inventory_link l
            WHERE (l.a_port_id = x.out_port_id OR l.b_port_id = x.out_port_id) AND l.b_port_id IS NOT NULL
              AND l.state <> 'rejected'
            ORDER BY l.state = 'confirmed' DESC, l.id LIMIT 1) far
     WHERE e.hop < 32 AND NOT far.port_id = ANY(e.seen)
), hops AS (
    SELECT e.hop, e.port_id, e.vpi, e.vci, 'in'::text AS direction FROM entered e
    UNION ALL
    SELECT e.hop, c.out_port_id, c.out_vpi, coalesce(c.out_vci, e.vci), 'out' FROM entered e
      JOIN LATERAL (SELECT * FROM inventory_crossconnect c
                     WHERE c.in_port_id = e.port_id AND c.in_vpi = e.vpi AND c.gone_at IS NULL
                       AND (c.in_vci = e.vci OR (c.kind = 'vp' AND c.in_vci IS NULL))
                     ORDER BY c.kind DESC LIMIT 1) c ON true
)
SELECT h.hop, sw.name::text, p.name::text, h.vpi, h.vci, h.direction
  FROM hops h JOIN inventory_port p ON p.id = h.port_id JOIN inventory_switch sw ON sw.id = p.switch_id
 ORDER BY h.hop, h.direction
$$;

DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{ROLE}') THEN
        CREATE ROLE {ROLE} NOLOGIN;
    END IF;
END $$;
ALTER ROLE {ROLE} SET statement_timeout = {TIMEOUT_MS};
ALTER ROLE {ROLE} SET default_transaction_read_only = on;
REVOKE ALL ON SCHEMA grafana FROM PUBLIC;
REVOKE ALL ON FUNCTION grafana.tier(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION grafana.vc_path(text, text, integer, integer) FROM PUBLIC;
GRANT USAGE ON SCHEMA grafana TO {ROLE};
GRANT SELECT ON ALL TABLES IN SCHEMA grafana TO {ROLE};
GRANT EXECUTE ON FUNCTION grafana.tier(bigint) TO {ROLE};
GRANT EXECUTE ON FUNCTION grafana.vc_path(text, text, integer, integer) TO {ROLE};
"""

REVERSE = f"""
DROP SCHEMA grafana CASCADE;
DO $$ BEGIN
    DROP ROLE IF EXISTS {ROLE};
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'role {ROLE} kept: another database still grants it privileges';
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("archive", "0006_settled_blocks"), ("inventory", "0009_port_hw_index")]

    operations = [migrations.RunSQL(CREATE, reverse_sql=REVERSE)]
