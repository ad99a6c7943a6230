"""The beat schedule, in one place.

Static entries are named and commented below. Per-switch entries (one poll entry and one
discovery entry per enabled switch) are generated from the inventory by SwitchScheduler and
refreshed every REFRESH_S seconds, so adding a switch or changing its poll interval takes
effect without restarting beat. Every entry carries an expiry: a task that waited longer than
its period is dropped by the worker instead of piling up behind newer ones.

Per-switch entries run at a phase of their period (Phased, phase_offset): thousands of
switches sharing one interval would otherwise all be sent in the same second, and the last of
their polls would start seconds late behind the others.
"""
from __future__ import annotations

import logging
import math
import time
from datetime import timedelta

from celery import beat, schedules
from django.conf import settings
from django.db import DatabaseError, close_old_connections

log = logging.getLogger(__name__)
REFRESH_S = 5.0
BURST_SCAN_S = 900.0     # every 15 minutes: a day's bursts are known within ~20 minutes
EXPORT_EXPIRY_S = 600.0   # export files live CELLAR_EXPORT_KEEP_HOURS, give or take 10 minutes
BILLING_S = 300.0        # bills: the open period's estimate is at most this old (plus its data's lag)
EARLY_S = 0.02       # a slot counts as reached this much before it (see Phased.is_due)
_FIB_MULT = 0x9E3779B97F4A7C15   # 2**64 / golden ratio, odd: Fibonacci hashing


def phase_offset(switch_id: int, period: float) -> float:
    """Seconds into every `period` (counted from the Unix epoch) at which the switch runs.

    frac(id / golden ratio), in exact integer arithmetic: ids handed out one after another
    land as evenly on the circle as points can (three-distance theorem), so N switches at
    one interval I put about N/I polls into each second; a switch keeps its phase across beat
    restarts, inventory refreshes and other switches coming and going. A general-purpose hash
    is only uniform on average: 1,000 switches at 15 s would put ~80 polls into some second
    instead of 67.
    """
    return (switch_id * _FIB_MULT % 2**64) / 2**64 * period


class Phased(schedules.schedule):
    """Every `period` seconds, at the slots epoch + phase + k * period.

    Celery's plain interval counts from the last send, so a phase given once would drift by
    each send's lateness; slots on a fixed grid do not drift, and a late or restarted beat
    still sends once per slot at most (missed slots are not made up).
    """

    def __init__(self, period: float, phase: float, nowfun=None, app=None):
        super().__init__(run_every=timedelta(seconds=period), nowfun=nowfun, app=app)
        self.phase = phase % period

    def _next_slot(self, after: float) -> float:
        """The first slot later than `after` + EARLY_S (Unix time)."""
        period = self.seconds
        return (math.floor((after + EARLY_S - self.phase) / period) + 1) * period + self.phase

    def _times(self, last_run_at) -> tuple[float, float]:
        return self.maybe_make_aware(last_run_at).timestamp(), self.maybe_make_aware(self.now()).timestamp()

    def remaining_estimate(self, last_run_at) -> timedelta:
        last, now = self._times(last_run_at)
        return timedelta(seconds=max(self._next_slot(last) - now, 0.0))

    def is_due(self, last_run_at) -> schedules.schedstate:
        # Due EARLY_S ahead of the slot: beat wakes 10 ms before an entry's time (its `adjust`)
        # and would otherwise spin until the slot, for every switch, as they no longer coincide.
        # last_run_at is then at least slot - EARLY_S, so _next_slot(last) is the following one.
        last, now = self._times(last_run_at)
        due_at = self._next_slot(last)
        if now + EARLY_S >= due_at:
            return schedules.schedstate(is_due=True, next=self._next_slot(now) - now)
        return schedules.schedstate(is_due=False, next=due_at - now)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Phased):
            return (self.run_every, self.phase) == (other.run_every, other.phase)
        return NotImplemented

    def __reduce__(self):
        return self.__class__, (self.seconds, self.phase, self.nowfun)

    def __repr__(self) -> str:
        return f"<freq: {self.human_seconds}, phase {self.phase:.3f} s>"


