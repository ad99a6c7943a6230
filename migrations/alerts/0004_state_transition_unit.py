# A value's unit is kept with it (the state's and each transition's): a page writes "24.0 Mb/s", and
# history stays right when its rule's unit is changed later.

from django.db import migrations, models

RATE_UNITS = {"pct": "%", "bps": "b/s"}
KIND_UNITS = {"not_polled": "s", "unreachable": "failed checks", "discontinuity": "polls"}


def units_of_old_rows(apps, schema_editor):
    """Rows made before: the unit their rule (and, per counter, their series) gives now, the best
    record left."""
    State = apps.get_model("alerts", "State")
    Transition = apps.get_model("alerts", "Transition")
    Series = apps.get_model("archive", "Series")
    counters = dict(Series.objects.values_list("id", "unit"))

    def unit(rule, series_ids) -> str:
        if rule.kind != "rate":
            return KIND_UNITS.get(rule.kind, "")
        counter = counters.get(series_ids[0], "units") if series_ids else "units"
        return RATE_UNITS.get(rule.unit, f"{counter}/s")

    for s in State.objects.select_related("rule").iterator():
        State.objects.filter(pk=s.pk).update(unit=unit(s.rule, s.series_ids))
    for t in Transition.objects.select_related("state__rule", "rule").exclude(state=None).iterator():
        Transition.objects.filter(pk=t.pk).update(unit=unit(t.rule or t.state.rule, t.state.series_ids))


class Migration(migrations.Migration):

    dependencies = [
        ('alerts', '0003_retired_rules_kept_history'),
        ('archive', '0004_rollup_recomputed_day'),
    ]

    operations = [
        migrations.AddField(
            model_name='state',
            name='unit',
            field=models.CharField(blank=True, default='', help_text='of value and threshold (b/s, %, s ...)', max_length=20),
        ),
        migrations.AddField(
            model_name='transition',
            name='unit',
            field=models.CharField(blank=True, default='', help_text='of value and threshold at the time', max_length=20),
        ),
        migrations.RunPython(units_of_old_rows, migrations.RunPython.noop),
    ]
