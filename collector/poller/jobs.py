"""Network jobs: work on the network asked from the web or the CLI, run by the worker of the target's
poller group (the web never sends a packet itself: reach.py says why), its steps written as they
happen for the page and the CLI to show.

create() stores the job (typed credentials encrypted on its row, never in the task's arguments)
and sends cellar.run_network_job(id) to the group's queue; run() claims it once, does the work,
records the outcome and erases the typed credentials. At most OPEN_PER_OWNER jobs of one owner are
open at once (the limit is stated in the refusal); a job no worker took within EXPIRE_S fails with
the reason (expire(), from beat).
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from collector.inventory.models import Switch
from collector.poller import reach
from collector.poller.models import NetworkJob

log = logging.getLogger(__name__)
TASK = "cellar.run_network_job"
OPEN_PER_OWNER = 5
EXPIRE_S = 600
SECRET_FIELDS = ("community", "auth_key", "priv_key")
S = NetworkJob.Status
K = NetworkJob.Kind


class TooMany(Exception):
    """The owner has OPEN_PER_OWNER jobs open already."""


def create(kind: str, target: str, group: str, params: dict, owner_id: int | None = None,
           credentials: dict | None = None, queue: bool = True) -> NetworkJob:
    """Store the job and send it to the group's queue (unless `queue` is False: the caller runs it).
    `credentials`: typed SNMP credentials (snmp_version, community, v3_user, auth/priv protocol and
    key) kept encrypted for the worker."""
    if owner_id is not None:
        open_jobs = NetworkJob.objects.filter(owner_id=owner_id, status__in=(S.QUEUED, S.RUNNING)).count()
        if open_jobs >= OPEN_PER_OWNER:
            raise TooMany(f"you have {open_jobs} network jobs open; at most {OPEN_PER_OWNER} at once: wait for one "
                          f"to end")
    job = NetworkJob.objects.create(kind=kind, target=target[:255], poller_group=group, params=params,
                                    owner_id=owner_id, **(credentials or {}))
    if queue:
        send(job)
    return job


def send(job: NetworkJob) -> None:
    from collector.poller.tasks import run_network_job  # tasks import this module

    queue = Switch.queue_name(job.poller_group)
    transaction.on_commit(lambda: run_network_job.apply_async((job.id,), queue=queue, expires=EXPIRE_S))


def step(job_id: int, text: str, state: str = "info") -> None:
    """Append one step, at once and alone (the page reads it while the job goes on)."""
    entry = [{"at": timezone.now().isoformat(timespec="milliseconds"), "text": text[:1000], "state": state}]
    with connection.cursor() as cur:
        cur.execute("UPDATE poller_network_job SET steps = steps || %s::jsonb WHERE id = %s",
                    [json.dumps(entry), job_id])


def stepper(job_id: int, echo: Callable[[str, str], None] | None = None) -> Callable[[str, str], None]:
    def one(text: str, state: str = "info") -> None:
        step(job_id, text, state)
        if echo is not None:
            echo(text, state)
    return one


def claim(job_id: int) -> NetworkJob | None:
    """The job, now running; None when it is not waiting (run already, or expired)."""
    claimed = NetworkJob.objects.filter(pk=job_id, status=S.QUEUED).update(status=S.RUNNING, started=timezone.now())
    return NetworkJob.objects.get(pk=job_id) if claimed else None


def finish(job: NetworkJob, *, error: str = "", result: dict | None = None) -> None:
    """The outcome, and the typed credentials erased."""
    NetworkJob.objects.filter(pk=job.pk).update(
        status=S.FAILED if error else S.DONE, error=error[:4000], result=result or {}, finished=timezone.now(),
        **dict.fromkeys(SECRET_FIELDS, ""))


def run(job_id: int, echo: Callable[[str, str], None] | None = None) -> str:
    """Do the job (on the worker of its group, or in the CLI that made it); the outcome is on its
    row; `echo` also gets each step."""
    from collector.poller import jobkinds

    job = claim(job_id)
    if job is None:
        return "not waiting"
    try:
        reach.check(job.poller_group, f"a job for {job.target}")
        result = jobkinds.RUN[job.kind](job, stepper(job.id, echo))
    except jobkinds.EXPECTED as exc:
        stepper(job.id, echo)(str(exc), "fail")
        finish(job, error=str(exc))
        return "failed"
    except Exception as exc:           # reported on the page; the worker goes on
        log.exception("network job %s (%s) failed", job.id, job.kind)
        finish(job, error=f"{exc.__class__.__name__}: {exc}")
        return "failed"
    finish(job, result=result)
    return "done"


def expire(now=None) -> int:
    """Fail the jobs no worker took within EXPIRE_S (their task expired in the queue)."""
    now = now or timezone.now()
    stale = NetworkJob.objects.filter(status=S.QUEUED, created__lt=now - timedelta(seconds=EXPIRE_S))
    count = 0
    for job in stale:
        count += NetworkJob.objects.filter(pk=job.pk, status=S.QUEUED).update(
            status=S.FAILED, finished=now, **dict.fromkeys(SECRET_FIELDS, ""),
            error=f"no worker of poller group {job.poller_group!r} (queue {Switch.queue_name(job.poller_group)}) "
                  f"took this job within {EXPIRE_S} s: is one running? (make status)")
    return count


def follow(job_id: int, show: Callable[[dict], None], timeout: float) -> NetworkJob:
    """Show the job's steps as they come until it ends or `timeout` seconds pass (the CLI)."""
    shown = 0
    deadline = time.monotonic() + timeout
    while True:
        job = NetworkJob.objects.get(pk=job_id)
        for entry in job.steps[shown:]:
            show(entry)
        shown = len(job.steps)
        if job.done or time.monotonic() > deadline:
            return job
        time.sleep(0.3)
