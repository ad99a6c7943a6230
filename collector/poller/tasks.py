"""The poller's thin tasks: polls, discoveries, host checks, link inference and network jobs. They
take ids, never ORM objects, and delegate to the modules that do the work; beat sends the periodic
ones (collector/poller/schedule.py). Every app keeps its tasks in its own tasks.py, found by the
worker's autodiscovery.
"""
from __future__ import annotations

import logging
import time

from celery import shared_task
from django.conf import settings

from collector.inventory.models import Host, Switch
from collector.poller import actions, hostcheck, jobs, pollers, schedule

log = logging.getLogger(__name__)


@shared_task(name="cellar.poll_switch")
def poll_switch(switch_id: int) -> str:
    """Poll one switch now, unless a poll of it is still running (never twice at once)."""
    return actions.poll(int(switch_id))


@shared_task(name="cellar.poll_switches", bind=True)
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


@shared_task(name="cellar.discover_switches")
def discover_switches(switch_ids: list[int]) -> dict[str, int]:
    """Rediscover the switches of one discovery slot; one link inference after them, if needed."""
    return actions.discover_many([int(i) for i in switch_ids])


@shared_task(name="cellar.discover_switch")
def discover_switch(switch_id: int) -> str:
    """Rediscover one switch; a failure is one log line (the next scheduled run tries again)."""
    try:
        return actions.discover(int(switch_id)).summary()
    except actions.DISCOVERY_ERRORS as exc:
        log.warning("discovery of switch %s failed: %s: %s", switch_id, exc.__class__.__name__, exc)
        return f"failed: {exc}"


@shared_task(name="cellar.check_hosts")
def check_hosts() -> int:
    """Fan out one check per enabled host, on its poller group's queue (whose worker reaches it)."""
    hosts = list(Host.objects.filter(enabled=True).values_list("id", "poller_group"))
    for host_id, group in hosts:
        check_host.apply_async((host_id,), queue=Switch.queue_name(group),
                               expires=settings.CELLAR_HOST_CHECK_INTERVAL)
    return len(hosts)


@shared_task(name="cellar.check_host")
def check_host(host_id: int) -> bool:
    return hostcheck.check_and_record(int(host_id)).reachable


@shared_task(name="cellar.run_network_job")
def run_network_job(job_id: int) -> str:
    """A network job asked from the web or the CLI (check now, add a switch, sweep): on the queue of
    its poller group; its steps and outcome are on its row (collector/poller/jobs.py)."""
    return jobs.run(int(job_id))


@shared_task(name="cellar.expire_network_jobs")
def expire_network_jobs() -> int:
    """Fail the network jobs no worker took (their group's worker is not running)."""
    return jobs.expire()


@shared_task(name="cellar.infer_links")
def infer_links() -> str:
    """Cross-connect continuity over the last polls, then link inference over every claim."""
    return actions.infer_links().summary()
