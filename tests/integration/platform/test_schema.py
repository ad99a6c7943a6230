"""The schema is what the migrations say: hypertables exist, Counter64 is stored exactly."""
from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_hypertables_are_listed_by_timescaledb():
    with connection.cursor() as cur:
        cur.execute("SELECT hypertable_name FROM timescaledb_information.hypertables ORDER BY 1")
        names = {r[0] for r in cur.fetchall()}
    assert {"traffic_sample", "traffic_poll_log", "status_host_check"} <= names


def test_timescaledb_is_the_apache_edition_or_better():
    with connection.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'")
        (version,) = cur.fetchone()
        cur.execute("SHOW timescaledb.license")
        (license_,) = cur.fetchone()
    assert tuple(int(x) for x in version.split(".")[:2]) >= (2, 13)
    assert license_ in ("apache", "timescale")


def test_sample_table_has_only_the_primary_key_index():
    # Storage budget: every extra index costs ~24 bytes per row (docs/benchmarks.md).
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'traffic_sample'")
        defs = [r[0] for r in cur.fetchall()]
    assert len(defs) == 1 and "(switch_id, \"time\")" in defs[0]


@pytest.mark.parametrize("value", [0, 1, 2**63 - 1, 2**63, 2**64 - 1])
def test_cellar_u64_reads_back_counter64_exactly(value):
    from collector.core.facts import to_i64

    with connection.cursor() as cur:
        cur.execute("SELECT cellar_u64(%s)::text", [to_i64(value)])
        assert int(cur.fetchone()[0]) == value


def test_sample_arrays_are_compressed_with_lz4_also_in_new_chunks():
    # Migration 0008: lz4 reads back about twice as fast as pglz (docs/benchmarks.md, figure 5).
    with connection.cursor() as cur:
        for when in ("2001-02-03 04:05:06+00", "2031-02-03 04:05:06+00"):      # two new chunks
            cur.execute("INSERT INTO traffic_sample (time, switch_id, layout_id, interval_ms, raw, delta, flags) "
                        "SELECT %s, 999999, 1, 15000, array_agg(i * 1000), array_agg(i::bigint), "
                        "array_agg(0::smallint) FROM generate_series(1, 600) i", [when])
        cur.execute("SELECT pg_column_compression(raw), pg_column_compression(delta) FROM traffic_sample "
                    "WHERE switch_id = 999999")
        rows = cur.fetchall()
    assert rows == [("lz4", "lz4"), ("lz4", "lz4")]


@pytest.mark.parametrize("batch", [1, 3])
def test_the_writer_stores_lz4_arrays_on_both_paths(batch):
    # One row is an INSERT of array text; a batch is COPY into a temporary table, then INSERT ...
    # SELECT, which moves the arrays compressed as the temporary table compressed them.
    from collector.archive.writer import write_samples
    from collector.core.rows import SampleRow

    rows = [SampleRow(switch_id=999998, at=1_700_000_000.0 + 15 * i, uptime_cs=100 * i, layout_id=1,
                      interval_ms=15000, raw=[k * 1000 + i for k in range(600)], delta=[k for k in range(600)],
                      flags=[0] * 600) for i in range(batch)]
    assert write_samples(rows) == batch
    with connection.cursor() as cur:
        cur.execute("SELECT DISTINCT pg_column_compression(raw), pg_column_compression(delta) FROM traffic_sample "
                    "WHERE switch_id = 999998")
        assert cur.fetchall() == [("lz4", "lz4")]


def test_connections_run_without_jit():
    # webapp/settings.py turns JIT off per connection (LLVM compiled plans over hundreds of chunks
    # for seconds); the reads and the rollup rely on it instead of setting it per transaction.
    with connection.cursor() as cur:
        cur.execute("SHOW jit")
        assert cur.fetchone()[0] == "off"
