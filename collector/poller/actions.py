"""What an operator (or a task) can ask the poller to do now: the only entry points the page apps
call to act, so a view never orchestrates polls itself.

- discover(switch_id): walk the switch (inventory discovery), then attach the archive's series to
  what was found and drop the ingest cache of the switch;
- poll(switch_id): one poll under the per-switch lock (never twice at once);
- check_switch(switch_id): discover, then poll ("check now" on the switch page);
- check_host(host_id): one reachability check, recorded;
- infer_links(): cross-connect continuity from the archive, then link inference (docs/topology.md).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import DatabaseError

from collector.archive import continuity, ingest
from collector.archive.series_links import link_series
from collector.core.profiles import ProfileError
from collector.core.snmp_types import SnmpError
from collector.events import changes
from collector.inventory import discovery, topology
from collector.inventory.discovery import DiscoveryReport
from collector.inventory.models import Switch
from collector.poller import hostcheck, metrics, runner
from collector.poller.hostcheck import CheckResult
from collector.poller.locks import PollLock

log = logging.getLogger(__name__)


class DiscoveryFailed(Exception):
    """Discovery could not be applied at all; str() is one line naming the switch and the cause."""


# What makes a discovery fail, reported as one line, never a traceback: the agent (SNMP, no
# profile fits, the network) and the database.
DISCOVERY_ERRORS = (SnmpError, ProfileError, OSError, DiscoveryFailed)


def discover(switch_id: int) -> DiscoveryReport:
    """Discovery of one switch and what the archive keeps in step with it, then link inference over
    the claims it brought. A table the agent did not answer is in the report (report.complete False);
    a database error is DiscoveryFailed."""
    switch = Switch.objects.get(pk=switch_id)
    try:
        before = changes.capture(switch.id)
        report = discovery.discover(switch)
        changes.record(before)
        link_series(switch)
        topology.infer_links()
    except DatabaseError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise DiscoveryFailed(f"{switch.name}: database error while storing what the agent answered: "
                              f"{exc.__class__.__name__}: {first}") from None
    finally:
        ingest.forget(switch.id)
        runner.forget_expected(switch.id)
    return report


def infer_links(window_min: int | None = None) -> topology.InferenceReport:
    """Cross-connect continuity over the last `window_min` minutes of polls (the archive), stored as
    evidence, then one inference run over every claim (collector/inventory/topology.py)."""
    findings = continuity.observe(window_min or settings.CELLAR_TOPOLOGY_WINDOW_MIN)
    topology.store_continuity(findings)
    return topology.infer_links()


def poll(switch_id: int, *, without_lock_if_redis_down: bool = False) -> str:
    """One poll now, unless one of the same switch runs ("skipped"). Returns the poll status
    (ok, partial, timeout, unreachable, auth, error), "skipped" or "gone" (switch deleted)."""
    lock = PollLock(switch_id)
    try:
        held = lock.acquire()
    except redis.RedisError as exc:
        if not without_lock_if_redis_down:
            raise
        log.warning("poll lock unavailable (%s); polling switch %s without it", exc.__class__.__name__, switch_id)
        return _poll(switch_id)
    if not held:
        metrics.SKIPPED.labels(str(switch_id), "running").inc()
        log.info("poll of switch %s skipped: the previous one is still running", switch_id)
        return "skipped"
    try:
        return _poll(switch_id)
    finally:
        lock.release()


def _poll(switch_id: int) -> str:
    try:
        return runner.poll_once(int(switch_id)).status
    except Switch.DoesNotExist:
        # Deleted since it was scheduled (beat drops the entry at its next refresh).
        log.info("poll of switch %s skipped: it no longer exists", switch_id)
        return "gone"


@dataclass
class SwitchCheck:
    discovery: str          # the discovery summary, or why it failed
    discovered: bool
    poll_status: str


def check_switch(switch_id: int) -> SwitchCheck:
    """Rediscover (port states, VCs, cross-connects), then poll (counters)."""
    try:
        report = discover(switch_id)
        summary, ok = report.summary(), report.complete
    except DISCOVERY_ERRORS as exc:
        summary, ok = f"discovery failed ({exc.__class__.__name__}: {exc})", False
    try:
        status = poll(switch_id, without_lock_if_redis_down=True)
    except Exception as exc:      # the page reports it; the worker's scheduled polls go on
        log.exception("check of switch %s: poll failed", switch_id)
        status = f"error ({exc.__class__.__name__}: {exc})"
    return SwitchCheck(summary, ok, status)


def check_host(host_id: int) -> CheckResult:
    return hostcheck.check_and_record(host_id)
