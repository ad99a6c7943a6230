"""The beat schedule, in one place.

Static entries are named and commented below. Per-switch entries (one poll entry and one
discovery entry per enabled switch) are generated from the inventory by SwitchScheduler and
refreshed every REFRESH_S seconds, so adding a switch or changing its poll interval takes
effect without restarting beat. Every entry carries an expiry: a task that waited longer than
its period is dropped by the worker instead of piling up behind newer ones.
"""
from __future__ import annotations

import logging
import time

from celery import beat
from django.conf import settings
from django.db import DatabaseError

log = logging.getLogger(__name__)
REFRESH_S = 5.0


def static_entries() -> dict[str, dict]:
    host_period = settings.CELLAR_HOST_CHECK_INTERVAL
    return {
        # Reachability of every host for the status pages (ICMP, falling back to TCP or SNMP).
        "check-hosts": {
            "task": "cellar.check_hosts", "schedule": float(host_period),
            "options": {"queue": "default", "expires": host_period},
        },
        # Roll raw samples up into the 1m/15m/1h/1d tiers (collector/rollup_tasks.py); late
        # samples first. A run that outlives the period makes the next one skip (advisory lock).
        "rollup": {
            "task": "cellar.rollup", "schedule": float(settings.CELLAR_ROLLUP_INTERVAL),
            "options": {"queue": "default", "expires": settings.CELLAR_ROLLUP_INTERVAL},
        },
        # Drop raw, tier and poll-log chunks past their CELLAR_RETENTION_*_DAYS (drop_chunks).
        "retention": {
            "task": "cellar.retention", "schedule": 3600.0,
            "options": {"queue": "default", "expires": 3600},
        },
    }


def switch_entries() -> dict[str, dict]:
    from webapp.inventory.models import Switch

    entries: dict[str, dict] = {}
    discovery = settings.CELLAR_DISCOVERY_INTERVAL
    for switch in Switch.objects.filter(enabled=True).only("id", "poll_interval_s", "poller_group"):
        period = switch.poll_interval_s
        # Poll counters at the switch's own interval, on its poller group's queue.
        entries[f"poll-switch-{switch.id}"] = {
            "task": "cellar.poll_switch", "schedule": float(period), "args": (switch.id,),
            "options": {"queue": switch.queue, "expires": period},
        }
        # Re-walk ports, VPs, VCs and cross-connects: what vanished is marked gone.
        entries[f"discover-switch-{switch.id}"] = {
            "task": "cellar.discover_switch", "schedule": float(discovery), "args": (switch.id,),
            "options": {"queue": switch.queue, "expires": discovery},
        }
    return entries


class SwitchScheduler(beat.Scheduler):
    """An in-memory scheduler whose entries follow the inventory."""

    def setup_schedule(self) -> None:
        self._refreshed = 0.0
        self._refresh()

    def _refresh(self) -> None:
        self._refreshed = time.monotonic()
        self._heartbeat()
        try:
            desired = {**static_entries(), **switch_entries()}
        except DatabaseError as exc:
            # Keep polling on the last known schedule while the database is away.
            log.warning("beat: inventory unavailable, keeping the current schedule (%s)", exc.__class__.__name__)
            return
        self.merge_inplace(desired)

    @staticmethod
    def _heartbeat() -> None:
        """Touch the file the container health check watches: beat is alive and ticking."""
        path = settings.CELLAR_BEAT_HEARTBEAT
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError as exc:
            log.warning("beat: cannot touch heartbeat %s: %s", path, exc)

    def tick(self, *args, **kwargs) -> float:
        if time.monotonic() - self._refreshed >= REFRESH_S:
            self._refresh()
        return min(super().tick(*args, **kwargs), REFRESH_S)
