"""The inventory tables: switches, hosts, ports, VP/VC endpoints, cross-connects, links."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

import collector.inventory.secrets


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Host',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=255, unique=True)),
                ('address', models.CharField(max_length=255)),
                ('description', models.CharField(blank=True, default='', max_length=255)),
                ('check_method', models.CharField(choices=[('auto', 'auto (ICMP, then TCP, then SNMP)'), ('icmp', 'ICMP echo'), ('tcp', 'TCP connect'), ('snmp', 'SNMP get')], default='auto', max_length=8)),
                ('tcp_port', models.PositiveIntegerField(default=22, validators=[django.core.validators.MaxValueValidator(65535)])),
                ('enabled', models.BooleanField(default=True)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='Switch',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True)),
                ('address', models.CharField(help_text='host name or IP address of the agent', max_length=255)),
                ('snmp_port', models.PositiveIntegerField(default=161, validators=[django.core.validators.MaxValueValidator(65535)])),
                ('snmp_version', models.CharField(choices=[('1', 'v1'), ('2c', 'v2c'), ('3', 'v3')], default='2c', max_length=2)),
                ('community', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('v3_user', models.CharField(blank=True, default='', max_length=64)),
                ('auth_proto', models.CharField(blank=True, choices=[('', 'none'), ('MD5', 'MD5'), ('SHA', 'SHA'), ('SHA224', 'SHA-224'), ('SHA256', 'SHA-256'), ('SHA384', 'SHA-384'), ('SHA512', 'SHA-512')], default='', max_length=8)),
                ('auth_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('priv_proto', models.CharField(blank=True, choices=[('', 'none'), ('DES', 'DES'), ('AES', 'AES-128'), ('AES192', 'AES-192'), ('AES256', 'AES-256')], default='', max_length=8)),
                ('priv_key', collector.inventory.secrets.SecretField(blank=True, default='')),
                ('timeout_s', models.FloatField(default=2.0, validators=[django.core.validators.MinValueValidator(0.1), django.core.validators.MaxValueValidator(30)])),
                ('retries', models.PositiveSmallIntegerField(default=1, validators=[django.core.validators.MaxValueValidator(5)])),
                ('profile', models.CharField(choices=[('auto', 'auto (by sysObjectID and probing)'), ('fore-asx', 'FORE ASX (Fore-Switch-MIB)'), ('atm2', 'ATM-MIB / ATM2-MIB'), ('if-mib', 'IF-MIB interfaces')], default='auto', max_length=16)),
                ('detected_profile', models.CharField(blank=True, default='', help_text="the profile 'auto' resolved to", max_length=16)),
                ('poll_interval_s', models.PositiveIntegerField(default=15, help_text='seconds between polls; changes take effect without a restart', validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(3600)])),
                ('poller_group', models.CharField(default='default', help_text='polls go to the Celery queue polls.<group>; run a worker for it at that site', max_length=50)),
                ('enabled', models.BooleanField(default=True)),
                ('sys_object_id', models.CharField(blank=True, default='', max_length=128)),
                ('sys_descr', models.TextField(blank=True, default='')),
                ('sys_name', models.CharField(blank=True, default='', max_length=255)),
                ('switch_type', models.CharField(blank=True, default='', max_length=64)),
                ('software_version', models.CharField(blank=True, default='', max_length=64)),
                ('hardware_version', models.CharField(blank=True, default='', max_length=64)),
                ('port_count', models.PositiveIntegerField(blank=True, null=True)),
                ('uptime_cs', models.BigIntegerField(blank=True, help_text='agent uptime (1/100 s) at uptime_at', null=True)),
                ('uptime_at', models.DateTimeField(blank=True, null=True)),
                ('discovered_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'verbose_name_plural': 'switches',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='Port',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_seen', models.DateTimeField(auto_now_add=True)),
                ('last_seen', models.DateTimeField(blank=True, null=True)),
                ('gone_at', models.DateTimeField(blank=True, help_text='vanished from the agent; history kept', null=True)),
                ('key', models.CharField(help_text="the agent's index: FORE portNumber or ifIndex", max_length=64)),
                ('if_index', models.IntegerField(blank=True, null=True)),
                ('name', models.CharField(help_text='A1 / 1A1 / ifName', max_length=64)),
                ('label', models.CharField(blank=True, default='', help_text='portName / ifAlias', max_length=255)),
                ('description', models.CharField(blank=True, default='', max_length=255)),
                ('port_type', models.CharField(blank=True, default='', help_text='OC3, DS3, TAXI-100, ethernet ...', max_length=64)),
                ('is_atm', models.BooleanField(default=False)),
                ('speed_bps', models.BigIntegerField(blank=True, null=True)),
                ('capacity_cells', models.BigIntegerField(blank=True, help_text='maximum cells/s', null=True)),
                ('admin_status', models.CharField(blank=True, default='', max_length=16)),
                ('oper_status', models.CharField(blank=True, default='', max_length=16)),
                ('status_since', models.DateTimeField(blank=True, null=True)),
                ('max_bw_in', models.BigIntegerField(blank=True, help_text='cells/s', null=True)),
                ('alloc_bw_in', models.BigIntegerField(blank=True, null=True)),
                ('max_bw_out', models.BigIntegerField(blank=True, null=True)),
                ('alloc_bw_out', models.BigIntegerField(blank=True, null=True)),
                ('max_vpcs', models.IntegerField(blank=True, null=True)),
                ('max_vccs', models.IntegerField(blank=True, null=True)),
                ('neighbor_address', models.CharField(blank=True, default='', help_text='ILMI neighbour IP', max_length=64)),
                ('neighbor_ifname', models.CharField(blank=True, default='', max_length=128)),
                ('switch', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ports', to='inventory.switch')),
            ],
            options={
                'ordering': ['switch', 'name'],
            },
        ),
        migrations.CreateModel(
            name='CrossConnect',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_seen', models.DateTimeField(auto_now_add=True)),
                ('last_seen', models.DateTimeField(blank=True, null=True)),
                ('gone_at', models.DateTimeField(blank=True, help_text='vanished from the agent; history kept', null=True)),
                ('kind', models.CharField(choices=[('vp', 'virtual path'), ('vc', 'virtual channel')], max_length=2)),
                ('in_vpi', models.IntegerField()),
                ('in_vci', models.IntegerField(blank=True, null=True)),
                ('out_vpi', models.IntegerField()),
                ('out_vci', models.IntegerField(blank=True, null=True)),
                ('name', models.CharField(blank=True, default='', max_length=128)),
                ('status', models.CharField(blank=True, default='', max_length=16)),
                ('up_since', models.DateTimeField(blank=True, null=True)),
                ('in_port', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.port')),
                ('out_port', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.port')),
                ('switch', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='cross_connects', to='inventory.switch')),
            ],
            options={
                'ordering': ['switch', 'in_port', 'in_vpi', 'in_vci'],
            },
        ),
        migrations.CreateModel(
            name='VirtualChannel',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_seen', models.DateTimeField(auto_now_add=True)),
                ('last_seen', models.DateTimeField(blank=True, null=True)),
                ('gone_at', models.DateTimeField(blank=True, help_text='vanished from the agent; history kept', null=True)),
                ('vpi', models.IntegerField()),
                ('vci', models.IntegerField()),
                ('status', models.CharField(blank=True, default='', max_length=16)),
                ('service_category', models.CharField(blank=True, default='', max_length=16)),
                ('alloc_bw', models.BigIntegerField(blank=True, help_text='cells/s', null=True)),
                ('aal_type', models.CharField(blank=True, default='', max_length=16)),
                ('up_since', models.DateTimeField(blank=True, null=True)),
                ('port', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='channels', to='inventory.port')),
                ('switch', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='channels', to='inventory.switch')),
            ],
            options={
                'ordering': ['port', 'vpi', 'vci'],
            },
        ),
        migrations.CreateModel(
            name='VirtualPath',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_seen', models.DateTimeField(auto_now_add=True)),
                ('last_seen', models.DateTimeField(blank=True, null=True)),
                ('gone_at', models.DateTimeField(blank=True, help_text='vanished from the agent; history kept', null=True)),
                ('vpi', models.IntegerField()),
                ('status', models.CharField(blank=True, default='', max_length=16)),
                ('alloc_bw', models.BigIntegerField(blank=True, help_text='cells/s', null=True)),
                ('max_bw', models.BigIntegerField(blank=True, null=True)),
                ('up_since', models.DateTimeField(blank=True, null=True)),
                ('port', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='paths', to='inventory.port')),
                ('switch', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='paths', to='inventory.switch')),
            ],
            options={
                'ordering': ['port', 'vpi'],
            },
        ),
        migrations.CreateModel(
            name='Link',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source', models.CharField(choices=[('manual', 'entered by hand'), ('ilmi', 'ILMI neighbour'), ('discovery', 'discovery')], default='manual', max_length=16)),
                ('note', models.CharField(blank=True, default='', max_length=255)),
                ('b_host', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='links', to='inventory.host')),
                ('a_port', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='links_a', to='inventory.port')),
                ('b_port', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='links_b', to='inventory.port')),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('b_port__isnull', False), ('b_host__isnull', True)), models.Q(('b_port__isnull', True), ('b_host__isnull', False)), _connector='OR'), name='link_one_far_end'), models.UniqueConstraint(fields=('a_port', 'b_port'), name='link_port_port'), models.UniqueConstraint(fields=('a_port', 'b_host'), name='link_port_host')],
            },
        ),
        migrations.AddConstraint(
            model_name='port',
            constraint=models.UniqueConstraint(fields=('switch', 'key'), name='port_unique_key'),
        ),
        migrations.AddConstraint(
            model_name='crossconnect',
            constraint=models.UniqueConstraint(fields=('switch', 'kind', 'in_port', 'in_vpi', 'in_vci', 'out_port', 'out_vpi', 'out_vci'), name='xc_unique', nulls_distinct=False),
        ),
        migrations.AddConstraint(
            model_name='virtualchannel',
            constraint=models.UniqueConstraint(fields=('port', 'vpi', 'vci'), name='vc_unique_endpoint'),
        ),
        migrations.AddConstraint(
            model_name='virtualpath',
            constraint=models.UniqueConstraint(fields=('port', 'vpi'), name='vp_unique_endpoint'),
        ),
    ]
