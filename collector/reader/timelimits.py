"""Statement time limits of the heavy reads (the web's endpoints, the analysis worker), sized in one table.

One connection-wide timeout (DATABASE_STATEMENT_TIMEOUT_MS) served the web, the worker and the
CLI alike; a plot request could wait a minute and a CSV an hour. Here each heavy endpoint gets
its own limit, set with SET LOCAL inside a transaction (so it ends with the transaction and never
leaks to the next request on a kept connection), and a statement that hits it raises TooSlow, which the
web answers with a 503 that states the limit and what to do instead, not a 500 (webapp/timelimits.py).

The transaction is opened only when a statement needs it: prepared reads
(collector/archive/prepared.py) send the limit in front of their statements in one pipeline, one
implicit transaction without BEGIN and COMMIT; the first statement through Django's cursor opens
a real one (BEGIN and SET LOCAL in one message) that the block's end commits. A one-port plot,
all prepared, saves the two round trips (docs/benchmarks.md, 3a).

A limit is per statement: these endpoints each run one heavy statement and a few index probes.
Background exports (collector/exports) keep the long timeout of collector/archive/export.py.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import psycopg
from django.conf import settings
from django.db import OperationalError, connection, transaction
from psycopg import generators, pq

from collector.archive import prepared

NARROW = "narrow the range or choose fewer series"
COARSER = "choose a coarser resolution"
BACKGROUND = "start a background export (POST the same CSV URL, or the button on its page)"


@dataclass(frozen=True)
class Limit:
    ms: int
    what: str           # "plot data": how the message names the endpoint
    advice: str         # what the user can do instead


# endpoint -> its statement timeout before CELLAR_WEB_TIMEOUT_SCALE and CELLAR_WEB_TIMEOUT_MAX_MS.
LIMITS: dict[str, Limit] = {
    "traffic.data": Limit(15_000, "plot data", f"{NARROW}, or {COARSER}"),
    "traffic.p95": Limit(15_000, "the 95th percentile", f"{NARROW}, or {COARSER}"),
    "traffic.image": Limit(15_000, "the data of a plot image", f"{NARROW}, or {COARSER}"),
    "traffic.export": Limit(30_000, "a direct CSV download", f"{NARROW}, {COARSER}, or {BACKGROUND}"),
    # Each statement (one piece of at most 200,000 rows: collector/reader/bulk.py) of a direct bulk export.
    "exports.bulk": Limit(30_000, "a direct bulk export", f"{NARROW}, {COARSER}, or start it as a background "
                                                          "export (POST the same URL)"),
    "datasets": Limit(20_000, "the data inventory", "narrow the range (start, end) or pick one switch"),
    "talkers": Limit(20_000, "the top talkers ranking",
                      "narrow the scope (switch, poller group, group) or the window, or rank by average or peak"),
    "status": Limit(10_000, "a status page", "try again in a minute; if it persists, tell the operator"),
    # Each statement of a Prometheus scrape (webapp/metrics): one piece of at most 2,000 series.
    "metrics": Limit(10_000, "a Prometheus scrape of counter totals",
                     "scrape fewer series at once (?switch=NAME or ?group=ID), and check that the rollup runs"),
    # Read by the worker (collector/analysis/run.py): at most 65,536 points of 12 series.
    "analysis": Limit(60_000, "reading the analysed series", f"{NARROW}, or {COARSER}"),
}


def limit_ms(name: str) -> int:
    """The endpoint's statement timeout in milliseconds, scaled and capped by the settings."""
    ms = int(LIMITS[name].ms * settings.CELLAR_WEB_TIMEOUT_SCALE)
    return max(1, min(ms, settings.CELLAR_WEB_TIMEOUT_MAX_MS))


class TooSlow(Exception):
    """A statement of endpoint `name` ran past its limit; str() is the message for the user."""

    def __init__(self, name: str, ms: int):
        b = LIMITS[name]
        super().__init__(f"{b.what} took longer than its limit of {ms / 1000:g} s and was stopped: {b.advice}.")
        self.name, self.ms = name, ms


