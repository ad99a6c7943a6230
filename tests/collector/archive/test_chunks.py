"""Dropping chunks while a query reads the hypertable (collector/archive/chunks.py).

The race that made a poll fail with "deadlock detected" while settling dropped an emptied chunk,
made deterministic: a reader holds a chunk's table (as a query's planner does after expanding
the hypertable) and then reads through the primary key's index. TimescaleDB's own drop_chunks,
started between the two steps, locks that index before the table and deadlocks with the reader;
chunks.drop_chunks locks the table first, waits for the reader and then drops the chunk.
"""
from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import connection

from collector.archive import chunks

pytestmark = pytest.mark.django_db(transaction=True)

OLD = datetime(2020, 1, 1, tzinfo=UTC)
CUT = datetime(2020, 2, 1, tzinfo=UTC)
TABLE = "chunks_probe"


@pytest.fixture
def hypertable():
    with connection.cursor() as cur:
        cur.execute(f"CREATE TABLE {TABLE} (time timestamptz NOT NULL, k int NOT NULL, v int, PRIMARY KEY (k, time))")
        cur.execute(f"SELECT create_hypertable('{TABLE}', 'time', chunk_time_interval => interval '1 day')")
        cur.execute(f"INSERT INTO {TABLE} VALUES (%s, 1, 10), (%s, 1, 20)", [OLD, CUT])
        cur.execute(f"SELECT c::text FROM show_chunks('{TABLE}', older_than => %s::timestamptz) c", [CUT])
        (old_chunk,) = cur.fetchone()
    yield old_chunk
    with connection.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {TABLE} CASCADE")


def _reader() -> psycopg.Connection:
    return psycopg.connect(**connection.get_connection_params())


def _waits_for_a_lock(pid_of_others: set[int], timeout_s: float = 10) -> bool:
    with _reader() as probe:
        for _ in range(int(timeout_s / 0.02)):
            waiting = probe.execute("SELECT pid FROM pg_locks WHERE NOT granted").fetchall()
            if {pid for (pid,) in waiting} - pid_of_others:
                return True
            time.sleep(0.02)
    return False


def _race(hypertable: str, drop) -> tuple[list, list]:
    """The reader holds the chunk, the drop starts and waits, the reader reads through the index.
    Returns (the reader's rows or error, the drop's result or error)."""
    read: list = []
    dropped: list = []
    with _reader() as reader:
        reader.execute(f"LOCK TABLE {hypertable} IN ACCESS SHARE MODE")   # opens the transaction
        mine = {reader.info.backend_pid}

        def run() -> None:
            try:
                dropped.append(drop())
            except Exception as exc:       # reported by the test
                dropped.append(exc)
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        assert _waits_for_a_lock(mine), "the drop never waited for the reader"
        try:
            read.append(reader.execute(f"SELECT v FROM {TABLE} WHERE k = 1 AND time = %s", [OLD]).fetchall())
            reader.commit()
        except psycopg.Error as exc:
            read.append(exc)
            reader.rollback()
        thread.join(30)
    return read, dropped


def test_timescaledbs_drop_chunks_deadlocks_with_a_reader(hypertable):
    """The hazard itself, so that this test keeps reproducing what the other one guards against."""
    def raw_drop() -> int:
        with connection.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM drop_chunks('{TABLE}', older_than => %s::timestamptz)", [CUT])
            return cur.fetchone()[0]
    read, dropped = _race(hypertable, raw_drop)
    errors = [x for x in read + dropped if isinstance(x, Exception)]
    assert errors and all("deadlock detected" in str(e) for e in errors), (read, dropped)


def test_drop_chunks_waits_for_the_reader_and_drops(hypertable):
    read, dropped = _race(hypertable, lambda: chunks.drop_chunks(TABLE, CUT))
    assert read == [[(10,)]]
    assert dropped == [1]
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*), min(v) FROM {TABLE}")
        assert cur.fetchone() == (1, 20)


@pytest.mark.parametrize("rows_left, dropped", [(False, 1), (True, 0)])
def test_drop_if_empty(hypertable, rows_left, dropped):
    if not rows_left:
        with connection.cursor() as cur:
            cur.execute(f"DELETE FROM {TABLE} WHERE time < %s", [CUT])
    assert chunks.drop_if_empty(TABLE, hypertable, OLD, OLD + timedelta(days=1)) == bool(dropped)
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM show_chunks('{TABLE}')")
        assert cur.fetchone()[0] == 2 - dropped


def test_a_reader_beyond_the_wait_keeps_the_chunk_for_the_next_run(hypertable):
    with _reader() as reader:
        reader.execute(f"LOCK TABLE {hypertable} IN ACCESS SHARE MODE")
        started = time.monotonic()
        assert chunks.drop_chunks(TABLE, CUT) == 0
        waited = time.monotonic() - started
        reader.rollback()
    assert chunks.DROP_LOCK_WAIT_MS / 1000 <= waited < chunks.DROP_LOCK_WAIT_MS / 1000 + 5
    assert chunks.drop_chunks(TABLE, CUT) == 1
