"""Thin Celery wrappers: they take ids, never ORM objects, and delegate to collector modules."""
from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

import redis
from django.conf import settings

from collector import metrics
from collector.celery_app import app

log = logging.getLogger(__name__)
_redis: redis.Redis | None = None
WORKER = f"{socket.gethostname()}:{os.getpid()}"


def _client() -> redis.Redis:
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)
    return _redis


_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
LOCK_TTL_MS = 10_000      # a killed worker's lock frees itself within this time
LOCK_RENEW_S = 3.0        # a running poll renews its lock this often, however long it takes


class PollLock:
    """"Never polled twice at once", also for polls longer than their interval.

    A short-lived redis lock renewed by a timer thread while the poll runs: a slow poll keeps
    it, a killed worker loses it within LOCK_TTL_MS, so the next scheduled poll is not blocked
    for long (a long fixed TTL would turn one crash into minutes of gap).
    """

    def __init__(self, switch_id: int):
        self.key = f"cellar:poll-lock:{int(switch_id)}"
        self.token = f"{WORKER}:{uuid.uuid4().hex}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        if not _client().set(self.key, self.token, nx=True, px=LOCK_TTL_MS):
            return False
        self._thread = threading.Thread(target=self._renew, name=f"lock-{self.key}", daemon=True)
        self._thread.start()
        return True

    def _renew(self) -> None:
        while not self._stop.wait(LOCK_RENEW_S):
            try:
                if not _client().eval(_EXTEND, 1, self.key, self.token, LOCK_TTL_MS):
                    return   # lost it (expired during a redis outage): the poll finishes anyway
            except redis.RedisError as exc:
                log.warning("poll lock %s not renewed: %s", self.key, exc)

    def release(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=LOCK_RENEW_S + 1)
        try:
            _client().eval(_RELEASE, 1, self.key, self.token)
        except redis.RedisError as exc:
            log.warning("poll lock %s not released (expires by itself): %s", self.key, exc)


@app.task(name="cellar.poll_switch")
def poll_switch(switch_id: int) -> str:
    """Poll one switch now, unless a poll of it is still running (never twice at once)."""
    from collector import runner
    from webapp.inventory.models import Switch

    lock = PollLock(switch_id)
    if not lock.acquire():
        metrics.SKIPPED.labels(str(switch_id), "running").inc()
        log.info("poll of switch %s skipped: the previous one is still running", switch_id)
        return "skipped"
    try:
        return runner.poll_once(int(switch_id)).status
    except Switch.DoesNotExist:
        # Deleted since beat scheduled it (beat drops the entry at its next refresh).
        log.info("poll of switch %s skipped: it no longer exists", switch_id)
        return "gone"
    finally:
        lock.release()


@app.task(name="cellar.discover_switch")
def discover_switch(switch_id: int) -> str:
    from collector import discovery

    return discovery.discover(int(switch_id)).summary()


@app.task(name="cellar.check_hosts")
def check_hosts() -> int:
    """Fan out one check per enabled host."""
    from webapp.inventory.models import Host

    ids = list(Host.objects.filter(enabled=True).values_list("id", flat=True))
    for host_id in ids:
        check_host.apply_async((host_id,), expires=settings.CELLAR_HOST_CHECK_INTERVAL)
    return len(ids)


@app.task(name="cellar.check_host")
def check_host(host_id: int) -> bool:
    from collector import hostcheck

    return hostcheck.check_and_record(int(host_id)).reachable
