"""Site credential sets (tried in turn when a switch is added by address), the set a switch's
credentials came from, and the poller group of hosts (whose worker checks them)."""

import django.db.models.deletion
from django.db import migrations, models

import collector.inventory.models
import collector.inventory.secrets


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0007_port_label_prefix_index'),
    ]

    operations = [
        migrations.CreateModel(
            name='CredentialSet',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=64, unique=True)),
                ('position', models.PositiveSmallIntegerField(default=100, help_text='sets are tried in this order (lowest first)')),
                ('snmp_version', models.CharField(choices=collector.inventory.models.snmp_version_choices, default='2c', max_length=2)),
                ('community', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('v3_user', models.CharField(blank=True, default='', max_length=64)),
                ('auth_proto', models.CharField(blank=True, choices=collector.inventory.models.auth_protocol_choices, default='', max_length=8)),
                ('auth_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('priv_proto', models.CharField(blank=True, choices=collector.inventory.models.priv_protocol_choices, default='', max_length=8)),
                ('priv_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('note', models.CharField(blank=True, default='', max_length=255)),
            ],
            options={
                'ordering': ['position', 'name'],
            },
        ),
        migrations.AddField(
            model_name='host',
            name='poller_group',
            field=models.CharField(default='default', help_text="polls and checks go to the Celery queue polls.<group> (default: polls); run a worker for it where the group's network is reachable", max_length=50),
        ),
        migrations.AlterField(
            model_name='switch',
            name='poller_group',
            field=models.CharField(default='default', help_text="polls and checks go to the Celery queue polls.<group> (default: polls); run a worker for it where the group's network is reachable", max_length=50),
        ),
        migrations.AddField(
            model_name='switch',
            name='credential_set',
            field=models.ForeignKey(blank=True, help_text="the site credential set the switch's credentials were copied from when it was added", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='switches', to='inventory.credentialset'),
        ),
    ]
