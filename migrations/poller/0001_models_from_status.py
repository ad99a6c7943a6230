"""The poller app takes over the health tables it writes from the status page app (state only:
status_switchhealth, status_hoststate and the status_host_check hypertable keep their names and
rows). Content types move with the models."""
import django.db.models.deletion
from django.db import migrations, models

MOVED = ("switchhealth", "hoststate", "hostcheck")


def move_content_types(apps, schema_editor, old="status", new="poller"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, old="poller", new="status")


STATE = [
    migrations.CreateModel(
        name="SwitchHealth",
        fields=[
            ("switch", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="health", serialize=False, to="inventory.switch")),
            ("last_poll_at", models.DateTimeField(blank=True, null=True)),
            ("last_success_at", models.DateTimeField(blank=True, null=True)),
            ("last_status", models.CharField(blank=True, default="", max_length=16)),
            ("last_duration_ms", models.IntegerField(blank=True, null=True)),
            ("last_varbinds", models.IntegerField(blank=True, null=True)),
            ("last_error", models.TextField(blank=True, default="")),
            ("consecutive_failures", models.IntegerField(default=0)),
            ("polls_ok", models.BigIntegerField(default=0)),
            ("polls_failed", models.BigIntegerField(default=0)),
        ],
        options={"db_table": "status_switchhealth"},
    ),
    migrations.CreateModel(
        name="HostState",
        fields=[
            ("host", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="state", serialize=False, to="inventory.host")),
            ("reachable", models.BooleanField(null=True)),
            ("rtt_ms", models.FloatField(blank=True, null=True)),
            ("method", models.CharField(blank=True, default="", max_length=8)),
            ("checked_at", models.DateTimeField(blank=True, null=True)),
            ("last_seen_at", models.DateTimeField(blank=True, null=True)),
            ("error", models.CharField(blank=True, default="", max_length=255)),
        ],
        options={"db_table": "status_hoststate"},
    ),
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
]


class Migration(migrations.Migration):
    initial = True
    dependencies = [
        ("inventory", "0001_inventory_tables"),
        ("status", "0002_host_check_hypertable"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
