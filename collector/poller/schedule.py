"""The beat schedule, in one place.

Static entries are named and commented below. Switch entries (one poll entry per queue, interval
and slot of SLOT_S seconds, one discovery entry per queue and slot of the discovery interval,
each carrying its switches' ids) are generated from the inventory by SwitchScheduler and
refreshed every REFRESH_S seconds, so adding a switch or changing its poll interval takes
effect without restarting beat. Every entry carries an expiry: a task that waited longer than
its period is dropped by the worker instead of piling up behind newer ones.

Each switch runs at its own phase of its period (phase_offset): thousands of switches sharing
one interval would otherwise all be polled in the same second, and the last of their polls
would start seconds late behind the others. A slot's entry is sent at the slot's start
(Phased) and the worker starts each poll at its switch's phase (runner.poll_batch).
"""
from __future__ import annotations

import logging
import math
import time
from datetime import timedelta

from celery import beat, schedules
from django.conf import settings
from django.db import DatabaseError, close_old_connections

from collector.billing.tasks import BILLING_S
from collector.bursts.tasks import BURST_SCAN_S
from collector.poller.celery_app import DEFAULT_QUEUE

log = logging.getLogger(__name__)
REFRESH_S = 5.0
EXPORT_EXPIRY_S = 600.0   # export files live CELLAR_EXPORT_KEEP_HOURS, give or take 10 minutes
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
            "options": {"queue": DEFAULT_QUEUE, "expires": host_period},
        },
        # Roll raw samples up into the 1m/15m/1h/1d tiers (collector/archive/rollup.py); late
        # samples first. A run that outlives the period makes the next one skip (advisory lock).
        "rollup": {
            "task": "cellar.rollup", "schedule": float(settings.CELLAR_ROLLUP_INTERVAL),
            "options": {"queue": DEFAULT_QUEUE, "expires": settings.CELLAR_ROLLUP_INTERVAL},
        },
        # Settle a switch's day of raw samples into compressed blocks once past the late-data
        # window (collector/archive/settle.py): bounded runs, one switch-day per transaction.
        "settle": {
            "task": "cellar.settle", "schedule": float(settings.CELLAR_SETTLE_INTERVAL),
            "options": {"queue": DEFAULT_QUEUE, "expires": settings.CELLAR_SETTLE_INTERVAL},
        },
        # Significant bursts of each day in the 1-minute tier, stored for the data inventory
        # (collector/bursts/scan.py); the day still filling is scanned again each time.
        "bursts": {
            "task": "cellar.scan_bursts", "schedule": BURST_SCAN_S,
            "options": {"queue": DEFAULT_QUEUE, "expires": BURST_SCAN_S},
        },
        # Delete background export files past CELLAR_EXPORT_KEEP_HOURS (collector/exports/jobs.py),
        # fail export jobs whose worker died, dispatch the owners left waiting.
        "expire-exports": {
            "task": "cellar.expire_exports", "schedule": EXPORT_EXPIRY_S,
            "options": {"queue": DEFAULT_QUEUE, "expires": EXPORT_EXPIRY_S},
        },
        # Delete analyses past their keeping time, fail the ones whose worker died (collector/analysis/jobs.py).
        "expire-analyses": {
            "task": "cellar.expire_analyses", "schedule": EXPORT_EXPIRY_S,
            "options": {"queue": DEFAULT_QUEUE, "expires": EXPORT_EXPIRY_S},
        },
        # Bills (collector/billing/closing.py): close and freeze the periods that ended
        # CELLAR_BILL_CLOSE_DELAY_S ago, refresh each bill's estimate of its current period.
        "bills": {
            "task": "cellar.close_bills", "schedule": BILLING_S,
            "options": {"queue": DEFAULT_QUEUE, "expires": BILLING_S},
        },
        # Switch-to-switch links from evidence (docs/topology.md): cross-connect continuity over the
        # last polls (collector/archive/continuity.py), then the inference over every claim.
        "infer-links": {
            "task": "cellar.infer_links", "schedule": float(settings.CELLAR_TOPOLOGY_INTERVAL),
            "options": {"queue": DEFAULT_QUEUE, "expires": settings.CELLAR_TOPOLOGY_INTERVAL},
        },
        # Alert rules (collector/alerts/evaluate.py): every rule on every object of its scope, from
        # the archive and the inventory; bounded per rule and per run, overlapping runs skip. Its
        # notifications go out on the queue "notify" (cellar.send_notification), never here.
        "alerts": {
            "task": "cellar.evaluate_alerts", "schedule": float(settings.CELLAR_ALERTS_INTERVAL),
            "options": {"queue": DEFAULT_QUEUE, "expires": settings.CELLAR_ALERTS_INTERVAL},
        },
        # Fail the network jobs (check now, add a switch, sweep) that no worker of their group took.
        "expire-network-jobs": {
            "task": "cellar.expire_network_jobs", "schedule": 300.0,
            "options": {"queue": DEFAULT_QUEUE, "expires": 300},
        },
        # Drop raw, tier and poll-log chunks past their CELLAR_RETENTION_*_DAYS (drop_chunks).
        "retention": {
            "task": "cellar.retention", "schedule": 3600.0,
            "options": {"queue": DEFAULT_QUEUE, "expires": 3600},
        },
    }


