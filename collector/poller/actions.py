"""What an operator (or a task) can ask the poller to do now: the only entry points the page apps
call to act, so a view never orchestrates polls itself.

- discover(switch_id): walk the switch (inventory discovery), then attach the archive's series to
  what was found and drop the ingest cache of the switch;
- poll(switch_id): one poll under the per-switch lock (never twice at once);
- poll_batch(due): the polls of one beat slot, each at its switch's phase, under the same locks;
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
from collector.poller import hostcheck, metrics, reach, runner
from collector.poller.hostcheck import CheckResult
from collector.poller.locks import PollLock, PollLocks

log = logging.getLogger(__name__)


class DiscoveryFailed(Exception):
    """Discovery could not be applied at all; str() is one line naming the switch and the cause."""


# What makes a discovery fail, reported as one line, never a traceback: the agent (SNMP, no
# profile fits, the network) and the database.
DISCOVERY_ERRORS = (SnmpError, ProfileError, OSError, DiscoveryFailed)


def discover(switch_id: int, *, infer: bool = True) -> DiscoveryReport:
    """Discovery of one switch and what the archive keeps in step with it, then link inference over
    the claims it brought if what inference reads changed (`infer`: a discovery slot runs it once
    for all its switches instead: discover_many). A table the agent did not answer is in the report
    (report.complete False); a database error is DiscoveryFailed."""
    switch = Switch.objects.select_related("credential_set").get(pk=switch_id)
    reach.check(switch.poller_group, f"switch {switch.name}")
    try:
        before = changes.capture(switch.id)
        report = discovery.discover(switch)
        changes.record(before)
        link_series(switch)
        if infer and report.topology_changed:
            topology.infer_links()
    except DatabaseError as exc:
        raise DiscoveryFailed(_database_error(switch.name, exc)) from None
    finally:
        ingest.forget(switch.id)
        runner.forget_expected(switch.id)
    return report


def _database_error(name: str, exc: DatabaseError) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
    return f"{name}: database error while storing what the agent answered: {exc.__class__.__name__}: {first}"


def discover_many(switch_ids: list[int]) -> dict[str, int]:
    """Rediscover the switches of one discovery slot, one after the other, then one link inference
    if any of them changed what inference reads. Inference reads the whole inventory (at 100,000
    ports a large part of a discovery's cost): run per switch and unconditionally it made
    rediscovery quadratic in the network's size (docs/benchmarks.md, figure 6); the periodic
    cellar.infer_links still runs every CELLAR_TOPOLOGY_INTERVAL. A failure is one log line (the next
    scheduled run tries again); the slot's others go on."""
    counts: dict[str, int] = {}
    changed = False
    for sid in switch_ids:
        outcome = "failed"
        try:
            changed |= discover(sid, infer=False).topology_changed
            outcome = "done"
        except DISCOVERY_ERRORS as exc:
            log.warning("discovery of switch %s failed: %s: %s", sid, exc.__class__.__name__, exc)
        except Exception:       # a deleted switch or an unexpected error
            log.exception("discovery of switch %s failed", sid)
        counts[outcome] = counts.get(outcome, 0) + 1
    if changed:
        try:
            counts["links"] = topology.infer_links().links
        except DatabaseError as exc:
            log.warning("link inference after discovery failed: %s", _database_error("inventory", exc))
    return counts


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


def poll_batch(due: dict[int, float]) -> dict[str, int]:
    """Poll the switches of `due` (id -> Unix time of its slot) under their per-switch locks; a
    switch whose previous poll still runs is skipped. Returns how many polls ended how."""
    locks = PollLocks(list(due))
    held = set(locks.acquire())
    counts: dict[str, int] = {}
    for sid in due:
        if sid not in held:
            metrics.SKIPPED.labels(str(sid), "running").inc()
            counts["skipped"] = counts.get("skipped", 0) + 1
    if not held:
        return counts
    try:
        outcomes = runner.poll_batch({sid: t for sid, t in due.items() if sid in held})
    finally:
        locks.release()
    for outcome in outcomes.values():
        status = outcome.status if outcome is not None else "gone"
        counts[status] = counts.get(status, 0) + 1
    return counts


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
