"""A port's name is unique on its switch (checked at commit: discovery may swap two names)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("inventory", "0003_unsigned_if_index_unique_port_names")]

    operations = [
        migrations.AddConstraint(
            model_name="port",
            constraint=models.UniqueConstraint(deferrable=models.Deferrable.DEFERRED, fields=("switch", "name"),
                                               name="port_unique_name"),
        ),
    ]
