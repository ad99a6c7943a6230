"""Bills and their periods (collector/billing); a closed period is frozen by a trigger."""

import django.contrib.postgres.fields
import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import collector.inventory.models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('groups', '0001_groups'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Bill',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text="1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign", max_length=100, unique=True, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$', "1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign")])),
                ('billing_day', models.PositiveSmallIntegerField(default=1, help_text="day of the month a period starts, at midnight in the bill's zone; beyond a month's last day: its last day", validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(31)])),
                ('mode', models.CharField(choices=[('p95', '95th percentile'), ('quota', 'quota (volume)')], default='p95', max_length=8)),
                ('direction', models.CharField(choices=[('in', 'in (received by the switch ports)'), ('out', 'out (sent by the switch ports)'), ('max', 'the larger of in and out'), ('sum', 'in + out')], default='max', max_length=4)),
                ('sample_interval_s', models.PositiveIntegerField(choices=[(60, '1 min'), (300, '5 min'), (600, '10 min'), (900, '15 min'), (1800, '30 min'), (3600, '60 min')], default=300)),
                ('committed_bps', models.BigIntegerField(blank=True, help_text='95th percentile bills: the committed rate, bits/s', null=True, validators=[django.core.validators.MinValueValidator(0)])),
                ('quota_bytes', models.BigIntegerField(blank=True, help_text='quota bills: the volume included per period, bytes', null=True, validators=[django.core.validators.MinValueValidator(0)])),
                ('time_zone', models.CharField(blank=True, default='', help_text="IANA zone of the billing day's midnight; empty: the zone of the group's switches (they must agree), else UTC", max_length=64, validators=[collector.inventory.models.validate_time_zone])),
                ('starts', models.DateField(help_text='the first period billed is the one holding this day')),
                ('notes', models.TextField(blank=True, default='')),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('updated', models.DateTimeField(auto_now=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('group', models.ForeignKey(help_text='the series billed (their traffic counters: cells or octets)', on_delete=django.db.models.deletion.PROTECT, related_name='bills', to='groups.group')),
            ],
            options={
                'db_table': 'billing_bill',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='Period',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('start', models.DateTimeField()),
                ('end', models.DateTimeField()),
                ('zone', models.CharField(max_length=64)),
                ('closed', models.BooleanField(default=False, help_text='frozen: never recomputed')),
                ('computed_at', models.DateTimeField()),
                ('as_of', models.DateTimeField(help_text='the figures cover [start, as_of): the end once closed')),
                ('mode', models.CharField(max_length=8)),
                ('direction', models.CharField(max_length=4)),
                ('sample_interval_s', models.PositiveIntegerField()),
                ('committed_bps', models.BigIntegerField(null=True)),
                ('quota_bytes', models.BigIntegerField(null=True)),
                ('series_ids', django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), size=None)),
                ('intervals', models.IntegerField()),
                ('measured', models.IntegerField()),
                ('measured_in', models.IntegerField()),
                ('measured_out', models.IntegerField()),
                ('p95_in_bps', models.FloatField(null=True)),
                ('p95_out_bps', models.FloatField(null=True)),
                ('p95_sum_bps', models.FloatField(null=True)),
                ('p95_bps', models.FloatField(help_text='the billed rate by the direction rule', null=True)),
                ('p95_at', models.DateTimeField(help_text='start of the sample interval that set the billed rate', null=True)),
                ('volume_in_bytes', models.BigIntegerField()),
                ('volume_out_bytes', models.BigIntegerField()),
                ('volume_bytes', models.BigIntegerField(help_text='the billed volume by the direction rule')),
                ('over', models.FloatField(help_text='above the committed rate (bits/s) or the quota (bytes)', null=True)),
                ('bins_in', django.contrib.postgres.fields.ArrayField(base_field=models.FloatField(), size=None)),
                ('bins_out', django.contrib.postgres.fields.ArrayField(base_field=models.FloatField(), size=None)),
                ('measured_in_s', django.contrib.postgres.fields.ArrayField(base_field=models.FloatField(), size=None)),
                ('measured_out_s', django.contrib.postgres.fields.ArrayField(base_field=models.FloatField(), size=None)),
                ('notes', models.TextField(blank=True, default='')),
                ('bill', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='periods', to='billing.bill')),
            ],
            options={
                'db_table': 'billing_period',
                'ordering': ['bill', '-start'],
                'constraints': [models.UniqueConstraint(fields=('bill', 'start'), name='billing_period_unique')],
            },
        ),
        # A closed period is never recomputed: no UPDATE of a closed row reaches the table.
        migrations.RunSQL(
            sql="""
CREATE FUNCTION billing_period_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'billing period % of bill % is closed: it is never recomputed', OLD.id, OLD.bill_id
        USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER billing_period_frozen BEFORE UPDATE ON billing_period
    FOR EACH ROW WHEN (OLD.closed) EXECUTE FUNCTION billing_period_frozen();
""",
            reverse_sql="""
DROP TRIGGER IF EXISTS billing_period_frozen ON billing_period;
DROP FUNCTION IF EXISTS billing_period_frozen();
"""),
    ]
