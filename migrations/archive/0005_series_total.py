"""traffic_series_total: per counter series, the sum of its 1-day buckets before the 1-day watermark,
kept by the rollup from now on (collector/archive/rollup.py carry_1d) and filled here from the tier as
it is (one aggregate over the 1-day tier: about a second per 4 million rows)."""
from django.db import migrations, models

FILL = """
INSERT INTO traffic_series_total (series_id, total)
SELECT series_id, sum(sum_delta) FROM traffic_rollup_1d
 WHERE bucket < (SELECT done_until FROM traffic_rollup_watermark WHERE tier = '1d')
 GROUP BY series_id"""


class Migration(migrations.Migration):
    dependencies = [("archive", "0004_rollup_recomputed_day")]

    operations = [
        migrations.CreateModel(
            name="SeriesTotal",
            fields=[
                ("series_id", models.IntegerField(primary_key=True, serialize=False)),
                ("total", models.DecimalField(decimal_places=0, max_digits=40)),
            ],
            options={"db_table": "traffic_series_total"},
        ),
        migrations.RunSQL(FILL, reverse_sql=migrations.RunSQL.noop),
    ]
