"""Poller groups as an operator sees them: per group (its Celery queue polls.<group>), how many
switches, when they were last polled, how late the latest of them is, and which workers were
seen consuming the queue. The dashboard's Pollers table (webapp/status) reads `groups()`.

A worker records itself per queue in redis each time it takes a slot of polls (record_seen, a
hash field per worker): cheap (one HSET a second), and it names the worker, which the poll log
does not. Lateness comes from each switch's last poll (SwitchHealth.last_poll_at): a switch is
late when its last poll is older than LATE_PERIODS of its interval.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

import redis
from django.db.models import F

from collector.inventory.models import Switch
from collector.poller.locks import client

log = logging.getLogger(__name__)
SEEN_KEY = "cellar:pollers:"        # + queue: a hash worker name -> Unix time last seen
SEEN_TTL_S = 7 * 86400
LATE_PERIODS = 2.0                  # a switch not polled for this many intervals is late


def record_seen(queue: str, worker: str) -> None:
    """Note that `worker` took a slot of `queue` now; a redis error is logged, never raised (the
    polls matter more than this bookkeeping)."""
    try:
        pipe = client().pipeline(transaction=False)
        pipe.hset(SEEN_KEY + queue, worker, f"{time.time():.3f}")
        pipe.expire(SEEN_KEY + queue, SEEN_TTL_S)
        pipe.execute()
    except redis.RedisError as exc:
        log.warning("poller %s on %s not recorded: %s", worker, queue, exc.__class__.__name__)


@dataclass
class PollerGroup:
    group: str
    queue: str
    switches: int = 0
    late_switches: int = 0
    never_polled: int = 0
    last_poll_at: datetime | None = None      # the most recent poll of any of its switches
    lateness_s: float = 0.0                   # of its latest switch: time since its last poll - its interval
    shortest_interval_s: int = 0
    workers: list[tuple[str, datetime]] = field(default_factory=list)   # name, last seen; latest first

    @property
    def state(self) -> str:
        """ok | late (switches not polled for LATE_PERIODS intervals, or none of them ever) | no
        worker (none seen lately). A switch just added and not polled yet is the switch's matter
        (the dashboard lists it), not its poller's."""
        if self.late_switches or (self.switches and self.never_polled == self.switches):
            return "late"
        if not self.workers:
            return "no worker"
        return "ok"

    @property
    def problem(self) -> str:
        """One line for the dashboard's "Needs attention" (when state is not ok)."""
        head = f"poller group {self.group} ({self.queue}): {self.state}"
        if self.state == "no worker":
            return head + ": no worker took its polls in the last day"
        if self.late_switches:
            return (f"{head}, {self.late_switches} of {self.switches} switches not polled for {LATE_PERIODS:g} "
                    f"intervals (up to {self.lateness_s:.0f} s past due)")
        return head + ", none of its switches polled yet"

    @property
    def worker_seen_s(self) -> float | None:
        if not self.workers:
            return None
        return (datetime.now(UTC) - self.workers[0][1]).total_seconds()


def _workers(queue: str) -> list[tuple[str, datetime]]:
    try:
        seen = client().hgetall(SEEN_KEY + queue)
    except redis.RedisError as exc:
        log.warning("pollers of %s unknown: %s", queue, exc.__class__.__name__)
        return []
    # Bytes: the client does not decode responses (str is in redis-py's types only for clients that do).
    out = [(k.decode(errors="replace") if isinstance(k, bytes) else k, datetime.fromtimestamp(float(v), tz=UTC))
           for k, v in seen.items()]
    return sorted(out, key=lambda w: w[1], reverse=True)


def groups(now: datetime | None = None) -> list[PollerGroup]:
    """Every poller group with an enabled switch, by name; the workers seen within a day."""
    now = now or datetime.now(UTC)
    found: dict[str, PollerGroup] = {}
    rows = (Switch.objects.filter(enabled=True)
            .values_list("poller_group", "poll_interval_s", F("health__last_poll_at")))
    for group, interval, last in rows:
        g = found.get(group)
        if g is None:
            g = found[group] = PollerGroup(group, Switch.queue_name(group), shortest_interval_s=interval)
        g.switches += 1
        g.shortest_interval_s = min(g.shortest_interval_s, interval)
        if last is None:
            g.never_polled += 1
            continue
        age = (now - last).total_seconds()
        g.last_poll_at = max(g.last_poll_at or last, last)
        g.lateness_s = max(g.lateness_s, age - interval)
        if age > LATE_PERIODS * interval:
            g.late_switches += 1
    for g in found.values():
        g.workers = [w for w in _workers(g.queue) if (now - w[1]).total_seconds() < 86400]
    return [found[k] for k in sorted(found)]
