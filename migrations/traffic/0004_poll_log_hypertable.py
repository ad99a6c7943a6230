"""Every poll attempt with its outcome, so a gap in the samples can say why (hypertable)."""
import django.db.models.deletion
from django.db import migrations, models

CREATE = """
CREATE TABLE traffic_poll_log (
    time        timestamptz NOT NULL,
    switch_id   integer     NOT NULL,
    duration_ms integer     NOT NULL DEFAULT 0,
    varbinds    integer     NOT NULL DEFAULT 0,
    samples     integer     NOT NULL DEFAULT 0,
    status      varchar(16) NOT NULL,
    error       text        NOT NULL DEFAULT '',
    PRIMARY KEY (switch_id, time)
);
SELECT create_hypertable('traffic_poll_log', by_range('time', INTERVAL '7 days'), create_default_indexes => false);
"""

STATUSES = [("ok", "ok"), ("partial", "partial answer"), ("timeout", "timeout"), ("unreachable", "unreachable"),
            ("auth", "authentication failure"), ("error", "error"), ("skipped", "skipped (late)")]


class Migration(migrations.Migration):
    dependencies = [("traffic", "0003_sample_hypertable")]

    operations = [
        migrations.RunSQL(
            sql=CREATE,
            reverse_sql="DROP TABLE traffic_poll_log;",
            state_operations=[
                migrations.CreateModel(
                    name="PollLog",
                    fields=[
                        ("pk", models.CompositePrimaryKey("switch_id", "time", blank=True, editable=False, primary_key=True, serialize=False)),
                        ("time", models.DateTimeField()),
                        ("status", models.CharField(choices=STATUSES, max_length=16)),
                        ("duration_ms", models.IntegerField(default=0)),
                        ("varbinds", models.IntegerField(default=0)),
                        ("samples", models.IntegerField(default=0)),
                        ("error", models.TextField(blank=True, default="")),
                        ("switch", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="inventory.switch")),
                    ],
                    options={"db_table": "traffic_poll_log"},
                ),
            ],
        ),
    ]
