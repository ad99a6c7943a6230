"""The archive app takes over the models of the tables the traffic app created (state only).

Series, Layout, Sample and PollLog move from the traffic page app to the archive, which writes
them; the rollup tiers, their watermarks and the invalidation log (created by hand in
migrations/traffic/0006-0007) get models for the first time. No table changes: every model keeps
its table (traffic_*), so a database made before the move keeps every row (tested in
tests/integration/platform/test_migrate_forward.py). Content types move with the models, so
permissions given on them stay.
"""
import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

MOVED = ("series", "layout", "sample", "polllog")
STATUSES = [("ok", "ok"), ("partial", "partial answer"), ("timeout", "timeout"), ("unreachable", "unreachable"),
            ("auth", "authentication failure"), ("error", "error"), ("skipped", "skipped (late)")]


def move_content_types(apps, schema_editor, old="traffic", new="archive"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, old="archive", new="traffic")


def bucket_fields():
    return [
        ("pk", models.CompositePrimaryKey("series_id", "bucket", blank=True, editable=False, primary_key=True, serialize=False)),
        ("bucket", models.DateTimeField()),
        ("sum_delta", models.BigIntegerField()),
        ("sum_interval_ms", models.BigIntegerField()),
        ("max_rate", models.FloatField(null=True)),
        ("min_rate", models.FloatField(null=True)),
        ("samples", models.IntegerField()),
        ("flagged", models.IntegerField()),
        ("series", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="archive.series")),
    ]


STATE = [
    migrations.CreateModel(
        name="Series",
        fields=[
            ("id", models.AutoField(primary_key=True, serialize=False)),
            ("object_name", models.CharField(help_text="profile object, e.g. portReceivedCells", max_length=64)),
            ("index", models.CharField(help_text="OID index suffix, e.g. 2.0.201", max_length=64)),
            ("kind", models.CharField(choices=[("counter", "counter"), ("discontinuity", "discontinuity time")], default="counter", max_length=16)),
            ("direction", models.CharField(blank=True, choices=[("in", "receive"), ("out", "transmit"), ("", "n/a")], default="", max_length=3)),
            ("metric", models.CharField(help_text="cells, octets, ucast_pkts, discards, errors ...", max_length=32)),
            ("unit", models.CharField(help_text="cells, octets, packets", max_length=16)),
            ("width", models.PositiveSmallIntegerField(default=32)),
            ("capacity_per_s", models.BigIntegerField(blank=True, help_text="units/s at line rate", null=True)),
            ("first_seen", models.DateTimeField(auto_now_add=True)),
            ("gone_at", models.DateTimeField(blank=True, null=True)),
            ("port", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.port")),
            ("reset_series", models.ForeignKey(blank=True, help_text="the discontinuity-time series that tells a reset", null=True, on_delete=django.db.models.deletion.SET_NULL, to="archive.series")),
            ("switch", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.switch")),
            ("vc", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.virtualchannel")),
            ("vp", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.virtualpath")),
        ],
        options={"db_table": "traffic_series", "verbose_name_plural": "series", "ordering": ["switch", "object_name", "index"],
                 "constraints": [models.UniqueConstraint(fields=("switch", "object_name", "index"), name="series_unique")]},
    ),
    migrations.CreateModel(
        name="Layout",
        fields=[
            ("id", models.AutoField(primary_key=True, serialize=False)),
            ("series_ids", django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), size=None)),
            ("digest", models.CharField(help_text="sha256 of series_ids, to reuse layouts", max_length=64)),
            ("created_at", models.DateTimeField(auto_now_add=True)),
            ("switch", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="layouts", to="inventory.switch")),
        ],
        options={"db_table": "traffic_layout",
                 "constraints": [models.UniqueConstraint(fields=("switch", "digest"), name="layout_unique_digest")]},
    ),
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
            ("layout", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="archive.layout")),
            ("switch", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="inventory.switch")),
        ],
        options={"db_table": "traffic_sample"},
    ),
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
    *[migrations.CreateModel(name=f"Rollup{tier}", fields=bucket_fields(), options={"db_table": f"traffic_rollup_{tier}"})
      for tier in ("1m", "15m", "1h", "1d")],
    migrations.CreateModel(
        name="RollupWatermark",
        fields=[
            ("tier", models.CharField(max_length=8, primary_key=True, serialize=False)),
            ("done_until", models.DateTimeField()),
            ("updated_at", models.DateTimeField()),
        ],
        options={"db_table": "traffic_rollup_watermark"},
    ),
    migrations.CreateModel(
        name="RollupInvalidation",
        fields=[
            ("pk", models.CompositePrimaryKey("switch_id", "bucket", blank=True, editable=False, primary_key=True, serialize=False)),
            ("bucket", models.DateTimeField()),
            ("switch", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="inventory.switch")),
        ],
        options={"db_table": "traffic_rollup_invalidation"},
    ),
]


class Migration(migrations.Migration):
    initial = True
    dependencies = [
        ("inventory", "0001_inventory_tables"),
        ("traffic", "0008_lz4_sample_arrays"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
