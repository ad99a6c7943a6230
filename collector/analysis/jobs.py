"""Analysis jobs: create (the web's only way in), claim, progress, finish, reuse, expire.

An analysis reads at most a budget of samples per series (numerics.selfsim.MAX_SAMPLES) but its
estimators, spectrum and correlations still cost seconds of CPU: it runs on the worker (queue
"exports", the web's background work, never the polls' queue), and the page follows its
progress. The task is `cellar.run_analysis`, defined by the page app that knows how to read the
selection (collector/analysis/tasks.py, registered through celery_app's include list); this module
sends it by name so that the collector never imports the web floor.

Owners and visibility are those of export jobs (jobs.session_hash, jobs.visible_to).
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import connections, transaction
from django.utils import timezone

from collector.analysis.models import AnalysisJob
from collector.audit.owners import session_hash
from collector.poller.celery_app import BACKGROUND_QUEUE

log = logging.getLogger(__name__)
KEEP = timedelta(days=30)           # results are small (numbers, no points): kept a month
LOST_AFTER = timedelta(minutes=15)  # a running job older than this lost its worker
OPEN_PER_OWNER = 3                  # queued or running analyses one user (or session) may have
S = AnalysisJob.Status


def create(*, owner_id: int | None, session_key: str | None, selection: str) -> AnalysisJob:
    """A queued job for this selection; its task leaves after COMMIT, so the worker finds it."""
    if owner_id is None and not session_key:
        raise ValueError("an analysis job needs an owner: a user or an anonymous session")
    if open_count(owner_id, session_key) >= OPEN_PER_OWNER:
        raise TooMany(f"you have {OPEN_PER_OWNER} analyses queued or running, the most one user may have: "
                      "wait for one to finish (their pages show their progress)")
    job = AnalysisJob.objects.create(owner_id=owner_id, session_hash="" if owner_id else session_hash(session_key),
                                     selection=selection)
    transaction.on_commit(lambda: _send(job.id))
    return job


class TooMany(Exception):
    """The owner has OPEN_PER_OWNER analyses queued or running; str() says so."""


def open_count(owner_id: int | None, session_key: str | None) -> int:
    mine = (AnalysisJob.objects.filter(owner_id=owner_id) if owner_id is not None else
            AnalysisJob.objects.filter(owner__isnull=True, session_hash=session_hash(session_key)))
    return mine.filter(status__in=(S.QUEUED, S.RUNNING)).count()


def _send(job_id: int) -> None:
    from collector.analysis.tasks import run_analysis  # the tasks module imports this one

    run_analysis.apply_async((job_id,), queue=BACKGROUND_QUEUE)


def reusable(selection: str, settled_before: datetime) -> AnalysisJob | None:
    """A finished job of exactly this selection made after `settled_before` (the time after
    which the window's data can no longer change), so asking again costs nothing."""
    return (AnalysisJob.objects.filter(selection=selection, status=S.DONE, created__gte=settled_before)
            .order_by("-id").first())


def claim(job_id: int) -> AnalysisJob | None:
    """The job, now running; None when it is not queued (a duplicate message, or done)."""
    n = AnalysisJob.objects.filter(pk=job_id, status=S.QUEUED).update(status=S.RUNNING, started=timezone.now(),
                                                                       fraction=0.0)
    return AnalysisJob.objects.get(pk=job_id) if n else None


class Progress:
    """The worker's progress, written on a connection of its own (autocommit) so the page sees
    it while the task's own connection is busy; at most one UPDATE per step."""

    def __init__(self, job_id: int):
        self.job_id = job_id
        self.conn = connections.create_connection("default")

    def __call__(self, fraction: float, step: str) -> None:
        with self.conn.cursor() as cur:
            cur.execute("UPDATE exports_analysis_job SET fraction = %s, step = %s WHERE id = %s",
                        [max(0.0, min(0.99, float(fraction))), step[:200], self.job_id])

    def close(self) -> None:
        self.conn.close()


def finish(job_id: int, result: dict) -> None:
    AnalysisJob.objects.filter(pk=job_id).update(status=S.DONE, fraction=1.0, step="done", result=result,
                                                 finished=timezone.now())


def fail(job_id: int, message: str) -> None:
    log.warning("analysis job %s failed: %s", job_id, message)
    AnalysisJob.objects.filter(pk=job_id).update(status=S.FAILED, error=message[:2000], finished=timezone.now())


def expire() -> dict:
    """Delete jobs finished more than KEEP ago; fail jobs whose worker died. Idempotent."""
    now = timezone.now()
    deleted, _ = AnalysisJob.objects.filter(finished__lt=now - KEEP).delete()
    lost = AnalysisJob.objects.filter(status=S.RUNNING, started__lt=now - LOST_AFTER).update(
        status=S.FAILED, finished=now, error="the worker stopped before finishing (it was restarted?)")
    return {"analyses_deleted": deleted, "analyses_lost": lost}
