"""Statement timeouts per endpoint (webapp/timelimits.py): real queries that run past the limit, in
PostgreSQL (pg_sleep, and the endpoints' own queries kept waiting on a table lock), answered with
the limit and what to do, never a 500."""
from __future__ import annotations

import time

import pytest
from django.db import connection, transaction

from collector.archive import prepared
from collector.reader import timelimits
from tests.support.dblock import locked

pytestmark = pytest.mark.usefixtures("plain_static")


def test_the_table_is_scaled_and_capped(settings):
    assert timelimits.limit_ms("traffic.export") == 30_000
    assert timelimits.limit_ms("status") == 10_000
    settings.CELLAR_WEB_TIMEOUT_SCALE = 0.5
    assert timelimits.limit_ms("traffic.data") == 7_500
    settings.CELLAR_WEB_TIMEOUT_SCALE = 10.0
    assert timelimits.limit_ms("traffic.data") == settings.CELLAR_WEB_TIMEOUT_MAX_MS == 30_000


def show_timeout() -> str:
    with connection.cursor() as cur:
        cur.execute("SHOW statement_timeout")
        return cur.fetchone()[0]


@pytest.mark.django_db
def test_pg_sleep_past_the_limit_is_stopped_with_the_message(settings):
    settings.CELLAR_WEB_TIMEOUT_MAX_MS = 300
    before = show_timeout()
    with timelimits.time_limited("traffic.p95") as ms:
        assert ms == 300 and show_timeout() == "300ms"
    assert show_timeout() == before             # put back: no leak into the next request's statements
    started = time.monotonic()
    with pytest.raises(timelimits.TooSlow) as caught:
        with transaction.atomic():      # the test's transaction survives the cancelled statement
            with timelimits.time_limited("traffic.p95"):
                with connection.cursor() as cur:
                    cur.execute("SELECT pg_sleep(5)")
    assert time.monotonic() - started < 2
    assert str(caught.value) == ("the 95th percentile took longer than its limit of 0.3 s and was stopped: narrow "
                                 "the range or choose fewer series, or choose a coarser resolution.")


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_first_statement_opens_one_and_the_timeout_ends_with_it(settings):
    """A request's case (autocommit): nothing is sent on entering the block; the first statement
    through Django's cursor opens the transaction (BEGIN and SET LOCAL in one message), the block's
    end commits it."""
    settings.CELLAR_WEB_TIMEOUT_MAX_MS = 300
    before = show_timeout()
    assert before != "300ms" and not connection.in_atomic_block
    with timelimits.time_limited("traffic.data"):
        assert not connection.in_atomic_block
        assert show_timeout() == "300ms" and connection.in_atomic_block
        with connection.cursor() as cur:
            cur.execute("SELECT now() = statement_timestamp()")    # false: a transaction began before
            assert cur.fetchone()[0] is False
    assert show_timeout() == before and connection.connection.info.transaction_status == 0    # idle
    with pytest.raises(timelimits.TooSlow):
        with timelimits.time_limited("traffic.data"):
            with connection.cursor() as cur:
                cur.execute("SELECT pg_sleep(5)")
    assert show_timeout() == before and connection.connection.info.transaction_status == 0


def _setting_and_sleep(seconds: float) -> prepared.Send:
    def send(cur):
        cur.execute("SELECT current_setting('statement_timeout'), pg_sleep(%s)", [seconds], prepare=True)
        return cur.fetchone
    return send


