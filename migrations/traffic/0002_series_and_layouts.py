"""Series (one counter of one object) and layouts (the order of series in a sample row)."""
import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("inventory", "0001_inventory_tables"), ("traffic", "0001_timescaledb_extension")]

    operations = [
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
                ("reset_series", models.ForeignKey(blank=True, help_text="the discontinuity-time series that tells a reset", null=True, on_delete=django.db.models.deletion.SET_NULL, to="traffic.series")),
                ("switch", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.switch")),
                ("vc", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.virtualchannel")),
                ("vp", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="series", to="inventory.virtualpath")),
            ],
            options={"verbose_name_plural": "series", "ordering": ["switch", "object_name", "index"]},
        ),
        migrations.AddConstraint(
            model_name="series",
            constraint=models.UniqueConstraint(fields=("switch", "object_name", "index"), name="series_unique"),
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
        ),
        migrations.AddConstraint(
            model_name="layout",
            constraint=models.UniqueConstraint(fields=("switch", "digest"), name="layout_unique_digest"),
        ),
    ]
