"""Experiment runs (collector/runs/edit.py)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("studies", "0001_bursts"), ("inventory", "0004_port_unique_name"),
                    ("archive", "0003_polllog_notes")]

    operations = [
        migrations.CreateModel(
            name="ExperimentRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("description", models.TextField(blank=True, default="")),
                ("start", models.DateTimeField()),
                ("end", models.DateTimeField(blank=True, help_text="empty while the run is going on", null=True)),
                ("bytes_sent", models.BigIntegerField(blank=True, help_text="what the application says it sent", null=True)),
                ("messages", models.BigIntegerField(blank=True, null=True)),
                ("message_size", models.IntegerField(blank=True, help_text="bytes per message (AAL5 CPCS-SDU)", null=True)),
                ("overhead", models.IntegerField(default=0, help_text="header bytes per message not counted in bytes_sent")),
                ("report", models.JSONField(blank=True, help_text="the application's own report (iperf3 -J)", null=True)),
                ("created_by", models.CharField(blank=True, default="", max_length=150)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("channel", models.ForeignKey(blank=True, help_text="the PVC endpoint it concerns", null=True,
                                              on_delete=django.db.models.deletion.SET_NULL, related_name="+",
                                              to="inventory.virtualchannel")),
                ("dst_host", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                               related_name="+", to="inventory.host")),
                ("src_host", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                               related_name="+", to="inventory.host")),
                ("series", models.ManyToManyField(blank=True, related_name="+", to="archive.series")),
            ],
            options={
                "db_table": "studies_run",
                "ordering": ["-start"],
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("end__isnull", True), ("end__gt", models.F("start")), _connector="OR"),
                                           name="run_end_after_start"),
                    models.CheckConstraint(condition=models.Q(("bytes_sent__isnull", True), ("bytes_sent__gte", 0), _connector="OR"),
                                           name="run_bytes_not_negative"),
                ],
            },
        ),
    ]
