"""The burst rule also asks for a number of poll samples above the threshold (numerics/bursts.py:
single-sample spikes are not bursts); each stored burst says the number it was found with, rows
found before saying 1 (they had no such part)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("studies", "0004_run_message_fields")]

    operations = [
        migrations.AddField(
            model_name="burst",
            name="rule_min_samples",
            field=models.IntegerField(default=1, help_text=(
                "poll samples above the threshold a burst held at least (1: rows found before this part of the rule)")),
        ),
    ]
