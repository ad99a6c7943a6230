"""Celery worker and beat, for real: polls fan out per switch, never overlap, expire when late."""
from __future__ import annotations

import time

import pytest
from celery import Celery
from django.core.management import call_command

from collector.archive.models import PollLog
from collector.inventory.models import Switch
from tests.support.agents import NetSnmpAgent
from tests.support.celery_procs import CeleryProcess, RedisServer, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture(scope="module")
def snmpd():
    with NetSnmpAgent() as agent:
        yield agent


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path).start()
    yield server
    server.kill()


@pytest.fixture
def producer_app(redis_server):
    """A producer bound to the redis the test's worker listens on."""
    producer = Celery("cellar-test-producer", broker=redis_server.url)
    yield producer
    producer.close()


def _switch(agent, name: str, interval: int) -> Switch:
    call_command("add_switch", "--no-check", name, agent.host, "--port", str(agent.port), "--community", "public",
                 "--profile", "if-mib", "--interval", str(interval), "--timeout", "1", "--retries", "0")
    return Switch.objects.get(name=name)


def test_worker_polls_and_a_late_poll_is_dropped(snmpd, producer_app, redis_server, tmp_path):
    import urllib.request

    from tests.support.agents import free_udp_port

    switch = _switch(snmpd, "t-worker", 15)
    metrics_port = free_udp_port()   # free on TCP too in practice; the worker fails loudly if not
    worker = CeleryProcess("worker", tmp_path, REDIS_URL=redis_server.url, CELLAR_METRICS_PORT=str(metrics_port))
    try:
        worker.wait_for_log("ready.")
        producer_app.send_task("cellar.poll_switch", (switch.id,), queue="polls")
        assert wait_for(lambda: PollLog.objects.filter(switch_id=switch.id).exists(), 30), worker.tail()
        # The poller reports on itself in Prometheus format.
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        assert 'cellar_polls_total{status="ok",switch="t-worker"} 1.0' in text
        assert "cellar_poll_duration_seconds_bucket" in text and "cellar_varbinds_total" in text
        # A poll whose expiry has passed while it waited in the queue is dropped, not run late.
        producer_app.send_task("cellar.poll_switch", (switch.id,), queue="polls", expires=0.001)
        time.sleep(3)
        assert PollLog.objects.filter(switch_id=switch.id).count() == 1
        assert "expired" in worker.tail(20000).lower() or "revoked" in worker.tail(20000).lower()
    finally:
        worker.kill()


def test_never_two_polls_of_one_switch_at_once(snmpd, producer_app, redis_server, tmp_path):
    import redis as redis_lib

    switch = _switch(snmpd, "t-lock", 15)
    # Hold the lock as a running poll would; the worker must skip, not wait or poll twice.
    client = redis_lib.Redis.from_url(redis_server.url)
    client.set(f"cellar:poll-lock:{switch.id}", "someone-else", ex=60)
    worker = CeleryProcess("worker", tmp_path, REDIS_URL=redis_server.url)
    try:
        worker.wait_for_log("ready.")
        producer_app.send_task("cellar.poll_switch", (switch.id,), queue="polls")
        assert wait_for(lambda: "skipped: the previous one is still running" in worker.tail(20000), 20), worker.tail()
        assert not PollLog.objects.filter(switch_id=switch.id).exists()
        client.delete(f"cellar:poll-lock:{switch.id}")
        producer_app.send_task("cellar.poll_switch", (switch.id,), queue="polls")
        assert wait_for(lambda: PollLog.objects.filter(switch_id=switch.id).count() == 1, 20), worker.tail()
    finally:
        worker.kill()


def test_beat_fans_out_per_switch_and_follows_interval_changes(snmpd, producer_app, redis_server, tmp_path):
    fast = _switch(snmpd, "t-fast", 1)
    slow = _switch(snmpd, "t-slow", 4)
    worker = CeleryProcess("worker", tmp_path, REDIS_URL=redis_server.url)
    beat = CeleryProcess("beat", tmp_path, REDIS_URL=redis_server.url)
    try:
        worker.wait_for_log("ready.")
        time.sleep(12)
        n_fast = PollLog.objects.filter(switch_id=fast.id).count()
        n_slow = PollLog.objects.filter(switch_id=slow.id).count()
        # 12 s at 1 s and at 4 s intervals (first run after one interval; allow start-up slack).
        assert 8 <= n_fast <= 13, (n_fast, beat.tail())
        assert 2 <= n_slow <= 4, (n_slow, beat.tail())
        # Change the interval while everything runs: beat picks it up without a restart.
        Switch.objects.filter(pk=slow.pk).update(poll_interval_s=1)
        time.sleep(7)   # one refresh (5 s) plus a couple of polls
        before = PollLog.objects.filter(switch_id=slow.id).count()
        time.sleep(6)
        after = PollLog.objects.filter(switch_id=slow.id).count()
        assert after - before >= 4, (before, after, beat.tail())
        assert (tmp_path / "beat-heartbeat").exists()
    finally:
        beat.kill()
        worker.kill()