SLOT_S = 1.0            # polls of one queue and interval whose phases fall in one such slot: one message
DISCOVERY_SLOTS = 60   # discovery slots per discovery interval (a minute each at the default hour)


def slot_of(switch_id: int, period: float, slots: int) -> int:
    """The slot (0 .. slots-1) of the period holding the switch's phase."""
    return min(slots - 1, int(phase_offset(switch_id, period) / period * slots))


def poll_slots(period: float) -> int:
    return max(1, math.ceil(period / SLOT_S))


def due_time(switch_id: int, period: float, now: float, slot_s: float) -> float:
    """The switch's own slot (epoch + phase + k * period) of the batch sent at about `now`: the
    one nearest the middle of the batch's slot [now, now + slot_s) (its switches' phases lie in
    it; beat sends EARLY_S ahead, a busy worker starts it later)."""
    phase = phase_offset(switch_id, period)
    return round((now + slot_s / 2 - phase) / period) * period + phase


def switch_entries() -> dict[str, dict]:
    """One poll entry per (queue, interval, slot of SLOT_S) and one discovery entry per (queue,
    interval, slot of interval / DISCOVERY_SLOTS), each sending the ids of its switches.

    Beat once had an entry per switch (and per discovery): at 2,000 switches its every-5 s
    refresh rebuilt 4,000 entries and it sent 140 messages a second (docs/benchmarks.md, figure
    6). Now 100,000 ports are ~15 poll entries per queue and interval. The worker keeps each
    switch's phase within the slot (runner.poll_batch waits for it), so the load is as smooth
    as before and the lateness is still measured against each switch's own slot."""
    # Imported here: beat loads this module by name before Django's app registry is ready.
    from collector.inventory.models import Switch

    polls: dict[tuple[str, int, int], list[int]] = {}
    discoveries: dict[tuple[str, int], list[int]] = {}
    discovery = settings.CELLAR_DISCOVERY_INTERVAL
    for sid, period, group in Switch.objects.filter(enabled=True).values_list("id", "poll_interval_s",
                                                                              "poller_group"):
        queue = Switch.queue_name(group)
        polls.setdefault((queue, period, slot_of(sid, period, poll_slots(period))), []).append(sid)
        discoveries.setdefault((queue, slot_of(sid, discovery, DISCOVERY_SLOTS)), []).append(sid)
    entries: dict[str, dict] = {}
    for (queue, period, slot), ids in sorted(polls.items()):
        # Poll counters at the switches' own interval, on their poller group's queue.
        slots = poll_slots(period)
        ids.sort(key=lambda i: phase_offset(i, period))
        entries[f"poll-{queue}-{period}s-slot-{slot}"] = {
            "task": "cellar.poll_switches", "schedule": Phased(period, slot * period / slots),
            "args": (period, period / slots, ids), "options": {"queue": queue, "expires": period},
        }
    for (queue, slot), ids in sorted(discoveries.items()):
        # Re-walk ports, VPs, VCs and cross-connects: what vanished is marked gone. Spread as
        # well: a walk costs more than a poll, and all of them at once would stall the polls.
        entries[f"discover-{queue}-slot-{slot}"] = {
            "task": "cellar.discover_switches", "schedule": Phased(discovery, slot * discovery / DISCOVERY_SLOTS),
            "args": (ids,), "options": {"queue": queue, "expires": discovery},
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
