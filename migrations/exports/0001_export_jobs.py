"""Background export jobs (collector/exports): the job table."""

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
            name='ExportJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('session_hash', models.CharField(blank=True, default='', help_text="SHA-256 of the anonymous owner's session key (never the key)", max_length=64)),
                ('selection', models.TextField(help_text='the query string asked (series ids, range, resolution, unit)')),
                ('filename', models.CharField(max_length=255)),
                ('header', models.TextField(help_text='the CSV header line')),
                ('copy_sql', models.TextField()),
                ('copy_params', models.JSONField()),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('expired', 'Expired')], default='queued', max_length=10)),
                ('expected_rows', models.BigIntegerField()),
                ('rows_written', models.BigIntegerField(default=0)),
                ('bytes_written', models.BigIntegerField(default=0)),
                ('error', models.TextField(blank=True, default='')),
                ('path', models.CharField(blank=True, default='', help_text='the file, once written', max_length=500)),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('sent_at', models.DateTimeField(blank=True, help_text='when its task went to the queue', null=True)),
                ('started', models.DateTimeField(blank=True, null=True)),
                ('finished', models.DateTimeField(blank=True, null=True)),
                ('owner', models.ForeignKey(blank=True, help_text='empty when asked anonymously (see session_hash)', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'exports_job',
                'indexes': [models.Index(fields=['status', 'id'], name='exports_job_status_id')],
            },
        ),
    ]
