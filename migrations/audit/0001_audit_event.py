"""The audit trail (collector/audit): who changed which switch, host, link, credential or run, and when."""
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("time", models.DateTimeField(default=django.utils.timezone.now)),
                ("actor_label", models.CharField(max_length=150, verbose_name="actor")),
                ("source", models.CharField(choices=[("web", "web"), ("admin", "admin"), ("api", "api"), ("cli", "cli"), ("task", "task")], max_length=8)),
                ("address", models.GenericIPAddressField(blank=True, help_text="client address of a web request", null=True)),
                ("action", models.CharField(choices=[("create", "create"), ("update", "update"), ("delete", "delete")], max_length=8)),
                ("object_type", models.CharField(help_text="app_label.model", max_length=100)),
                ("object_id", models.CharField(max_length=64)),
                ("object_repr", models.CharField(max_length=200, verbose_name="object")),
                ('changes', models.JSONField(blank=True, default=dict, help_text='{field: {"old": v, "new": v}}; a secret field: {field: {"secret": "set" | "changed" | "cleared"}}')),
                ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "db_table": "audit_event",
                "ordering": ["-time", "-id"],
                "default_permissions": ("view",),
                "indexes": [models.Index(fields=["time"], name="audit_time"), models.Index(fields=["object_type", "object_id"], name="audit_object")],
            },
        ),
    ]
