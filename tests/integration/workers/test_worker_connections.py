"""A real Celery worker keeps its database connections across tasks, and replaces broken ones.

Connections are counted by PostgreSQL itself: pg_stat_database.sessions counts every
connection made to the test database (the worker's and this process's: this process keeps
its one connection throughout), pg_stat_activity shows the ones open now.
"""
from __future__ import annotations

import pytest
from celery import Celery
from django.core.management import call_command
from django.db import connection

from collector.archive.models import PollLog, Sample
from collector.inventory.models import Switch
from tests.support.agents import NetSnmpAgent
from tests.support.celery_procs import CeleryProcess, RedisServer, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

THREADS = 8       # tests/celery_procs.py: --pool threads --concurrency 8
GONE = "no longer exists"
# Connections to the test database other than this process's own: the worker's (no beat runs;
# TimescaleDB's background workers are not client backends).
_OTHER_CLIENTS = ("SELECT {} FROM pg_stat_activity WHERE datname = current_database() "
                  "AND backend_type = 'client backend' AND pid <> pg_backend_pid()")


def _sessions() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cur.fetchone()[0]


def _worker_backends() -> list[int]:
    with connection.cursor() as cur:
        cur.execute(_OTHER_CLIENTS.format("pid"))
        return [pid for (pid,) in cur.fetchall()]


def test_worker_reuses_its_connections_and_survives_their_termination(tmp_path):
    server = RedisServer(tmp_path).start()
    producer = Celery("cellar-test-producer", broker=server.url)
    with NetSnmpAgent() as agent:
        switches = []
        for i in range(THREADS):
            call_command("add_switch", "--no-check", f"sw-conn-{i}", agent.host, "--port", str(agent.port),
                         "--community", "public", "--profile", "if-mib", "--interval", "15", "--timeout", "1",
                         "--retries", "0")
            switches.append(Switch.objects.get(name=f"sw-conn-{i}").id)
        # No beat: the test sends every task itself. CONN_MAX_AGE is pinned so that the
        # environment cannot turn reuse off; it is far longer than the test.
        worker = CeleryProcess("worker", tmp_path, REDIS_URL=server.url, DATABASE_CONN_MAX_AGE="600")
        sent = 0

        def log() -> str:
            return worker.log_path.read_text()

        def run(switch_ids) -> None:
            """Poll these switches and wait until the worker reports every task done."""
            nonlocal sent
            for switch_id in switch_ids:
                producer.send_task("cellar.poll_switch", (switch_id,), queue="polls")
            sent += len(switch_ids)
            assert wait_for(lambda: log().count("succeeded in") >= sent, 60), worker.tail()

        def poll_round() -> None:
            # One poll of every switch: each writes a sample and a poll log row.
            run(switches)

        def gone_tasks(n: int) -> None:
            # Cheap tasks of one query each: polls of switches that do not exist.
            run([10**9 + i for i in range(n)])

        try:
            start_sessions = _sessions()
            worker.wait_for_log("ready.")
            for _ in range(5):
                poll_round()
            gone_tasks(400)
            # 440 tasks, one connection or more each before the fixup was told to keep them:
            # now one per pool thread, and they are still open.
            opened = _sessions() - start_sessions
            assert opened <= THREADS, (opened, sent)
            backends = _worker_backends()
            assert 1 <= len(backends) <= THREADS, backends

            # A database restart, as the worker sees it: every one of its connections goes.
            with connection.cursor() as cur:
                cur.execute(_OTHER_CLIENTS.format("count(pg_terminate_backend(pid))"))
                assert cur.fetchone()[0] == len(backends)
            assert wait_for(lambda: not _worker_backends(), 10)
            samples = Sample.objects.count()
            killed_at = _sessions()
            gone_tasks(200)
            for _ in range(3):
                poll_round()
            # The next tasks did not notice: no task failed, every poll was written straight to
            # the database (none spooled), and the threads opened new connections once each.
            assert "raised unexpected" not in log() and "OperationalError" not in log(), worker.tail()
            assert log().count("succeeded in") == sent and log().count(GONE) == 600, worker.tail()
            assert Sample.objects.count() == samples + 3 * len(switches)
            assert PollLog.objects.filter(status="ok").count() == 8 * len(switches)
            assert not list((tmp_path / "spool").glob("*.jsonl"))
            assert 1 <= _sessions() - killed_at <= THREADS
            assert set(_worker_backends()).isdisjoint(backends)
        finally:
            worker.kill()
            producer.close()
            server.kill()
