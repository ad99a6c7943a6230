"""A settled tier column block's totals over its span, readable without decoding the block.

traffic_settled_tier_series gains, per series, block and tier, the sums of its buckets' sum_delta,
sum_interval_ms, samples and flagged, and the highest peak and lowest floor rate among them
(collector/archive/tier_settle.py writes them with the block). A statement that only sums each
series over a range (top talkers: collector/archive/tier_read.py summed) takes a block whose buckets
all lie in its range from these, and decodes only the blocks the range cuts. NULL: a block written
before this column, or totals that leave a bigint: decoded as before.
"""
from django.db import migrations, models

COLUMNS = (("total_delta", "bigint"), ("total_interval_ms", "bigint"), ("peak_rate", "float8"),
           ("floor_rate", "float8"), ("total_samples", "bigint"), ("total_flagged", "bigint"))
ADD = "ALTER TABLE traffic_settled_tier_series " + ", ".join(f"ADD COLUMN {n} {t}" for n, t in COLUMNS)
DROP = "ALTER TABLE traffic_settled_tier_series " + ", ".join(f"DROP COLUMN {n}" for n, _ in COLUMNS)


def _field(kind: str):
    return models.FloatField(null=True) if kind == "float8" else models.BigIntegerField(null=True)


class Migration(migrations.Migration):
    dependencies = [("archive", "0010_settled_tier_until")]

    operations = [
        migrations.RunSQL(ADD, reverse_sql=DROP, state_operations=[
            migrations.AddField(model_name="settledtierseries", name=name, field=_field(kind))
            for name, kind in COLUMNS
        ]),
    ]
