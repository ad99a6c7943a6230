"""Export jobs: create (the web's only way in), hand to the worker at most M at a time per user,
decide who may see one, and expire old files.

Owner: the logged-in user, or, for an anonymous request (anonymous read can be turned on), the
session: its key's SHA-256 is stored, never the key itself. Only the owner or a staff user sees a
job; the page app calls collector/audit/owners.py `visible_to`.

Per-user concurrency: `dispatch` sends a task for the owner's oldest waiting jobs while fewer than
CELLAR_EXPORT_JOBS_PER_USER are sent or running (under a per-owner advisory lock); a job that ends
dispatches the next. The task itself (tasks.run_export -> writer.run) claims its job once.
"""
from __future__ import annotations

import logging
import os
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from collector.archive.export import EXPORT_TIMEOUT_MS
from collector.audit.owners import session_hash
from collector.exports.models import ExportJob
from collector.poller.celery_app import BACKGROUND_QUEUE

log = logging.getLogger(__name__)
_LOCK_NS = 0x63_65_78       # advisory lock namespace of export dispatch ("cex")
S = ExportJob.Status
SILENT = timedelta(minutes=10)


def encode_params(params: dict) -> dict:
    """JSON of the COPY's parameters; datetimes tagged so they come back as datetimes."""
    def one(v):
        if isinstance(v, datetime):
            return {"$t": v.isoformat()}
        if isinstance(v, list | tuple):
            return [one(x) for x in v]
        return v
    return {k: one(v) for k, v in params.items()}


def decode_params(stored: dict) -> dict:
    def one(v):
        if isinstance(v, dict) and "$t" in v:
            return datetime.fromisoformat(v["$t"])
        if isinstance(v, list):
            return [one(x) for x in v]
        return v
    return {k: one(v) for k, v in stored.items()}


def create(*, owner_id: int | None, session_key: str | None, selection: str, filename: str, header: bytes = b"",
           sql: str = "", params: dict | None = None, expected_rows: int, kind: str = ExportJob.Kind.PLOT,
           spec: dict | None = None) -> ExportJob:
    """A queued job for this selection, handed to the worker when its owner has a free slot: a plot's
    CSV (header, sql, params: its COPY) or a bulk export (kind bulk, its spec: bulkjobs.py)."""
    if owner_id is None and not session_key:
        raise ValueError("an export job needs an owner: a user or an anonymous session")
    job = ExportJob.objects.create(
        owner_id=owner_id, session_hash="" if owner_id else session_hash(session_key), selection=selection,
        filename=filename, header=header.decode(), copy_sql=sql, copy_params=encode_params(params or {}),
        expected_rows=max(1, expected_rows), kind=kind, spec=spec or {})
    dispatch(job)
    return job


def _same_owner(job: ExportJob) -> Q:
    if job.owner_id is not None:
        return Q(owner_id=job.owner_id)
    return Q(owner_id__isnull=True, session_hash=job.session_hash)


def dispatch(job: ExportJob) -> list[int]:
    """Send the tasks of `job`'s owner's oldest waiting jobs while the owner has free slots;
    the ids sent. The messages leave after COMMIT, so a worker always finds its job."""
    owner_key = f"user:{job.owner_id}" if job.owner_id is not None else f"session:{job.session_hash}"
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [_LOCK_NS, owner_key])
        mine = ExportJob.objects.filter(_same_owner(job))
        busy = mine.filter(Q(status=S.RUNNING) | Q(status=S.QUEUED, sent_at__isnull=False)).count()
        free = settings.CELLAR_EXPORT_JOBS_PER_USER - busy
        ids = list(mine.filter(status=S.QUEUED, sent_at__isnull=True).order_by("id")
                   .values_list("id", flat=True)[:max(0, free)])
        if ids:
            ExportJob.objects.filter(id__in=ids).update(sent_at=timezone.now())
            transaction.on_commit(lambda: _send(ids))
    return ids


def _send(ids: list[int]) -> None:
    # Imported here: the Celery app is the poller's; only sending needs it.
    from collector.exports.tasks import run_export

    for job_id in ids:
        run_export.apply_async((job_id,), queue=BACKGROUND_QUEUE)


def position(job: ExportJob) -> int:
    """1 + the queued jobs (anyone's) created before this one: its place in the line."""
    return 1 + ExportJob.objects.filter(status=S.QUEUED, id__lt=job.id).count()


def export_dir() -> Path:
    d = Path(settings.CELLAR_EXPORT_DIR)
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    return d


def path_for(job_id: int, suffix: str = ".csv") -> Path:
    return export_dir() / f"export-{int(job_id)}{suffix}"


def expire() -> dict:
    """Delete the files of jobs finished more than CELLAR_EXPORT_KEEP_HOURS ago (status expired),
    stray files nobody references, and fail jobs whose worker died (running past the export's
    own timeout); then dispatch the owners left waiting. Idempotent."""
    now = timezone.now()
    keep = timedelta(hours=settings.CELLAR_EXPORT_KEEP_HOURS)
    expired = 0
    for job in ExportJob.objects.filter(status=S.DONE, finished__lt=now - keep):
        if job.path:
            Path(job.path).unlink(missing_ok=True)
        ExportJob.objects.filter(pk=job.pk).update(status=S.EXPIRED, path="")
        expired += 1
    # A plot's CSV is one COPY (at most its timeout); a bulk export is many statements that report
    # progress at least every batch: lost once it has been quiet for SILENT.
    lost_after = timedelta(milliseconds=EXPORT_TIMEOUT_MS) + SILENT
    quiet = Q(progress_at__isnull=True) | Q(progress_at__lt=now - SILENT)
    lost = ExportJob.objects.filter(quiet, status=S.RUNNING, started__lt=now - lost_after).update(
        status=S.FAILED, finished=now, error="the worker stopped before finishing (it was restarted?)")
    live = {os.path.basename(p) for p in ExportJob.objects.exclude(path="").values_list("path", flat=True)}
    stray = 0
    for f in export_dir().iterdir():
        if f.name not in live and now.timestamp() - f.stat().st_mtime > keep.total_seconds():
            f.unlink(missing_ok=True)
            stray += 1
    waiting = ExportJob.objects.filter(status=S.QUEUED, sent_at__isnull=True)
    for job in {(j.owner_id, j.session_hash): j for j in waiting}.values():
        dispatch(job)
    return {"expired": expired, "lost": lost, "stray_files": stray}
