"""How many direct CSV downloads stream at once: a counting semaphore in redis.

Each stream holds a lease in two sorted sets (the whole web tier, and its user or address),
scored by the time the lease expires. Taking a lease first drops expired ones, so a web worker
that died mid-stream frees its slot after LEASE_SLACK_S past the longest a stream can last
(the CSV's statement timeout: PostgreSQL stops the COPY then). The check-and-take is one Lua
script: two web workers never both take the last slot.
"""
from __future__ import annotations

import functools
import math
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import redis
from django.conf import settings

from collector.reader.timelimits import limit_ms

PREFIX = "cellar:csv-streams:"
LEASE_SLACK_S = 30
RETRY_AFTER_MAX_S = 10      # a stream usually ends long before its lease would expire

# KEYS: the sets; ARGV: now, lease expiry, token, then the limit of each set. Returns 0 and the
# token when taken, else the 1-based index of the full set and its earliest expiry.
_TAKE = """
for i, k in ipairs(KEYS) do redis.call('ZREMRANGEBYSCORE', k, '-inf', ARGV[1]) end
for i, k in ipairs(KEYS) do
  if redis.call('ZCARD', k) >= tonumber(ARGV[3 + i]) then
    local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
    return {i, first[2]}
  end
end
local ttl = math.ceil(tonumber(ARGV[2]) - tonumber(ARGV[1])) + 1
for i, k in ipairs(KEYS) do
  redis.call('ZADD', k, ARGV[2], ARGV[3])
  redis.call('EXPIRE', k, ttl)
end
return {0, ARGV[3]}
"""


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


@dataclass(frozen=True)
class Lease:
    keys: tuple[str, ...]
    token: str

    def release(self) -> None:
        client = _client(settings.REDIS_URL)
        pipe = client.pipeline()
        for k in self.keys:
            pipe.zrem(k, self.token)
        pipe.execute()


class Busy(Exception):
    """No slot free; str() is the message, retry_after the seconds to wait (Retry-After)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def lease_seconds() -> float:
    return limit_ms("traffic.export") / 1000 + LEASE_SLACK_S


def acquire(keys: tuple[str, ...], limits: tuple[int, ...], lease_s: float) -> Lease | tuple[int, int]:
    """A lease in every set of `keys` (each at most its limit), or (1-based index of the full set,
    seconds until its earliest lease expires). Also used for plot images (images.py)."""
    now = time.time()
    token = uuid.uuid4().hex
    full, value = _client(settings.REDIS_URL).eval(_TAKE, len(keys), *keys, now, now + lease_s, token, *limits)
    if full == 0:
        return Lease(keys, token)
    return int(full), max(1, min(RETRY_AFTER_MAX_S, math.ceil(float(value) - now)))


def take(client_key: str) -> Lease:
    """A slot for one stream of `client_key` (user:<id> or addr:<ip>), or Busy."""
    # The client's own set first: when both are full, its own limit is the one to state.
    limits = (settings.CELLAR_CSV_STREAMS_PER_CLIENT, settings.CELLAR_CSV_STREAMS_MAX)
    got = acquire((PREFIX + client_key, PREFIX + "all"), limits, lease_seconds())
    if isinstance(got, Lease):
        return got
    full, retry = got
    if full == 1:
        message = (f"you have {limits[0]} CSV downloads streaming, the most one user (or address) may run at "
                   f"once; retry when one has finished (in about {retry} s), or start a background export")
    else:
        message = (f"{limits[1]} CSV downloads are streaming now, the most the server runs at once; "
                   f"retry in {retry} s, or start a background export (POST the same URL)")
    raise Busy(message, retry)


def guarded(first: list[bytes], rest: Iterator[bytes], lease: Lease) -> Iterator[bytes]:
    """The chunks already read, then the rest; when the stream ends, fails or is closed (the
    client went away), the query is closed at once (not when garbage-collected) and the slot
    given back."""
    try:
        yield from first
        yield from rest
    finally:
        close = getattr(rest, "close", None)
        if close is not None:
            close()
        lease.release()
