"""Switch choices and defaults become callables: profiles come from their YAML files (a new
profile file needs no migration), SNMP versions and protocols from collector.core.snmp_types,
and the defaults of a new switch from CELLAR_DEFAULT_POLL_INTERVAL, CELLAR_SNMP_TIMEOUT and
CELLAR_SNMP_RETRIES. No SQL: Django keeps choices and defaults in Python."""

import django.core.validators
from django.db import migrations, models

import collector.inventory.models


class Migration(migrations.Migration):
    dependencies = [
        ('inventory', '0001_inventory_tables'),
    ]

    operations = [
        migrations.AlterField(
            model_name='switch',
            name='auth_proto',
            field=models.CharField(blank=True, choices=collector.inventory.models.auth_protocol_choices, default='', max_length=8),
        ),
        migrations.AlterField(
            model_name='switch',
            name='poll_interval_s',
            field=models.PositiveIntegerField(default=collector.inventory.models.default_poll_interval, help_text='seconds between polls; changes take effect without a restart', validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(3600)]),
        ),
        migrations.AlterField(
            model_name='switch',
            name='priv_proto',
            field=models.CharField(blank=True, choices=collector.inventory.models.priv_protocol_choices, default='', max_length=8),
        ),
        migrations.AlterField(
            model_name='switch',
            name='profile',
            field=models.CharField(choices=collector.inventory.models.profile_choices, default='auto', max_length=16),
        ),
        migrations.AlterField(
            model_name='switch',
            name='retries',
            field=models.PositiveSmallIntegerField(default=collector.inventory.models.default_snmp_retries, validators=[django.core.validators.MaxValueValidator(5)]),
        ),
        migrations.AlterField(
            model_name='switch',
            name='snmp_version',
            field=models.CharField(choices=collector.inventory.models.snmp_version_choices, default='2c', max_length=2),
        ),
        migrations.AlterField(
            model_name='switch',
            name='timeout_s',
            field=models.FloatField(default=collector.inventory.models.default_snmp_timeout, validators=[django.core.validators.MinValueValidator(0.1), django.core.validators.MaxValueValidator(30)]),
        ),
    ]