@pytest.mark.django_db(transaction=True)
def test_prepared_reads_carry_the_limit_without_a_transaction(settings):
    """Prepared reads (a plot's) send SET LOCAL in front of their statements in one pipeline: the
    limit holds for them, and with the pipeline's implicit transaction it is gone."""
    settings.CELLAR_WEB_TIMEOUT_MAX_MS = 300
    before = show_timeout()
    with timelimits.time_limited("traffic.data"):
        assert prepared.read_one(_setting_and_sleep(0))[0] == "300ms"
        assert [r[0] for r in prepared.together(_setting_and_sleep(0), _setting_and_sleep(0))] == ["300ms", "300ms"]
        assert not connection.in_atomic_block and connection.connection.info.transaction_status == 0
    assert prepared.read_one(_setting_and_sleep(0))[0] == before == show_timeout()
    started = time.monotonic()
    with pytest.raises(timelimits.TooSlow):
        with timelimits.time_limited("traffic.data"):
            prepared.read_one(_setting_and_sleep(5))
    assert time.monotonic() - started < 2
    assert connection.connection.info.transaction_status == 0 and show_timeout() == before
    # After a Django statement opened the block's transaction, prepared reads run in it.
    with timelimits.time_limited("traffic.data"):
        assert show_timeout() == "300ms"
        assert prepared.read_one(_setting_and_sleep(0))[0] == "300ms"
        assert connection.connection.info.transaction_status == 2      # in the block's transaction
    assert show_timeout() == before


@pytest.mark.django_db(transaction=True)
def test_a_transaction_the_block_opens_itself_gets_the_limit(settings):
    settings.CELLAR_WEB_TIMEOUT_MAX_MS = 300
    with timelimits.time_limited("traffic.data"):
        with transaction.atomic():
            assert show_timeout() == "300ms"
        with transaction.atomic():                  # a second one of its own: set again
            assert show_timeout() == "300ms"


def test_endpoints_answer_503_with_their_limit(net, client, settings):
    """The samples and tiers locked: each endpoint's real query waits until its own limit."""
    settings.CELLAR_WEB_TIMEOUT_MAX_MS = 500
    settings.CELLAR_RATE_LIMIT_USER = settings.CELLAR_RATE_LIMIT_ADDRESS = "100000/m"
    q = f"s={net.rx.id},{net.tx.id}&range=3h"
    tables = ("traffic_sample", "traffic_rollup_1m", "traffic_rollup_15m", "traffic_rollup_1h", "traffic_rollup_1d")
    with locked(*tables):
        started = time.monotonic()
        data = client.get(f"/traffic/api/data?{q}&res=raw")
        assert time.monotonic() - started < 5
        assert data.status_code == 503 and data["Cellar-Limit-Ms"] == "500"
        assert data.json() == {"limit_ms": 500, "error": "plot data took longer than its limit of 0.5 s and was "
                               "stopped: narrow the range or choose fewer series, or choose a coarser resolution."}
        # the buckets and the events sent together (one pipeline): the error comes at its sync
        buckets = client.get(f"/traffic/api/data?{q}&res=1m")
        assert buckets.status_code == 503 and buckets.json() == data.json()
        p95 = client.get(f"/traffic/api/p95?{q}")
        assert p95.status_code == 503
        assert "the 95th percentile took longer than its limit of 0.5 s" in p95.json()["error"]
        csv = client.get(f"/traffic/export.csv?{q}&raw=1")
        assert csv.status_code == 503 and not csv.streaming
        assert csv.content.decode() == (
            "a direct CSV download took longer than its limit of 0.5 s and was stopped: narrow the range or choose "
            "fewer series, choose a coarser resolution, or start a background export (POST the same CSV URL, "
            "or the button on its page).\n")
        inv = client.get("/datasets/api")
        assert inv.status_code == 503
        assert "the data inventory took longer than its limit of 0.5 s" in inv.json()["error"]
        page = client.get("/datasets/")
        assert page.status_code == 503 and "the data inventory took longer" in page.content.decode()
    with locked("inventory_switch"):
        status = client.get("/switches/")
        assert status.status_code == 503 and "a status page took longer than its limit of 0.5 s" in \
            status.content.decode()
    # The locks gone, the same requests are answered.
    assert client.get(f"/traffic/api/data?{q}&res=raw").status_code == 200
    assert client.get("/switches/").status_code == 200
    ok = client.get(f"/traffic/export.csv?{q}&raw=1")
    assert ok.status_code == 200 and b"".join(ok.streaming_content).count(b"\n") > 700
