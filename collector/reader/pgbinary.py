"""Reads from PostgreSQL without a Python object per value: columns as binary arrays into numpy.

A plot of a year of 48 ports is 17,568 buckets of 8 values; converting them row by row costs
more than the database spends finding them (benchmark 3). Here the rows are gathered by the
server into one array per column (`array_agg`, one result row), which arrives in PostgreSQL's
binary array format and becomes a numpy column in one call. What was tried before: one bytea
per series and column (string_agg of float8send: the server sorted and aggregated, 2x a bare
select for one port) and binary COPY (cannot be prepared, and psycopg reads it one row per call).

The statement is prepared (collector/archive/prepared.py): a plot is asked for again and again with the
same text, which is then parsed and analysed once per connection; PostgreSQL still chooses
between custom and generic plans (plan_cache_mode auto, see webapp/settings.py).

Binary array format (PostgreSQL src/backend/utils/adt/arrayfuncs.c, array_send): int32 number
of dimensions, int32 has-nulls flag, int32 element type OID, per dimension int32 length and
int32 lower bound, then per element an int32 byte length (-1 for NULL) and the value; all
big-endian. An empty array has 0 dimensions and nothing else.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import psycopg
from psycopg.adapt import Loader
from psycopg.pq import Format

from collector.archive.prepared import Send, read_one
from collector.core.isotime import PG_EPOCH_S

# element type name -> (OID of its array type, big-endian numpy type of one element). A
# timestamptz is sent as int64 microseconds since 2000-01-01 UTC (see epoch_seconds).
ARRAY_TYPES: dict[str, tuple[int, str]] = {"int4": (1007, ">i4"), "int8": (1016, ">i8"), "float8": (1022, ">f8"),
                                           "timestamptz": (1185, ">i8")}
_ELEMENT_OIDS = {"int4": 23, "int8": 20, "float8": 701, "timestamptz": 1184}


def epoch_seconds(microseconds: np.ndarray) -> np.ndarray:
    """timestamptz values as parsed (microseconds since 2000-01-01 UTC) in Unix seconds (float64)."""
    return microseconds / 1e6 + PG_EPOCH_S


class ArrayFormatError(ValueError):
    """A column is not the array of non-NULL fixed-width values asked for."""


class _RawArrayLoader(Loader):
    """Hands a binary array over as bytes, for parse_array (psycopg would build a list)."""
    format = Format.BINARY

    def load(self, data) -> bytes:
        return bytes(data)


def parse_array(data: bytes | None, element: str) -> np.ndarray:
    """A one-dimensional binary array of `element` (ARRAY_TYPES) as a numpy array; pure.

    None (array_agg over no rows) and an empty array give an empty column. ArrayFormatError
    for more than one dimension, another element type, a NULL element or a truncated array."""
    dtype = np.dtype(ARRAY_TYPES[element][1])
    if data is None or len(data) < 12 or int.from_bytes(data[0:4], "big") == 0:
        if data is not None and len(data) < 12:
            raise ArrayFormatError(f"binary array of {len(data)} bytes: truncated header")
        return np.empty(0, dtype)
    ndim, has_nulls, oid = (int.from_bytes(data[i:i + 4], "big", signed=True) for i in (0, 4, 8))
    if ndim != 1:
        raise ArrayFormatError(f"array of {ndim} dimensions, expected 1")
    if oid != _ELEMENT_OIDS[element]:
        raise ArrayFormatError(f"array of element type OID {oid}, expected {element}")
    if has_nulls:
        raise ArrayFormatError(f"{element} array with NULL elements (the query must coalesce them)")
    n = int.from_bytes(data[12:16], "big")
    record = np.dtype([("len", ">i4"), ("value", dtype)])
    if len(data) != 20 + n * record.itemsize:
        raise ArrayFormatError(f"{element} array of {n} elements in {len(data)} bytes: truncated")
    values = np.frombuffer(data, record, count=n, offset=20)
    if n and (values["len"] != dtype.itemsize).any():
        raise ArrayFormatError(f"{element} array with elements of another width")
    return values["value"]


def send_columns(query: str, params: Mapping, columns: Sequence[tuple[str, str]]) -> Send:
    """fetch_columns as a statement to send with others (collector/archive/prepared.py together)."""
    select = ", ".join(f"array_agg({name}::{element})" for name, element in columns)

    def send(cur: psycopg.Cursor) -> Callable[[], dict[str, np.ndarray]]:
        for element in {e for _, e in columns}:
            cur.adapters.register_loader(ARRAY_TYPES[element][0], _RawArrayLoader)
        cur.execute(f"SELECT {select} FROM ({query}) q", params, binary=True, prepare=True)

        def read() -> dict[str, np.ndarray]:
            row = cur.fetchone()
            assert row is not None          # an aggregate without GROUP BY: always one row
            return {name: parse_array(data, element) for (name, element), data in zip(columns, row)}
        return read
    return send


def fetch_columns(query: str, params: Mapping, columns: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """Each named column of `query`'s rows as a numpy array (same row order in every column).

    columns: (name, element type) pairs; the query must name its output columns so and never
    yield NULL in them. Prepared (parsed once per connection)."""
    return read_one(send_columns(query, params, columns))
