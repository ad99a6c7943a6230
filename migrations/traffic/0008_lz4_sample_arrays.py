"""lz4 instead of pglz for the sample arrays (raw, delta, flags): 3-4 % less storage and about
twice as fast to decompress (benchmarks/storage_options.py, docs/benchmarks.md); rollups, raw
plots, the live tail of every plot and CSV exports decompress every array they touch.

SET COMPRESSION applies to values compressed from then on: rows written before keep pglz until
rewritten, which is harmless (both are read transparently). TimescaleDB propagates ALTER TABLE
... ALTER COLUMN to existing chunks, and new chunks inherit it. Needs a PostgreSQL built
--with-lz4: Debian's and the timescale/timescaledb image are.
"""
from django.db import migrations

FORWARD = """
ALTER TABLE traffic_sample ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE traffic_sample ALTER COLUMN delta SET COMPRESSION lz4;
ALTER TABLE traffic_sample ALTER COLUMN flags SET COMPRESSION lz4;
"""

REVERSE = """
ALTER TABLE traffic_sample ALTER COLUMN raw SET COMPRESSION pglz;
ALTER TABLE traffic_sample ALTER COLUMN delta SET COMPRESSION pglz;
ALTER TABLE traffic_sample ALTER COLUMN flags SET COMPRESSION pglz;
"""


class Migration(migrations.Migration):
    dependencies = [("traffic", "0007_rollup_invalidation_log")]
    operations = [migrations.RunSQL(FORWARD, reverse_sql=REVERSE)]
