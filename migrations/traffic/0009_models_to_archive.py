"""The traffic app becomes a page app: its models now belong to the archive app (state only;
the tables stay, see migrations/archive/0001)."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("traffic", "0008_lz4_sample_arrays"), ("archive", "0001_models_from_traffic")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel("Sample"),
                migrations.DeleteModel("PollLog"),
                migrations.DeleteModel("Layout"),
                migrations.DeleteModel("Series"),
            ],
            database_operations=[],
        ),
    ]
