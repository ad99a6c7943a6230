"""The only code that writes samples and poll outcomes to the database.

Rows go in idempotently, keyed by (switch_id, time): a poll written twice (a spool replayed
after a crash, a retried transaction) leaves exactly one row. One row (the poller's case) is
one INSERT ... ON CONFLICT DO NOTHING; a batch is one COPY into a temporary table and one
INSERT ... SELECT ... ON CONFLICT DO NOTHING, so it costs no per-row round trip.

The arrays travel as PostgreSQL array text made here ("{1,2,NULL}"): str.join over the ints
runs in C, where a generic per-element dumper (psycopg's list dumper is Python code) cost
~5 us per element, i.e. most of the poller's CPU for a switch of thousands of counters
(docs/benchmarks.md).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from django.db import connection, transaction
from psycopg.types.json import Jsonb

from collector.core.facts import to_i64_list
from collector.core.rows import SampleRow

SAMPLE_COLUMNS = "time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags"
# str() of the small ints that flags are (bits < 2**15) and that zero deltas/readings often are.
_SMALL = tuple(str(i) for i in range(1 << 15))
_INSERT_ONE = (f"INSERT INTO traffic_sample ({SAMPLE_COLUMNS}) VALUES "
               "(%s, %s, %s, %s, %s, %s::bigint[], %s::bigint[], %s::smallint[]) "
               "ON CONFLICT (switch_id, time) DO NOTHING")


def to_datetime(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=UTC)


def array_text(values: Sequence[int | None]) -> str:
    """PostgreSQL array input text of a list of ints and None (NULL)."""
    if None in values:
        return "{" + ",".join(["NULL" if v is None else str(v) for v in values]) + "}"
    return "{" + ",".join(map(str, values)) + "}"


def flags_text(flags: list[int]) -> str:
    small = _SMALL
    try:
        return "{" + ",".join([small[f] for f in flags]) + "}"
    except (IndexError, TypeError):   # not a flag word: let PostgreSQL judge the value
        return array_text(flags)


def copy_line(r: SampleRow) -> str:
    return "\t".join((
        to_datetime(r.at).isoformat(), r"\N" if r.uptime_cs is None else str(r.uptime_cs), str(r.switch_id),
        str(r.layout_id), r"\N" if r.interval_ms is None else str(r.interval_ms), array_text(to_i64_list(r.raw)),
        array_text(r.delta), flags_text(r.flags))) + "\n"


def write_samples(rows: Iterable[SampleRow]) -> int:
    """Write sample rows; returns how many were new (duplicates are skipped, not errors)."""
    rows = list(rows)
    if not rows:
        return 0
    if len(rows) == 1:
        r = rows[0]
        with connection.cursor() as cur:
            cur.execute(_INSERT_ONE, [to_datetime(r.at), r.uptime_cs, r.switch_id, r.layout_id, r.interval_ms,
                                      array_text(to_i64_list(r.raw)), array_text(r.delta), flags_text(r.flags)])
            return cur.rowcount
    with transaction.atomic(), connection.cursor() as cur:
        copy_insert(cur, rows)
        return cur.rowcount


def write_samples_new(rows: list[SampleRow]) -> set[int]:
    """Write rows of distinct switches (one beat slot) in one COPY; returns the switch ids whose
    row was new (an already stored one is skipped, as in write_samples)."""
    if not rows:
        return set()
    with transaction.atomic(), connection.cursor() as cur:
        copy_insert(cur, rows, " RETURNING switch_id")
        return {sid for (sid,) in cur.fetchall()}


def copy_insert(cur, rows: list[SampleRow], returning: str = "") -> None:
    """COPY the rows into a temporary table, then INSERT ... ON CONFLICT DO NOTHING from it (COPY
    alone cannot skip a row already stored). In the caller's transaction."""
    # INCLUDING COMPRESSION: INSERT ... SELECT moves the arrays as the temporary table
    # compressed them, never recompressed, so they must be compressed as traffic_sample's are
    # (lz4, migration 0008); with pglz here the batch path stored 4 % more, read 1.5x slower.
    cur.execute(
        "CREATE TEMP TABLE IF NOT EXISTS cellar_sample_in "
        "(LIKE traffic_sample INCLUDING DEFAULTS INCLUDING COMPRESSION) ON COMMIT DELETE ROWS")
    with cur.copy(f"COPY cellar_sample_in ({SAMPLE_COLUMNS}) FROM STDIN") as copy:
        for r in rows:
            copy.write(copy_line(r))
    cur.execute(
        f"INSERT INTO traffic_sample ({SAMPLE_COLUMNS}) "
        f"SELECT {SAMPLE_COLUMNS} FROM cellar_sample_in ORDER BY switch_id, time "
        "ON CONFLICT (switch_id, time) DO NOTHING" + returning)


POLL_LOG_INSERT = ("INSERT INTO traffic_poll_log (time, switch_id, duration_ms, varbinds, samples, status, error, "
                   "notes) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (switch_id, time) DO NOTHING")


def poll_log_params(switch_id: int, at: float, status: str, duration_ms: int, varbinds: int, samples: int,
                    error: str, notes: dict | None = None) -> list:
    return [to_datetime(at), switch_id, duration_ms, varbinds, samples, status, error[:2000],
            Jsonb(notes) if notes else None]


def write_poll_logs(entries: list[list]) -> None:
    """Many poll attempts (poll_log_params each) in one pipelined executemany."""
    if entries:
        with connection.cursor() as cur:
            cur.executemany(POLL_LOG_INSERT, entries)


def write_poll_log(switch_id: int, at: float, status: str, duration_ms: int, varbinds: int,
                   samples: int, error: str, notes: dict | None = None) -> None:
    """Record one poll attempt (idempotent on (switch_id, time) like the samples); `notes`: the
    values read by a rule or not used (collector/core/readings.py summarize)."""
    with connection.cursor() as cur:
        cur.execute(POLL_LOG_INSERT, poll_log_params(switch_id, at, status, duration_ms, varbinds, samples, error,
                                                     notes))
