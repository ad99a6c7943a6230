"""Thin Celery wrappers: they take ids, never ORM objects, and delegate to collector modules."""
from __future__ import annotations

import logging
import os
import socket
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


@app.task(name="cellar.poll_switch", acks_late=True)
def poll_switch(switch_id: int) -> str:
    """Poll one switch now, unless a poll of it is still running (never twice at once)."""
    from collector import runner

    key, token = f"cellar:poll-lock:{int(switch_id)}", f"{WORKER}:{uuid.uuid4().hex}"
    # The lock outlives a killed worker by at most this long; a healthy poll releases it.
    if not _client().set(key, token, nx=True, ex=300):
        metrics.SKIPPED.labels(str(switch_id), "running").inc()
        log.info("poll of switch %s skipped: the previous one is still running", switch_id)
        return "skipped"
    try:
        return runner.poll_once(int(switch_id)).status
    finally:
        _client().eval(_RELEASE, 1, key, token)


@app.task(name="cellar.discover_switch", acks_late=True)
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
