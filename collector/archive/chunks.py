"""Dropping a hypertable's chunks while polls and pages read the table.

TimescaleDB's drop_chunks drops a chunk's constraints before the chunk: the primary key's index
is locked (ACCESS EXCLUSIVE) before its table. A query planned over the hypertable at that moment
(every poll's previous-row probe spans all chunks) locks the table first and then the index: the
two wait for each other and PostgreSQL aborts one ("deadlock detected"). So every chunk to drop
is locked here first, table by table in one LOCK statement, after which the drop only takes
locks in the queries' order. Waiting for the lock is bounded (DROP_LOCK_WAIT_MS): while a
drop waits, new readers of that chunk queue behind it, so a long export holding the chunk would
stall the pollers; after the wait the drop is given up and the next run tries again.

drop_if_empty (settling) checks the chunk again once it is locked: a row written into it between
the first check and the drop (a late poll reopening a settled day) would otherwise go with it.
"""
from __future__ import annotations

import logging
from datetime import datetime

from django.db import OperationalError, connection, transaction
from psycopg import errors

log = logging.getLogger(__name__)

DROP_LOCK_WAIT_MS = 2000


def drop_chunks(table: str, older_than: datetime, newer_than: datetime | None = None) -> int:
    """Chunks of `table` wholly before older_than (and after newer_than) dropped, in one
    transaction; returns how many (0 when they stayed locked by a reader beyond the wait)."""
    def names(cur) -> list[str]:
        cur.execute("SELECT c::text FROM show_chunks(%s::regclass, older_than => %s::timestamptz, "
                    "newer_than => %s::timestamptz) c ORDER BY c::oid", [table, older_than, newer_than])
        return [name for (name,) in cur.fetchall()]
    return _locked_drop(table, names, older_than, newer_than, check_empty=False)


def drop_if_empty(table: str, chunk: str, lo: datetime, hi: datetime) -> bool:
    """The chunk (its name and range [lo, hi) as timescaledb_information.chunks gives them) dropped
    if it holds no row. A chunk with rows costs one probe: it is not locked."""
    with connection.cursor() as cur:
        if not _empty(cur, chunk):
            return False
    return bool(_locked_drop(table, lambda cur: [chunk], hi, lo, check_empty=True))


def _locked_drop(table: str, names, older_than: datetime, newer_than: datetime | None, check_empty: bool) -> int:
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(f"SET LOCAL lock_timeout = {DROP_LOCK_WAIT_MS}")
            chunks = names(cur)
            if not chunks:
                return 0
            # names as regclass prints them: schema-qualified, quoted where needed
            cur.execute(f"LOCK TABLE {', '.join(chunks)} IN ACCESS EXCLUSIVE MODE")
            if check_empty and not all(_empty(cur, chunk) for chunk in chunks):
                return 0
            cur.execute("SELECT count(*) FROM drop_chunks(%s::regclass, older_than => %s::timestamptz, "
                        "newer_than => %s::timestamptz)", [table, older_than, newer_than])
            return int(cur.fetchone()[0])
    except OperationalError as exc:
        if not isinstance(exc.__cause__, errors.LockNotAvailable):
            raise
        log.info("drop_chunks %s: a reader held a chunk for more than %d ms; tried again next run",
                 table, DROP_LOCK_WAIT_MS)
        return 0


def _empty(cur, chunk: str) -> bool:
    cur.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {chunk})")
    return bool(cur.fetchone()[0])
