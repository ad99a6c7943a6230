"""The studies app's models now belong to the runs and bursts apps (state only; the tables stay, see
migrations/runs/0001 and migrations/bursts/0001). This app keeps only its migrations."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("studies", "0005_burst_min_samples"), ("runs", "0001_experiment_run_from_studies"),
                    ("bursts", "0001_bursts_from_studies")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel("ExperimentRun"),
                migrations.DeleteModel("Burst"),
                migrations.DeleteModel("BurstScan"),
            ],
            database_operations=[],
        ),
    ]
