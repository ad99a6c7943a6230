"""Port.hw_index: where a port sits in the agent's hardware port table (FORE hwPortTable: board,
module, port), so counters kept there (hwPortOverflows: profile entity hwport) reach their port."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0008_credential_sets_host_poller_group'),
    ]

    operations = [
        migrations.AddField(
            model_name='port',
            name='hw_index',
            field=models.CharField(blank=True, default='', help_text=(
                "the port's index in the agent's hardware port table (FORE hwPortTable: board.module.port), "
                "where counters of entity hwport are kept"), max_length=64),
        ),
    ]
