"""A switch's site time zone: bill days start at midnight there."""

from django.db import migrations, models

import collector.inventory.models


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0005_topology_links_evidence_positions'),
    ]

    operations = [
        migrations.AddField(
            model_name='switch',
            name='time_zone',
            field=models.CharField(blank=True, default='', help_text="IANA zone of the switch's site (Europe/Paris): the billing days of bills on its ports start at midnight there; empty = UTC", max_length=64, validators=[collector.inventory.models.validate_time_zone]),
        ),
    ]
