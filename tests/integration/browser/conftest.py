"""What every page test shares: one headless chromium per module, and a quiet server before the
test's database is flushed.

A page left open keeps asking the live server (the map refreshes itself, export and analysis jobs
poll their progress, a last change of a control fetches data). If one of those requests is still
reading when pytest-django flushes the database after the test, the flush's TRUNCATE of every
table and the request's query take their locks in different orders and PostgreSQL aborts one of
them as a deadlock: the flush, and with it the next test's clean database. So after each test the
browser's pages are closed (no new request), then the server's queries on the test database are
waited for, bounded, before the flush runs.
"""
from __future__ import annotations

import time

import pytest

from tests.support.browser import chromium

QUIET_WAIT_S = 15.0   # far above any page request of the suite; past it the flush runs anyway


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def others_active() -> int:
    """Queries running on this database in other sessions than the test's own."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid() AND state = 'active' AND backend_type = 'client backend'")
        return cur.fetchone()[0]


@pytest.fixture(autouse=True)
def _quiet_before_flush(request, django_db_blocker):
    if "live_server" not in request.fixturenames:
        yield
        return
    # Set up the database fixture first, so this teardown runs before its flush.
    request.getfixturevalue("transactional_db")
    browser = request.getfixturevalue("browser") if "browser" in request.fixturenames else None
    yield
    if browser is not None:
        for ctx in list(browser.contexts):
            ctx.close()
    deadline = time.monotonic() + QUIET_WAIT_S
    with django_db_blocker.unblock():
        while others_active() and time.monotonic() < deadline:
            time.sleep(0.05)
