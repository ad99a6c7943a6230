"""A psycopg cursor on Django's connection that can prepare statements, and several such
statements sent in one round trip.

Django's own cursor binds parameters on the client and never prepares, so a statement asked for
again and again (a plot's buckets, its series, the events that touch it) would be planned at
every request: for a plot's CTE-and-UNION statements planning costs more than running them
(the events that touch a plot: 0.7 ms to plan, 0.06 ms to run). This cursor binds on the server,
so `execute(..., prepare=True)` parses and plans once per connection. It bypasses Django's
cursor wrapper: its statements are not in Django's query log.

`together` sends statements that do not depend on each other in one psycopg pipeline: a plot's
buckets and the events that touch it cost one round trip, not two (a round trip is 0.05-0.7 ms
here, by load: docs/benchmarks.md, 3a), when the events could not come with the plot's series
statement (webapp/traffic/service.py resolve: a full wider read). Each statement is a `Send`: it
executes on the cursor it is given and returns how to read its result once the pipeline has synced.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from django.db import connection

# A statement to send: executes on the cursor given, returns the function that reads its result.
Send = Callable[[psycopg.Cursor], Callable[[], Any]]


def server_cursor() -> psycopg.Cursor:
    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def read_one(send: Send) -> Any:
    """One statement on its own (no pipeline: a pipeline of one costs a Sync message more)."""
    with server_cursor() as cur:
        return send(cur)()


def together(*sends: Send) -> list[Any]:
    """Run the statements in one round trip (in this order, in the connection's transaction)
    and return their results in the same order. An error of any of them is raised here."""
    connection.ensure_connection()
    conn = connection.connection
    cursors = [psycopg.Cursor(conn) for _ in sends]
    try:
        with conn.pipeline():
            readers = [send(cur) for send, cur in zip(sends, cursors)]
        return [read() for read in readers]
    finally:
        for cur in cursors:
            cur.close()
