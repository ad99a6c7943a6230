# History is evidence: rules are retired instead of deleted, transitions and notifications copy the
# names of the time and only lose their links (SET_NULL) when a state, rule or destination goes.

import django.db.models.deletion
from django.db import migrations, models


def copy_names(apps, schema_editor):
    """Existing rows take the names their rule and destination have now (the best record left)."""
    Transition = apps.get_model("alerts", "Transition")
    Notification = apps.get_model("alerts", "Notification")
    for t in Transition.objects.select_related("state__rule").iterator():
        t.rule_id, t.rule_name = t.state.rule_id, t.state.rule.name
        t.save(update_fields=["rule", "rule_name"])
    for n in Notification.objects.select_related("destination").iterator():
        n.destination_name = n.destination.name
        n.save(update_fields=["destination_name"])


class Migration(migrations.Migration):

    dependencies = [
        ('alerts', '0002_rule_unit_bits'),
    ]

    operations = [
        migrations.AddField(
            model_name='rule',
            name='retired_at',
            field=models.DateTimeField(blank=True, help_text='deleted: no longer evaluated nor listed among the rules; its history is kept', null=True),
        ),
        migrations.AlterField(
            model_name='rule',
            name='name',
            field=models.CharField(help_text='unique among the rules not retired', max_length=100),
        ),
        migrations.AddConstraint(
            model_name='rule',
            constraint=models.UniqueConstraint(condition=models.Q(('retired_at__isnull', True)), fields=('name',), name='alerts_rule_name_unique'),
        ),
        migrations.AddField(
            model_name='transition',
            name='rule',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='transitions', to='alerts.rule'),
        ),
        migrations.AddField(
            model_name='transition',
            name='rule_name',
            field=models.CharField(default='', max_length=100),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='notification',
            name='destination_name',
            field=models.CharField(default='', max_length=100),
            preserve_default=False,
        ),
        migrations.RunPython(copy_names, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='transition',
            name='state',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='transitions', to='alerts.state'),
        ),
        migrations.AlterField(
            model_name='notification',
            name='transition',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='notifications', to='alerts.transition'),
        ),
        migrations.AlterField(
            model_name='notification',
            name='destination',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='notifications', to='alerts.destination'),
        ),
    ]
