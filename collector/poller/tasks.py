"""Thin Celery tasks: they take ids, never ORM objects, and delegate to the modules that do the
work. Every task of Cellar is here (the worker registers this module; schedule.py sends them),
but the background exports' (collector/exports/tasks.py, also in celery_app's include list).
"""
from __future__ import annotations

import logging
import time

from django.conf import settings

from collector.archive import rollup as archive_rollup
from collector.inventory.models import Host
from collector.poller import actions, hostcheck, pollers, schedule
from collector.poller.celery_app import app

log = logging.getLogger(__name__)


@app.task(name="cellar.poll_switch")
def poll_switch(switch_id: int) -> str:
    """Poll one switch now, unless a poll of it is still running (never twice at once)."""
    return actions.poll(int(switch_id))


@app.task(name="cellar.poll_switches", bind=True)
def poll_switches(self, period: float, slot_s: float, switch_ids: list[int]) -> dict[str, int]:
    """Poll the switches of one beat slot (schedule.switch_entries), each at its own phase of
    `period`, in one event loop; the per-switch lock still keeps every switch to one poll at once.
    The log line names the switches: the benchmark and an operator can tell who was polled when;
    the worker notes itself as a poller of the queue (the dashboard's Pollers table)."""
    now = time.time()
    queue = (self.request.delivery_info or {}).get("routing_key")
    if queue:
        pollers.record_seen(queue, self.request.hostname or "?")
    due = {int(i): schedule.due_time(int(i), float(period), now, float(slot_s)) for i in switch_ids}
    log.info("poll slot of %d switches (%g s): %s", len(due), period, ",".join(map(str, due)))
    return actions.poll_batch(due)


@app.task(name="cellar.discover_switches")
def discover_switches(switch_ids: list[int]) -> dict[str, int]:
    """Rediscover the switches of one discovery slot; one link inference after them, if needed."""
    return actions.discover_many([int(i) for i in switch_ids])


@app.task(name="cellar.discover_switch")
def discover_switch(switch_id: int) -> str:
    """Rediscover one switch; a failure is one log line (the next scheduled run tries again)."""
    try:
        return actions.discover(int(switch_id)).summary()
    except actions.DISCOVERY_ERRORS as exc:
        log.warning("discovery of switch %s failed: %s: %s", switch_id, exc.__class__.__name__, exc)
        return f"failed: {exc}"


@app.task(name="cellar.check_hosts")
def check_hosts() -> int:
    """Fan out one check per enabled host."""
    ids = list(Host.objects.filter(enabled=True).values_list("id", flat=True))
    for host_id in ids:
        check_host.apply_async((host_id,), expires=settings.CELLAR_HOST_CHECK_INTERVAL)
    return len(ids)


@app.task(name="cellar.check_host")
def check_host(host_id: int) -> bool:
    return hostcheck.check_and_record(int(host_id)).reachable


@app.task(name="cellar.rollup")
def rollup() -> dict:
    """Roll late samples and new ones up into the 1m/15m/1h/1d tiers, within one interval.
    Rollup and retention share a PostgreSQL advisory lock: an overlapping run skips."""
    budget = max(5.0, settings.CELLAR_ROLLUP_INTERVAL * 0.8)
    return archive_rollup.run(budget_s=budget).summary()


@app.task(name="cellar.scan_bursts")
def scan_bursts() -> dict:
    """Find and store the significant bursts of the days the 1-minute tier holds (bounded run)."""
    # Imported here: it brings numpy, which the poll path never needs; a worker that polls only
    # (a poller group's) then starts without it.
    from collector.studies import bursts as studies_bursts

    return studies_bursts.run(budget_s=0.8 * schedule.BURST_SCAN_S)


@app.task(name="cellar.close_bills")
def close_bills() -> dict:
    """Close (freeze) the billing periods that ended CELLAR_BILL_CLOSE_DELAY_S ago and refresh the
    estimate of every bill's current period, from the raw samples (bounded run)."""
    # Imported here, as the burst scan: numpy is not needed by a worker that only polls.
    from collector.billing import closing

    return closing.run(budget_s=0.8 * schedule.BILLING_S)


@app.task(name="cellar.infer_links")
def infer_links() -> str:
    """Cross-connect continuity over the last polls, then link inference over every claim."""
    return actions.infer_links().summary()


@app.task(name="cellar.retention")
def retention() -> dict:
    """Drop raw, tier and poll-log chunks older than their configured retention."""
    return archive_rollup.retention()
