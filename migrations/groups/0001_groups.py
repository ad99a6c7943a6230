"""Groups of series (collector/groups): groups, static members, rule lines, tags."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('archive', '0004_rollup_recomputed_day'),
        ('inventory', '0006_switch_time_zone'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Group',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text="1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign", max_length=100, unique=True, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$', "1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign")])),
                ('description', models.TextField(blank=True, default='')),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('updated', models.DateTimeField(auto_now=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'groups_group',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='Rule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(default=0)),
                ('text', models.CharField(help_text='e.g. switch=asx* port=A* entity=vc vpi=0-15 direction=in', max_length=500)),
                ('group', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rules', to='groups.group')),
            ],
            options={
                'db_table': 'groups_rule',
                'ordering': ['group', 'position', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Member',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('group', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='members', to='groups.group')),
                ('series', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='archive.series')),
            ],
            options={
                'db_table': 'groups_member',
                'constraints': [models.UniqueConstraint(fields=('group', 'series'), name='group_member_unique')],
            },
        ),
        migrations.CreateModel(
            name='Tag',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text="1 to 64 characters: letters, digits, '.', '_' or '-' (no spaces)", max_length=64, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', "1 to 64 characters: letters, digits, '.', '_' or '-' (no spaces)")])),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('port', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.port')),
                ('switch', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.switch')),
                ('vc', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.virtualchannel')),
                ('vp', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='inventory.virtualpath')),
            ],
            options={
                'db_table': 'groups_tag',
                'ordering': ['name', 'id'],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('port__isnull', True), ('switch__isnull', False), ('vc__isnull', True), ('vp__isnull', True)), models.Q(('port__isnull', False), ('switch__isnull', True), ('vc__isnull', True), ('vp__isnull', True)), models.Q(('port__isnull', True), ('switch__isnull', True), ('vc__isnull', True), ('vp__isnull', False)), models.Q(('port__isnull', True), ('switch__isnull', True), ('vc__isnull', False), ('vp__isnull', True)), _connector='OR'), name='tag_one_target'), models.UniqueConstraint(fields=('name', 'switch', 'port', 'vp', 'vc'), name='tag_unique', nulls_distinct=False)],
            },
        ),
    ]
