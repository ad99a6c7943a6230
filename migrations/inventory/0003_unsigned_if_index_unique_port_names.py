"""SNMP indexes are unsigned 32-bit (ifIndex 4,160,777,152 on a DSLAM did not fit the int4
column), and port names are unique on a switch: `agent_name` keeps the name as the agent gives
it, `name` adds the ifIndex (or the port number) when several ports share it. Existing rows keep
their data; duplicate names among them are made unique the way discovery now names them
(0004 then adds the unique constraint).
"""
import django.core.validators
from django.db import migrations, models
from django.db.models import Count


def qualified(agent_name, key, if_index):
    # As collector/inventory/ports.py names them (copied: a migration must not change with the app).
    return f"{agent_name} (ifIndex {if_index})" if if_index is not None else f"{agent_name} (port {key})"


def unique_names(apps, schema_editor):
    Port = apps.get_model("inventory", "Port")
    Port.objects.update(agent_name=models.F("name"))
    dups = (Port.objects.values("switch_id", "name").annotate(n=Count("id")).filter(n__gt=1))
    for d in dups:
        for port in Port.objects.filter(switch_id=d["switch_id"], name=d["name"]):
            port.name = qualified(port.agent_name, port.key, port.if_index)
            port.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [("inventory", "0002_choices_and_defaults_from_data")]

    operations = [
        migrations.AlterField(
            model_name="port",
            name="if_index",
            field=models.BigIntegerField(blank=True, null=True, validators=[
                django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(4294967295)]),
        ),
        migrations.AlterField(
            model_name="port",
            name="name",
            field=models.CharField(help_text="unique on the switch: the agent's name, or, when several ports share "
                                   "it, the name with the ifIndex (or port number)", max_length=255),
        ),
        migrations.AddField(
            model_name="port",
            name="agent_name",
            field=models.CharField(blank=True, default="", help_text="the name as the agent gives it: A1 / 1A1 / "
                                   "ifName / ifDescr", max_length=255),
        ),
        migrations.RunPython(unique_names, migrations.RunPython.noop),
        # The constraint comes in 0004: in this transaction the renames above leave deferred
        # foreign-key checks pending, and PostgreSQL refuses an ALTER TABLE until they ran.
    ]
