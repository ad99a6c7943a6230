"""External points: one row per (series, interval start), a TimescaleDB hypertable on t.

Written as SQL (like migrations/traffic/0003): the primary key (series_id, t) is the only index
(it serves the overlap check of a re-import, replace, and per-series range reads), TimescaleDB's
default time index is not created, and the foreign key deletes a series' points with it in the
database (ON DELETE CASCADE) instead of row by row through the ORM. Chunks of 90 days: a
15-minute series has 8,640 points in one.
"""
import django.db.models.deletion
from django.db import migrations, models

CREATE = """
CREATE TABLE external_point (
    t         timestamptz      NOT NULL,
    series_id bigint           NOT NULL REFERENCES external_series (id) ON DELETE CASCADE,
    value     double precision NOT NULL CHECK (value >= 0),
    PRIMARY KEY (series_id, t)
);
SELECT create_hypertable('external_point', by_range('t', INTERVAL '90 days'), create_default_indexes => false);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("external", "0001_external_series"),
        ("traffic", "0001_timescaledb_extension"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(sql=CREATE, reverse_sql="DROP TABLE external_point;")],
            state_operations=[
                migrations.CreateModel(
                    name="ExternalPoint",
                    fields=[
                        ("pk", models.CompositePrimaryKey("series_id", "t", blank=True, editable=False, primary_key=True, serialize=False)),
                        ("t", models.DateTimeField(help_text="start of the interval, UTC")),
                        ("value", models.FloatField(help_text="units counted in the interval (>= 0)")),
                        ("series", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="external.externalseries")),
                    ],
                    options={"db_table": "external_point"},
                ),
            ],
        ),
    ]