def is_timeout(exc: BaseException) -> bool:
    """True for PostgreSQL's "canceling statement due to statement timeout" (SQLSTATE 57014)
    however Django wrapped it; a cancel for another reason (the client went away) is not."""
    for e in (exc, exc.__cause__):
        if getattr(e, "sqlstate", None) == "57014" and "statement timeout" in str(e):
            return True
    return False


def set_timeout(cur, ms: int) -> str:
    """SET LOCAL statement_timeout on cursor `cur` (in a transaction); returns the previous value."""
    cur.execute("SELECT current_setting('statement_timeout'), set_config('statement_timeout', %s, true)",
                [f"{int(ms)}ms"])
    return cur.fetchone()[0]


def begin_with_timeout(ms: int) -> None:
    """BEGIN and SET LOCAL statement_timeout in one round trip, on Django's connection inside
    transaction.atomic() (psycopg, seeing the transaction open, sends no BEGIN of its own; the
    atomic block's COMMIT ends it). One simple-protocol message of two statements: a round trip
    costs 0.05-0.7 ms here, a sixth of a one-port plot (docs/benchmarks.md, 3a), and psycopg's
    pipeline mode, which did the same before, cost 0.1 ms more of Python per request."""
    conn = connection.connection
    conn.pgconn.send_query(f"BEGIN; SET LOCAL statement_timeout = {int(ms)}".encode())
    for result in conn.wait(generators.execute(conn.pgconn)):
        if result.status != pq.ExecStatus.COMMAND_OK:
            raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)


class _OpenOnFirstStatement:
    """Django execute wrapper of a budget's block: before the block's first statement through
    Django's cursor, a transaction with the limit (entered on the block's ExitStack, so the block's
    end commits it, or rolls it back on an error); a transaction the block's own code opened
    (transaction.atomic in a view) gets the limit set in it before its first statement."""

    def __init__(self, ms: int, stack: ExitStack):
        self.ms, self.stack = ms, stack
        self.covered: transaction.Atomic | None = None    # the outermost atomic block that has the limit

    def __call__(self, execute, sql, params, many, context):
        if not connection.in_atomic_block:
            self.stack.enter_context(transaction.atomic())
            begin_with_timeout(self.ms)
            self.covered = connection.atomic_blocks[0]
        elif connection.atomic_blocks[0] is not self.covered:
            self.covered = connection.atomic_blocks[0]
            connection.connection.execute("SELECT set_config('statement_timeout', %s, true)", [f"{self.ms}ms"])
        return execute(sql, params, many, context)


@contextmanager
def time_limited(name: str) -> Iterator[int]:
    """Run the block's statements under the endpoint's limit; a statement that runs past it
    raises TooSlow. Outside a transaction (a request): prepared reads carry the limit in their
    pipeline, and the first statement through Django's cursor opens a transaction with it that
    ends with the block. Inside an outer transaction (tests), the timeout is set in that one and
    put back at the end, as COMMIT would have done (no savepoint: two statements fewer, and an
    exception such as Http404 does not doom the outer transaction)."""
    ms = limit_ms(name)
    try:
        if connection.in_atomic_block:
            with connection.cursor() as cur:
                previous = set_timeout(cur, ms)
            yield ms
            with connection.cursor() as cur:
                cur.execute("SELECT set_config('statement_timeout', %s, true)", [previous])
        else:
            with ExitStack() as stack:
                stack.enter_context(prepared.statement_timeout(ms))
                stack.enter_context(connection.execute_wrapper(_OpenOnFirstStatement(ms, stack)))
                yield ms
    except (OperationalError, psycopg.OperationalError) as exc:
        # psycopg's own error when the statement ran on a raw cursor (COPY, prepared reads).
        if is_timeout(exc):
            raise TooSlow(name, ms) from exc
        raise
