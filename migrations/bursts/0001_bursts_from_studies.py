"""The bursts app takes over the bursts and the scans from the studies app (state only: the tables
studies_burst and studies_burst_scan keep their names and rows); their content types move with them."""
import django.db.models.deletion
from django.db import migrations, models

MODELS = ('burst', 'burstscan')


def move_content_types(apps, schema_editor, old="studies", new="bursts"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, old="bursts", new="studies")


STATE = [
        migrations.CreateModel(
            name='BurstScan',
            fields=[
                ('day', models.DateField(primary_key=True, serialize=False)),
                ('scanned_at', models.DateTimeField()),
                ('final', models.BooleanField(default=False)),
                ('series', models.IntegerField(help_text='series with data that day')),
                ('bursts', models.IntegerField()),
                ('seconds', models.FloatField(help_text='time the scan took')),
            ],
            options={
                'db_table': 'studies_burst_scan',
            },
        ),
        migrations.CreateModel(
            name='Burst',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField(help_text='the UTC day scanned: the window whose median the rule uses')),
                ('start', models.DateTimeField()),
                ('end', models.DateTimeField()),
                ('peak', models.FloatField(help_text='units/s')),
                ('mean', models.FloatField(help_text='units/s over the measured part')),
                ('volume', models.BigIntegerField(help_text='units counted in the burst')),
                ('points', models.IntegerField()),
                ('gap_s', models.FloatField(default=0.0)),
                ('continues', models.BooleanField(default=False, help_text="this row continues the previous day's burst, which ran to midnight")),
                ('rule_k', models.FloatField()),
                ('rule_capacity_pct', models.FloatField()),
                ('rule_min_s', models.FloatField()),
                ('rule_min_samples', models.IntegerField(default=1, help_text='poll samples above the threshold a burst held at least (1: rows found before this part of the rule)')),
                ('series', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='archive.series')),
            ],
            options={
                'db_table': 'studies_burst',
                'indexes': [models.Index(fields=['series', 'start'], name='burst_series_start'), models.Index(fields=['day'], name='burst_day')],
            },
        ),
]


class Migration(migrations.Migration):
    initial = True
    dependencies = [
        ('studies', '0005_burst_min_samples'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('archive', '0004_rollup_recomputed_day'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
