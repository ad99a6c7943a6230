""""Never polled twice at once": a per-switch redis lock, renewed while the poll runs."""
from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

import redis
from django.conf import settings

log = logging.getLogger(__name__)
_redis: redis.Redis | None = None
WORKER = f"{socket.gethostname()}:{os.getpid()}"


def client() -> redis.Redis:
    """The poller's redis connection (locks, the pollers seen): one per process, made on first use."""
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)
    return _redis


def forget_client() -> None:
    """Drop the connection: the next client() reads settings.REDIS_URL again (a test's own redis)."""
    global _redis
    _redis = None


_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_EXTEND = ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) "
           "else return 0 end")
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
        if not client().set(self.key, self.token, nx=True, px=LOCK_TTL_MS):
            return False
        self._thread = threading.Thread(target=self._renew, name=f"lock-{self.key}", daemon=True)
        self._thread.start()
        return True

    def _renew(self) -> None:
        while not self._stop.wait(LOCK_RENEW_S):
            try:
                if not client().eval(_EXTEND, 1, self.key, self.token, LOCK_TTL_MS):
                    return   # lost it (expired during a redis outage): the poll finishes anyway
            except redis.RedisError as exc:
                log.warning("poll lock %s not renewed: %s", self.key, exc)

    def release(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=LOCK_RENEW_S + 1)
        try:
            client().eval(_RELEASE, 1, self.key, self.token)
        except redis.RedisError as exc:
            log.warning("poll lock %s not released (expires by itself): %s", self.key, exc)


class PollLocks:
    """PollLock for a batch of switches (one beat slot): the same keys, taken in one round trip
    and renewed by one thread, so a batch of 150 switches costs no 150 threads. acquire()
    returns the ids whose lock was free; the others are polled by someone else right now."""

    def __init__(self, switch_ids: list[int]):
        self.locks = {int(i): PollLock(i) for i in switch_ids}
        self.held: list[int] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> list[int]:
        pipe = client().pipeline(transaction=False)
        for lock in self.locks.values():
            pipe.set(lock.key, lock.token, nx=True, px=LOCK_TTL_MS)
        self.held = [sid for sid, ok in zip(self.locks, pipe.execute()) if ok]
        if self.held:
            self._thread = threading.Thread(target=self._renew, name="lock-batch", daemon=True)
            self._thread.start()
        return list(self.held)

    def _each(self, script: str, *args: int) -> None:
        pipe = client().pipeline(transaction=False)
        for sid in self.held:
            lock = self.locks[sid]
            pipe.eval(script, 1, lock.key, lock.token, *args)
        pipe.execute()

    def _renew(self) -> None:
        while not self._stop.wait(LOCK_RENEW_S):
            try:
                self._each(_EXTEND, LOCK_TTL_MS)
            except redis.RedisError as exc:
                log.warning("poll locks of %d switches not renewed: %s", len(self.held), exc)

    def release(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=LOCK_RENEW_S + 1)
        try:
            if self.held:
                self._each(_RELEASE)
        except redis.RedisError as exc:
            log.warning("poll locks of %d switches not released (they expire by themselves): %s",
                        len(self.held), exc)
