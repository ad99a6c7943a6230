"""collector/reader/pgbinary.py: binary arrays into numpy columns.

The parser is checked on arrays built byte by byte after PostgreSQL's array_send (including the
malformed ones a server never sends, which must be refused rather than read shifted), then on
what a real PostgreSQL sends for values at the edges of each type. The plot's prepared statement
is checked against the fault a generic plan of it could have (PostgreSQL may choose one, as
plan_cache_mode=auto does with few chunks): a chunk created after the plan was made.
"""
from __future__ import annotations

import math
import struct
from datetime import timedelta

import numpy as np
import pytest
from django.db import connection

from collector.reader import pgbinary
from collector.reader.pgbinary import ArrayFormatError, parse_array

OID = {"int4": 23, "int8": 20, "float8": 701}
PACK = {"int4": ">i", "int8": ">q", "float8": ">d"}


def array_send(element: str, values: list, *, ndim: int = 1, has_nulls: int = 0, oid: int | None = None,
               width: int | None = None, nulls: tuple[int, ...] = ()) -> bytes:
    """An array as array_send writes it (one dimension, lower bound 1)."""
    out = struct.pack(">iii", ndim, has_nulls, OID[element] if oid is None else oid)
    if ndim == 0:
        return out
    out += struct.pack(">ii", len(values), 1) * ndim
    for i, v in enumerate(values):
        if i in nulls:
            out += struct.pack(">i", -1)
            continue
        data = struct.pack(PACK[element], v)
        out += struct.pack(">i", width or len(data)) + data
    return out


@pytest.mark.parametrize("element, values", [
    ("int4", [0, 1, -1, 2**31 - 1, -2**31]),
    ("int8", [0, 2**63 - 1, -2**63, 86_400_000]),
    ("float8", [0.0, -0.0, 1.5, 1e308, -1e-308, math.inf, -math.inf]),
    ("float8", [1.0]),
    ("int4", []),
])
def test_values_come_back_exactly(element, values):
    got = parse_array(array_send(element, values), element)
    assert got.tolist() == values
    assert got.dtype.itemsize == struct.calcsize(PACK[element])


def test_nan_survives():
    got = parse_array(array_send("float8", [math.nan, 2.0]), "float8")
    assert math.isnan(got[0]) and got[1] == 2.0


@pytest.mark.parametrize("data", [None, array_send("int8", [], ndim=0)])
def test_no_rows_is_an_empty_column(data):
    got = parse_array(data, "int8")
    assert len(got) == 0


@pytest.mark.parametrize("data, element, message", [
    (array_send("float8", [1.0, 2.0], has_nulls=1, nulls=(1,)), "float8", "NULL"),
    (array_send("int4", [1, 2], oid=20), "int4", "element type OID 20"),
    (array_send("int4", [1, 2], ndim=2), "int4", "2 dimensions"),
    (array_send("float8", [1.0, 2.0, 3.0])[:-4], "float8", "truncated"),
    (array_send("int8", [1, 2]) + b"\0", "int8", "truncated"),
    (b"\0\0\0\1\0\0", "int4", "truncated header"),
])
def test_malformed_arrays_are_refused(data, element, message):
    with pytest.raises(ArrayFormatError, match=message):
        parse_array(data, element)


def test_an_element_of_another_width_is_refused():
    # int4 values announced with length 8 and padded: same total size as int8, still wrong
    bad = struct.pack(">iii", 1, 0, OID["int4"]) + struct.pack(">ii", 2, 1)
    bad += (struct.pack(">i", 4) + struct.pack(">i", 7)) + (struct.pack(">i", 5) + b"\0\0\0\7")[:8]
    with pytest.raises(ArrayFormatError, match="another width"):
        parse_array(bad, "int4")


# --- against PostgreSQL --------------------------------------------------------------------

@pytest.mark.django_db
def test_columns_from_a_real_server_match_the_values_sent():
    query = ("SELECT i AS n, i::int8 * 4294967296 + 7 AS big, "
             "CASE WHEN i %% 5 = 0 THEN 'NaN'::float8 ELSE i / 3.0 END AS x FROM generate_series(-500, 1500) i")
    cols = pgbinary.fetch_columns(query, {}, [("n", "int4"), ("big", "int8"), ("x", "float8")])
    n = np.arange(-500, 1501)
    assert cols["n"].tolist() == n.tolist()                     # array_agg kept the rows' order
    assert cols["big"].tolist() == [int(i) * 4294967296 + 7 for i in n]
    expected = np.where(n % 5 == 0, np.nan, n / 3.0)
    assert np.array_equal(cols["x"], expected, equal_nan=True)


