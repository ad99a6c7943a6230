"""How far a switch's span of a settled tier has been settled from rows (collector/archive/tier_settle.py).

traffic_settled_tier.settled_until: every bucket of the switch's span before it was settled and
none is left as a row there; NULL: not known (blocks written before this column, and a block a
rollup step's recompute may have put rows beside). A settle run looks for rows only in the spans
of switches not known to be settled up to the run's horizon: without it, every run probed every
counter series' primary key for each span of the tier's chunks (a 1-minute chunk holds 7 daily
spans), about a million probes a span at 100,000 ports, every 5 minutes, until the chunk was dropped.
"""
from django.db import migrations, models

ADD = "ALTER TABLE traffic_settled_tier ADD COLUMN settled_until timestamptz"
DROP = "ALTER TABLE traffic_settled_tier DROP COLUMN settled_until"


class Migration(migrations.Migration):
    dependencies = [("archive", "0009_settled_tiers")]

    operations = [
        migrations.RunSQL(ADD, reverse_sql=DROP, state_operations=[
            migrations.AddField(
                model_name="settledtier", name="settled_until",
                field=models.DateTimeField(null=True, help_text="the span's buckets before this are settled, none "
                                                                "left as rows; NULL: not known"),
            ),
        ]),
    ]
