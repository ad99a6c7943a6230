"""A real worker started as `make run` and docker-compose start it runs every task beat sends."""
from __future__ import annotations

import pytest
from celery import Celery

from collector.poller import schedule
from tests.support.celery_procs import CeleryProcess, RedisServer, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def done(log: str, name: str) -> bool:
    """The worker's log says task `name` ran and succeeded."""
    return f"Task {name}[" in log and "succeeded" in log.split(f"Task {name}[", 1)[1]


def test_worker_registers_and_runs_every_beat_task(tmp_path, settings):
    names = {e["task"] for e in schedule.static_entries().values()}
    assert {"cellar.rollup", "cellar.retention", "cellar.check_hosts"} <= names
    server = RedisServer(tmp_path).start()
    worker = CeleryProcess("worker", tmp_path, REDIS_URL=server.url)
    try:
        worker.wait_for_log("ready.")
        registered = worker.log_path.read_text()
        missing = [n for n in names if n not in registered]      # the worker lists its tasks at start
        assert not missing, (missing, worker.tail())
        producer = Celery("cellar-test-producer", broker=server.url)
        entries = sorted(schedule.static_entries().values(), key=lambda e: e["task"] != "cellar.rollup")
        # Rollup first and alone: rollup and retention share one advisory lock, so sent together
        # either may find it held and skip (by design); this test wants a rollup that did work.
        producer.send_task(entries[0]["task"], queue=entries[0]["options"]["queue"])
        assert wait_for(lambda: done(worker.log_path.read_text(), "cellar.rollup"), 60, step=0.2), worker.tail()
        for entry in entries[1:]:
            producer.send_task(entry["task"], queue=entry["options"]["queue"])
        wait_for(lambda: all(done(worker.log_path.read_text(), n) for n in names), 60, step=0.2)
        log = worker.log_path.read_text()
        assert "unregistered task" not in log.lower(), worker.tail()
        for n in names:
            assert done(log, n), (n, worker.tail())
        rollup_done = log.split("Task cellar.rollup[", 1)[1]
        assert "'caught_up': True" in rollup_done and "'skipped': False" in rollup_done, worker.tail()
    finally:
        worker.kill()
        server.kill()
