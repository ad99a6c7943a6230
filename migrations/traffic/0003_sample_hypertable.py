"""Raw samples: one row per (switch, poll), a TimescaleDB hypertable partitioned by day.

Written as SQL so the column order (8-byte columns first, no padding) and the indexes are
exactly what we measured: the composite primary key (switch_id, time) is the only index,
serving both idempotent inserts (ON CONFLICT DO NOTHING) and per-switch time-range reads;
TimescaleDB's default extra time index is not created.
"""
import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

CREATE = """
CREATE TABLE traffic_sample (
    time        timestamptz NOT NULL,
    uptime_cs   bigint,
    switch_id   integer     NOT NULL,
    layout_id   integer     NOT NULL,
    interval_ms integer,
    raw         bigint[]    NOT NULL,
    delta       bigint[]    NOT NULL,
    flags       smallint[]  NOT NULL,
    PRIMARY KEY (switch_id, time)
);
SELECT create_hypertable('traffic_sample', by_range('time', INTERVAL '1 day'), create_default_indexes => false);
"""


class Migration(migrations.Migration):
    dependencies = [("traffic", "0002_series_and_layouts")]

    operations = [
        migrations.RunSQL(
            sql=CREATE,
            reverse_sql="DROP TABLE traffic_sample;",
            state_operations=[
                migrations.CreateModel(
                    name="Sample",
                    fields=[
                        ("pk", models.CompositePrimaryKey("switch_id", "time", blank=True, editable=False, primary_key=True, serialize=False)),
                        ("time", models.DateTimeField()),
                        ("uptime_cs", models.BigIntegerField(null=True)),
                        ("interval_ms", models.IntegerField(help_text="since the previous stored poll of this switch", null=True)),
                        ("raw", django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(null=True), size=None)),
                        ("delta", django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(null=True), size=None)),
                        ("flags", django.contrib.postgres.fields.ArrayField(base_field=models.SmallIntegerField(), size=None)),
                        ("layout", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="traffic.layout")),
                        ("switch", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="inventory.switch")),
                    ],
                    options={"db_table": "traffic_sample"},
                ),
            ],
        ),
    ]
