"""The poll log keeps what a poll could not use, or read by a rule, and why (counts per reason and
the first examples with their interface): nothing the agent answered is dropped silently."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("archive", "0002_drop_reset_series")]

    operations = [
        migrations.AddField(
            model_name="polllog",
            name="notes",
            field=models.JSONField(blank=True, null=True, help_text=(
                "values read by a rule or not used: {not_used: {reason: n}, read_by_rule: {reason: n}, "
                "examples: [[object, index, reason, value]]} (collector/core/readings.py)")),
        ),
    ]
