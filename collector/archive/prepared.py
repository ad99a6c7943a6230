"""A psycopg cursor on Django's connection that can prepare statements, several such statements
sent in one round trip, and the statement timeout that goes with them.

Django's own cursor binds parameters on the client and never prepares, so a statement asked for
again and again (a plot's buckets, its series, the events that touch it) would be planned at
every request: for a plot's CTE-and-UNION statements planning costs more than running them
(the events that touch a plot: 0.7 ms to plan, 0.06 ms to run). This cursor binds on the server,
so `execute(..., prepare=True)` parses and plans once per connection. It bypasses Django's
cursor wrapper: its statements are not in Django's query log.

`together` sends statements in one psycopg pipeline: a plot's series, clock and buckets cost one
round trip (a round trip is 0.05-0.7 ms here, by load: docs/benchmarks.md, 3a). Each statement is
a `Send`: it executes on the cursor it is given and returns how to read its result once the
pipeline has synced.

`statement_timeout(ms)`: a web endpoint's limit (collector/reader/timelimits.py) for the statements sent here.
Outside a transaction, `SET LOCAL statement_timeout` goes first in the same pipeline: in the
extended protocol everything up to the pipeline's Sync is one implicit transaction, so the limit
holds for these statements and ends with them, with no BEGIN and COMMIT round trips (a one-port
plot: 0.27 -> 0.11 ms for a statement with its limit, docs/benchmarks.md 3a).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import psycopg
from django.db import connection
from psycopg import pq

# A statement to send: executes on the cursor given, returns the function that reads its result.
Send = Callable[[psycopg.Cursor], Callable[[], Any]]

_TIMEOUT_MS: ContextVar[int | None] = ContextVar("cellar_statement_timeout_ms", default=None)


@contextmanager
def statement_timeout(ms: int) -> Iterator[None]:
    """In this block, read_one and together send their statements under a statement timeout of
    `ms` when no transaction is open (in one, its owner has set the limit: collector/reader/timelimits.py)."""
    token = _TIMEOUT_MS.set(int(ms))
    try:
        yield
    finally:
        _TIMEOUT_MS.reset(token)


def _set_timeout(ms: int) -> Send:
    def send(cur: psycopg.Cursor) -> Callable[[], None]:
        cur.execute("SELECT set_config('statement_timeout', %s, true)", [f"{ms}ms"], prepare=True)
        return lambda: None
    return send


def server_cursor() -> psycopg.Cursor:
    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def read_one(send: Send) -> Any:
    """One statement on its own (no pipeline: a pipeline of one costs a Sync message more),
    or with its statement timeout in front (statement_timeout)."""
    ms = _pending_timeout()
    if ms is not None:
        return _pipelined(ms, (send,))[0]
    with server_cursor() as cur:
        return send(cur)()


def _pending_timeout() -> int | None:
    """The block's statement timeout when it must be sent with the statements: no transaction open."""
    ms = _TIMEOUT_MS.get()
    if ms is None:
        return None
    connection.ensure_connection()
    return ms if connection.connection.info.transaction_status == pq.TransactionStatus.IDLE else None


def together(*sends: Send) -> list[Any]:
    """Run the statements in one round trip (in this order, in one transaction: the connection's,
    or the pipeline's implicit one) and return their results in the same order. An error of any
    of them is raised here."""
    return _pipelined(_pending_timeout(), sends)


def _pipelined(ms: int | None, sends: tuple[Send, ...]) -> list[Any]:
    """together, with the statement timeout `ms` sent first (None: none to send)."""
    if ms is not None:
        sends = (_set_timeout(ms), *sends)
    connection.ensure_connection()
    conn = connection.connection
    cursors = [psycopg.Cursor(conn) for _ in sends]
    try:
        with conn.pipeline():
            readers = [send(cur) for send, cur in zip(sends, cursors)]
        results = [read() for read in readers]
    finally:
        for cur in cursors:
            cur.close()
    return results[1:] if ms is not None else results
