"""Network jobs (check now, add a switch, sweep: run by the worker of the target's poller group), the
namespaces poller groups are bound to, and the addresses that answered a sweep."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import collector.inventory.secrets


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0008_credential_sets_host_poller_group'),
        ('poller', '0001_models_from_status'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='GroupNamespace',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('group', models.CharField(max_length=50, unique=True)),
                ('netns', models.CharField(help_text='the name under /run/netns', max_length=64)),
                ('recorded_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'db_table': 'poller_group_namespace',
            },
        ),
        migrations.CreateModel(
            name='NetworkJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('check_switch', 'check a switch now'), ('check_host', 'check a host now'), ('add_switch', 'add a switch'), ('sweep', 'sweep a range')], max_length=16)),
                ('target', models.CharField(help_text='what the job is about, in words (a name, an address, a range)', max_length=255)),
                ('poller_group', models.CharField(default='default', max_length=50)),
                ('params', models.JSONField(blank=True, default=dict, help_text="the job's inputs (never a secret)")),
                ('snmp_version', models.CharField(blank=True, default='', max_length=2)),
                ('community', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('v3_user', models.CharField(blank=True, default='', max_length=64)),
                ('auth_proto', models.CharField(blank=True, default='', max_length=8)),
                ('auth_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('priv_proto', models.CharField(blank=True, default='', max_length=8)),
                ('priv_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=8)),
                ('steps', models.JSONField(blank=True, default=list, help_text='[{"at": ISO time, "text": ..., "state": ok|fail|info}]')),
                ('result', models.JSONField(blank=True, default=dict)),
                ('error', models.TextField(blank=True, default='')),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('started', models.DateTimeField(blank=True, null=True)),
                ('finished', models.DateTimeField(blank=True, null=True)),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'poller_network_job',
                'ordering': ['-id'],
            },
        ),
        migrations.CreateModel(
            name='SweepAnswer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('address', models.GenericIPAddressField()),
                ('poller_group', models.CharField(default='default', max_length=50)),
                ('sys_name', models.CharField(blank=True, default='', max_length=255)),
                ('sys_descr', models.TextField(blank=True, default='')),
                ('sys_object_id', models.CharField(blank=True, default='', max_length=128)),
                ('found_at', models.DateTimeField()),
                ('credential_set', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='inventory.credentialset')),
                ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='answers', to='poller.networkjob')),
            ],
            options={
                'db_table': 'poller_sweep_answer',
                'constraints': [models.UniqueConstraint(fields=('poller_group', 'address'), name='sweep_answer_once')],
            },
        ),
    ]