def static_entries() -> dict[str, dict]:
    host_period = settings.CELLAR_HOST_CHECK_INTERVAL
    return {
        # Reachability of every host for the status pages (ICMP, falling back to TCP or SNMP).
        "check-hosts": {
            "task": "cellar.check_hosts", "schedule": float(host_period),
            "options": {"queue": "default", "expires": host_period},
        },
        # Roll raw samples up into the 1m/15m/1h/1d tiers (collector/archive/rollup.py); late
        # samples first. A run that outlives the period makes the next one skip (advisory lock).
        "rollup": {
            "task": "cellar.rollup", "schedule": float(settings.CELLAR_ROLLUP_INTERVAL),
            "options": {"queue": "default", "expires": settings.CELLAR_ROLLUP_INTERVAL},
        },
        # Significant bursts of each day in the 1-minute tier, stored for the data inventory
        # (collector/studies/bursts.py); the day still filling is scanned again each time.
        "bursts": {
            "task": "cellar.scan_bursts", "schedule": BURST_SCAN_S,
            "options": {"queue": "default", "expires": BURST_SCAN_S},
        },
        # Delete background export files past CELLAR_EXPORT_KEEP_HOURS (collector/exports/jobs.py),
        # fail export jobs whose worker died, dispatch the owners left waiting.
        "expire-exports": {
            "task": "cellar.expire_exports", "schedule": EXPORT_EXPIRY_S,
            "options": {"queue": "default", "expires": EXPORT_EXPIRY_S},
        },
        # Bills (collector/billing/closing.py): close and freeze the periods that ended
        # CELLAR_BILL_CLOSE_DELAY_S ago, refresh each bill's estimate of its current period.
        "bills": {
            "task": "cellar.close_bills", "schedule": BILLING_S,
            "options": {"queue": "default", "expires": BILLING_S},
        },
        # Switch-to-switch links from evidence (docs/topology.md): cross-connect continuity over the
        # last polls (collector/archive/continuity.py), then the inference over every claim.
        "infer-links": {
            "task": "cellar.infer_links", "schedule": float(settings.CELLAR_TOPOLOGY_INTERVAL),
            "options": {"queue": "default", "expires": settings.CELLAR_TOPOLOGY_INTERVAL},
        },
        # Alert rules (collector/alerts/evaluate.py): every rule on every object of its scope, from
        # the archive and the inventory; bounded per rule and per run, overlapping runs skip. Its
        # notifications go out on the queue "notify" (cellar.send_notification), never here.
        "alerts": {
            "task": "cellar.evaluate_alerts", "schedule": float(settings.CELLAR_ALERTS_INTERVAL),
            "options": {"queue": "default", "expires": settings.CELLAR_ALERTS_INTERVAL},
        },
        # Drop raw, tier and poll-log chunks past their CELLAR_RETENTION_*_DAYS (drop_chunks).
        "retention": {
            "task": "cellar.retention", "schedule": 3600.0,
            "options": {"queue": "default", "expires": 3600},
        },
    }


def switch_entries() -> dict[str, dict]:
    # Imported here: beat loads this module by name before Django's app registry is ready.
    from collector.inventory.models import Switch

    entries: dict[str, dict] = {}
    discovery = settings.CELLAR_DISCOVERY_INTERVAL
    for switch in Switch.objects.filter(enabled=True).only("id", "poll_interval_s", "poller_group"):
        period = switch.poll_interval_s
        # Poll counters at the switch's own interval and phase, on its poller group's queue.
        entries[f"poll-switch-{switch.id}"] = {
            "task": "cellar.poll_switch", "schedule": Phased(period, phase_offset(switch.id, period)),
            "args": (switch.id,), "options": {"queue": switch.queue, "expires": period},
        }
        # Re-walk ports, VPs, VCs and cross-connects: what vanished is marked gone. Phased as
        # well: a walk costs more than a poll, and all of them at once would stall the polls.
        entries[f"discover-switch-{switch.id}"] = {
            "task": "cellar.discover_switch", "schedule": Phased(discovery, phase_offset(switch.id, discovery)),
            "args": (switch.id,), "options": {"queue": switch.queue, "expires": discovery},
        }
    return entries


class SwitchScheduler(beat.Scheduler):
    """An in-memory scheduler whose entries follow the inventory."""

    def setup_schedule(self) -> None:
        self._refreshed = 0.0
        self.refresh()

    def refresh(self) -> None:
        self._refreshed = time.monotonic()
        self._heartbeat()
        # Beat runs no tasks, so nothing else would ever drop a connection that a database
        # restart broke: the inventory would stay unreadable ("the connection is closed") until
        # beat restarted. This also applies CONN_MAX_AGE and the health check, as per request.
        close_old_connections()
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
            self.refresh()
        return min(super().tick(*args, **kwargs), REFRESH_S)