@pytest.mark.django_db
def test_no_rows_from_a_real_server():
    cols = pgbinary.fetch_columns("SELECT 1 AS a WHERE false", {}, [("a", "int4")])
    assert len(cols["a"]) == 0


@pytest.mark.django_db
def test_a_null_from_a_real_server_is_an_error_not_a_shifted_read():
    with pytest.raises(ArrayFormatError, match="NULL"):
        pgbinary.fetch_columns("SELECT CASE WHEN i = 2 THEN NULL ELSE i END AS a FROM generate_series(1, 3) i",
                               {}, [("a", "int4")])
    # the connection is still usable afterwards
    assert pgbinary.fetch_columns("SELECT 5 AS a", {}, [("a", "int4")])["a"].tolist() == [5]


def _prepared_generic_plans() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements "
                    "WHERE statement LIKE %s", ["%array_agg(sid::int4)%"])
        return int(cur.fetchone()[0])


def test_a_prepared_plot_sees_a_chunk_created_after_its_plan(net, client, plain_static):
    """A generic plan of the plot statement, made once per connection (forced here: with few
    chunks PostgreSQL may choose it by itself), still reads a tier chunk created after it."""
    with connection.cursor() as cur:
        cur.execute("SET plan_cache_mode = force_generic_plan")
    end = net.end
    start = end - timedelta(days=800)
    url = (f"/traffic/api/data?s={net.rx.id}&res=1d&start={start:%Y-%m-%dT%H:%M:%SZ}"
           f"&end={end:%Y-%m-%dT%H:%M:%SZ}")
    before = [client.get(url).json() for _ in range(3)]
    assert _prepared_generic_plans() >= 3          # the same generic plan, reused
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM timescaledb_information.chunks WHERE hypertable_name = 'traffic_rollup_1d'")
        chunks = cur.fetchone()[0]
        # two years back: outside every chunk the fixture's 36 hours made (1d chunks span 365 days)
        old = (start + timedelta(days=50)).replace(hour=0, minute=0, second=0, microsecond=0)
        cur.execute("INSERT INTO traffic_rollup_1d (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, "
                    "samples, flagged) VALUES (%s, %s, %s, %s, 7, 7, 5760, 0)",
                    [old, net.rx.id, 7 * 86_400, 86_400_000])
        cur.execute("SELECT count(*) FROM timescaledb_information.chunks WHERE hypertable_name = 'traffic_rollup_1d'")
        assert cur.fetchone()[0] == chunks + 1
    after = client.get(url).json()
    points = after["series"][0]["points"]
    assert len(points["t"]) == len(before[-1]["series"][0]["points"]["t"]) + 1
    assert points["t"][0] == f"{old:%Y-%m-%dT%H:%M:%SZ}" and points["avg"][0] == pytest.approx(7.0)
    assert _prepared_generic_plans() >= 4          # read by the plan made before the chunk
    with connection.cursor() as cur:
        cur.execute("RESET plan_cache_mode")


@pytest.mark.django_db
def test_timestamps_come_back_as_unix_seconds():
    cols = pgbinary.fetch_columns(
        "SELECT t FROM unnest(ARRAY['1970-01-01T00:00:00Z', '1999-12-31T23:59:59.5Z', '2000-01-01T00:00:00Z', "
        "'2026-11-22T19:00:00.000001Z']::timestamptz[]) AS t", {}, [("t", "timestamptz")])
    assert pgbinary.epoch_seconds(cols["t"]).tolist() == pytest.approx([0.0, 946684799.5, 946684800.0,
                                                                       1795374000.000001], abs=1e-6)


def test_a_plot_without_prepared_statements(net, client, plain_static):
    """DATABASE_PREPARED_STATEMENTS=false (a pooler that cannot keep them): the same answer,
    nothing prepared on the connection."""
    from tests.support.traffic_network import RX

    saved = connection.settings_dict["OPTIONS"]
    connection.close()
    connection.settings_dict["OPTIONS"] = {**saved, "prepare_threshold": None}
    try:
        for _ in range(3):
            body = client.get(f"/traffic/api/data?s={net.rx.id}&range=7d").json()
            assert body["series"][0]["stats"]["average"] == pytest.approx(RX, rel=1e-12)
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_prepared_statements")
            assert cur.fetchone()[0] == 0
    finally:
        connection.close()
        connection.settings_dict["OPTIONS"] = saved
