"""External series (collector/external): the series table; its points are 0002's hypertable."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ExternalSeries',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text="1 to 100 characters: a letter first, then letters, digits, '.', '_' or '-'", max_length=100, unique=True, validators=[django.core.validators.RegexValidator('^[A-Za-z][A-Za-z0-9._-]{0,99}$', "1 to 100 characters: a letter first, then letters, digits, '.', '_' or '-'")])),
                ('unit', models.CharField(choices=[('cells', 'cells'), ('octets', 'octets'), ('packets', 'packets'), ('bits', 'bits')], help_text='what a value counts (a count per interval, not a rate)', max_length=10)),
                ('interval_s', models.PositiveIntegerField(help_text='the length of every interval, seconds', validators=[django.core.validators.MinValueValidator(1)])),
                ('stamp', models.CharField(choices=[('start', "a row's time is the start of its interval"), ('end', "a row's time is the end of its interval")], default='start', help_text="what the imported file's times labelled (stored times are starts)", max_length=5)),
                ('source', models.CharField(blank=True, default='', help_text='who provided the data', max_length=200)),
                ('description', models.TextField(blank=True, default='')),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('updated', models.DateTimeField(auto_now=True)),
                ('first', models.DateTimeField(blank=True, help_text='start of the first stored interval', null=True)),
                ('last', models.DateTimeField(blank=True, help_text='start of the last stored interval', null=True)),
                ('n_points', models.BigIntegerField(default=0)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'external_series',
                'verbose_name_plural': 'external series',
            },
        ),
    ]
