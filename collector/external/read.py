"""External series for the analysis layer and the pages: find one, read its points as arrays.

Values are COUNTS per interval (the series' unit), at interval STARTS; a rate per second is
value / series.interval_s.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import numpy as np
from django.db import connection, transaction

from collector.archive.export import iso_sql
from collector.external.models import ExternalSeries

CANDIDATES = 20


def find(ref: int | str) -> ExternalSeries:
    """The series with this id (a number) or name; LookupError listing the candidates otherwise
    (names containing the text when there are some, else every name, at most 20)."""
    text = str(ref).strip()
    found = (ExternalSeries.objects.filter(id=int(text)).first() if text.isdigit()
             else ExternalSeries.objects.filter(name=text).first())
    if found is not None:
        return found
    names = list(ExternalSeries.objects.filter(name__icontains=text).order_by("name")
                 .values_list("name", flat=True)[:CANDIDATES + 1]) if text and not text.isdigit() else []
    names = names or list(ExternalSeries.objects.order_by("name").values_list("name", flat=True)[:CANDIDATES + 1])
    if not names:
        raise LookupError(f"no external series {text!r}: none is imported yet "
                          "(manage.py import_csv, or /external/upload)")
    more = " ..." if len(names) > CANDIDATES else ""
    raise LookupError(f"no external series {text!r}; candidates: {', '.join(names[:CANDIDATES])}{more}")


def _window(series_id: int, start: datetime | None, end: datetime | None) -> tuple[str, list[int | datetime]]:
    """The WHERE clause (and its arguments) of one series' points with start <= t < end."""
    where = "series_id = %s"
    args: list[int | datetime] = [series_id]
    if start is not None:
        where += " AND t >= %s"
        args.append(start)
    if end is not None:
        where += " AND t < %s"
        args.append(end)
    return where, args


def points(series_id: int, start: datetime | None = None, end: datetime | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(t, value) of the series' points with start <= t < end (None: unbounded), in time order:
    t epoch seconds (float64) of interval starts, value the count in that interval (float64)."""
    where, args = _window(series_id, start, end)
    with connection.cursor() as cur:
        cur.execute(f"SELECT extract(epoch FROM t)::float8, value FROM external_point WHERE {where} ORDER BY t", args)
        rows = cur.fetchall()
    if not rows:
        return np.empty(0, dtype=np.float64), np.empty(0, dtype=np.float64)
    arr = np.asarray(rows, dtype=np.float64)
    return arr[:, 0].copy(), arr[:, 1].copy()


def csv_chunks(series_id: int, chunk: int = 1 << 16) -> Iterator[bytes]:
    """The series' points as CSV, `time,value` (interval start ISO 8601 UTC with Z, the count),
    header line first, streamed from one COPY ... TO STDOUT."""
    yield b"time,value\n"
    sql = (f"COPY (SELECT {iso_sql('t')}, value FROM external_point WHERE series_id = {int(series_id)} ORDER BY t) "
           "TO STDOUT WITH (FORMAT csv)")
    with transaction.atomic(), connection.cursor() as cur, cur.copy(sql) as copy:
        buf = bytearray()
        for data in copy:
            buf += data
            if len(buf) >= chunk:
                yield bytes(buf)
                buf.clear()
        if buf:
            yield bytes(buf)


def plot_points(series: ExternalSeries, max_points: int = 5000) -> tuple[list[str], list[float], int]:
    """(times, rates per second, bucket seconds) for a plot of at most max_points: every interval
    when there are few enough (bucket = interval), else the mean rate of the stored intervals in
    buckets of a whole number of intervals, aligned on the series' first interval."""
    factor = max(1, -(-series.n_points // max_points))
    width = series.interval_s * factor
    with connection.cursor() as cur:
        if factor == 1:
            cur.execute(f"SELECT {iso_sql('t')}, value / %s FROM external_point WHERE series_id = %s ORDER BY t",
                        [float(series.interval_s), series.id])
        else:
            cur.execute(f"SELECT {iso_sql('b')}, r FROM (SELECT time_bucket(make_interval(secs => %s), t, %s) AS b, "
                        "sum(value) / count(*) / %s AS r FROM external_point WHERE series_id = %s GROUP BY 1) x "
                        "ORDER BY b", [width, series.first, float(series.interval_s), series.id])
        rows = cur.fetchall()
    return [r[0] for r in rows], [r[1] for r in rows], width


def iso_points(series_id: int, start: datetime | None = None, end: datetime | None = None,
               limit: int | None = None) -> list[tuple[str, float]]:
    """[(interval start ISO 8601 UTC, count), ...] with start <= t < end, in time order, at most limit."""
    where, args = _window(series_id, start, end)
    sql = f"SELECT {iso_sql('t')}, value FROM external_point WHERE {where} ORDER BY t"
    if limit is not None:
        sql += " LIMIT %s"
        args.append(limit)
    with connection.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()
