"""Latest poll health per switch and latest reachability per host (small, updated in place)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = [("inventory", "0001_inventory_tables")]

    operations = [
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
        ),
    ]
