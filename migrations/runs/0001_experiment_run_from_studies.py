"""The runs app takes over the experiment runs from the studies app (state only: the tables studies_run
and studies_run_series keep their names and rows); their content type, and with it their permissions,
moves with the model."""
import django.db.models.deletion
from django.db import migrations, models

MODELS = ('experimentrun',)


def move_content_types(apps, schema_editor, old="studies", new="runs"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, old="runs", new="studies")


def rename_audited(apps, schema_editor, old="studies.experimentrun", new="runs.experimentrun"):
    """A run's audit trail stays one trail: its earlier rows name the model as it is named now."""
    apps.get_model("audit", "AuditEvent").objects.filter(object_type=old).update(object_type=new)


def rename_audited_back(apps, schema_editor):
    rename_audited(apps, schema_editor, old="runs.experimentrun", new="studies.experimentrun")


STATE = [
        migrations.CreateModel(
            name='ExperimentRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('description', models.TextField(blank=True, default='')),
                ('start', models.DateTimeField()),
                ('end', models.DateTimeField(blank=True, help_text='empty while the run is going on', null=True)),
                ('bytes_sent', models.BigIntegerField(blank=True, help_text='what the application says it sent', null=True)),
                ('messages', models.BigIntegerField(blank=True, null=True)),
                ('message_size', models.IntegerField(blank=True, help_text='bytes of data per message: an AAL5 CPCS-SDU on ATM, a segment (TCP MSS) or datagram on Ethernet', null=True)),
                ('overhead', models.IntegerField(default=0, help_text='header bytes per message not counted in bytes_sent (TCP/IP 40, with timestamps 52; LLC/SNAP 8 on ATM)')),
                ('report', models.JSONField(blank=True, help_text="the application's own report (iperf3 -J)", null=True)),
                ('created_by', models.CharField(blank=True, default='', max_length=150)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('channel', models.ForeignKey(blank=True, help_text='the PVC endpoint it concerns', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='inventory.virtualchannel')),
                ('dst_host', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='inventory.host')),
                ('series', models.ManyToManyField(blank=True, related_name='+', to='archive.series')),
                ('src_host', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='inventory.host')),
            ],
            options={
                'db_table': 'studies_run',
                'ordering': ['-start'],
                'constraints': [models.CheckConstraint(condition=models.Q(('end__isnull', True), ('end__gt', models.F('start')), _connector='OR'), name='run_end_after_start'), models.CheckConstraint(condition=models.Q(('bytes_sent__isnull', True), ('bytes_sent__gte', 0), _connector='OR'), name='run_bytes_not_negative')],
            },
        ),
]


class Migration(migrations.Migration):
    initial = True
    dependencies = [
        ('studies', '0005_burst_min_samples'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('audit', '0001_audit_event'),
        ('archive', '0004_rollup_recomputed_day'),
        ('inventory', '0008_credential_sets_host_poller_group'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        migrations.RunPython(move_content_types, move_content_types_back),
        migrations.RunPython(rename_audited, rename_audited_back),
    ]
