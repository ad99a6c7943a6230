"""The history of host reachability checks (hypertable), for the host page's delay history."""
import django.db.models.deletion
from django.db import migrations, models

CREATE = """
CREATE TABLE status_host_check (
    time      timestamptz NOT NULL,
    rtt_ms    double precision,
    host_id   integer     NOT NULL,
    reachable boolean     NOT NULL,
    method    varchar(8)  NOT NULL,
    error     varchar(255) NOT NULL DEFAULT '',
    PRIMARY KEY (host_id, time)
);
SELECT create_hypertable('status_host_check', by_range('time', INTERVAL '7 days'), create_default_indexes => false);
"""


class Migration(migrations.Migration):
    dependencies = [("status", "0001_health_tables"), ("traffic", "0001_timescaledb_extension")]

    operations = [
        migrations.RunSQL(
            sql=CREATE,
            reverse_sql="DROP TABLE status_host_check;",
            state_operations=[
                migrations.CreateModel(
                    name="HostCheck",
                    fields=[
                        ("pk", models.CompositePrimaryKey("host_id", "time", blank=True, editable=False, primary_key=True, serialize=False)),
                        ("time", models.DateTimeField()),
                        ("reachable", models.BooleanField()),
                        ("rtt_ms", models.FloatField(null=True)),
                        ("method", models.CharField(max_length=8)),
                        ("error", models.CharField(blank=True, default="", max_length=255)),
                        ("host", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="inventory.host")),
                    ],
                    options={"db_table": "status_host_check"},
                ),
            ],
        ),
    ]
