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
    from collector.counters import u64_to_i64

    with connection.cursor() as cur:
        cur.execute("SELECT cellar_u64(%s)::text", [u64_to_i64(value)])
        assert int(cur.fetchone()[0]) == value
