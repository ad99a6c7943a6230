"""The status app becomes a page app: its models now belong to the poller app (state only;
the tables stay, see migrations/poller/0001)."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("status", "0002_host_check_hypertable"), ("poller", "0001_models_from_status")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel("SwitchHealth"),
                migrations.DeleteModel("HostState"),
                migrations.DeleteModel("HostCheck"),
            ],
            database_operations=[],
        ),
    ]
