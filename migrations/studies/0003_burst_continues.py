"""A burst that runs across midnight is stored as one row per UTC day (each day's rule uses that
day's median); the later rows say they continue it, so it is counted once."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("studies", "0002_runs")]

    operations = [
        migrations.AddField(
            model_name="burst",
            name="continues",
            field=models.BooleanField(default=False, help_text=(
                "this row continues the previous day's burst, which ran to midnight")),
        ),
    ]
