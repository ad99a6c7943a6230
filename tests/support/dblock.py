"""Hold a PostgreSQL table lock from a connection of the test's own, to make a query through the
real path wait (a slow query on demand: statement timeouts, streams held open)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection


@contextmanager
def locked(*tables: str) -> Iterator[None]:
    """ACCESS EXCLUSIVE locks on `tables` (committed data only: use a transactional test) until
    the block ends; a query of those tables waits for it, or for its statement timeout."""
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], password=db["PASSWORD"],
                         dbname=db["NAME"]) as conn:
        conn.execute(f"LOCK TABLE {', '.join(tables)} IN ACCESS EXCLUSIVE MODE")
        try:
            yield
        finally:
            conn.rollback()
