"""The worker's side of an export job: run its COPY (a plot's CSV) or its bulk export
(collector/exports/bulkjobs.py) into a file, with progress.

The COPY is the one a direct download streams (collector/archive/export.stream_copy, the same
SQL and parameters, stored by the web), under the export's long statement timeout. The file is
written as <name>.part (mode 0600) and renamed when complete, so a file that exists is whole.
Progress (rows, bytes) is written at most every PROGRESS_EVERY_S, at a 64 KiB chunk boundary,
on a second connection: the task's own is inside the COPY's transaction, whose writes nobody
would see before it ends.
"""
from __future__ import annotations

import logging
import os
import time

from django.db import connections
from django.utils import timezone

from collector.archive.export import stream_copy
from collector.exports import bulkjobs, jobs
from collector.exports.models import ExportJob

log = logging.getLogger(__name__)
PROGRESS_EVERY_S = 0.5
S = ExportJob.Status


class Progress:
    """UPDATEs of one job's counters on a connection of its own (autocommit)."""

    def __init__(self, job_id: int):
        self.job_id = job_id
        self.conn = connections.create_connection("default")
        self.last = 0.0

    def write(self, rows: int, nbytes: int, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        with self.conn.cursor() as cur:
            cur.execute("UPDATE exports_job SET rows_written = %s, bytes_written = %s, progress_at = now() "
                        "WHERE id = %s", [rows, nbytes, self.job_id])

    def close(self) -> None:
        self.conn.close()


def _copy(job: ExportJob, out, progress: Progress) -> tuple[int, int]:
    """A plot's CSV: its header, then its COPY's chunks."""
    header = job.header.encode()
    out.write(header)
    rows, nbytes = 0, len(header)
    for chunk in stream_copy(job.copy_sql, jobs.decode_params(job.copy_params)):
        out.write(chunk)
        rows += chunk.count(b"\n")
        nbytes += len(chunk)
        progress.write(rows, nbytes)
    return rows, nbytes


def run(job_id: int) -> str:
    """Write job `job_id`'s file. Runs once: only a queued job is claimed (a duplicate message,
    or a job already done, failed or expired, is left alone)."""
    claimed = ExportJob.objects.filter(pk=job_id, status=S.QUEUED).update(status=S.RUNNING, started=timezone.now())
    if not claimed:
        return "not queued: skipped"
    job = ExportJob.objects.get(pk=job_id)
    target = jobs.path_for(job.id, bulkjobs.suffix(job))
    part = target.with_name(target.name + ".part")
    rows = nbytes = 0
    progress = Progress(job.id)
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            if job.kind == ExportJob.Kind.BULK:
                rows, nbytes = bulkjobs.write(job, out, progress.write)
            else:
                rows, nbytes = _copy(job, out, progress)
        os.replace(part, target)
        ExportJob.objects.filter(pk=job.id).update(status=S.DONE, rows_written=rows, bytes_written=nbytes,
                                                   path=str(target), finished=timezone.now())
        return f"done: {rows} rows, {nbytes} bytes"
    except Exception as exc:
        part.unlink(missing_ok=True)
        # The message of a database error or a full disk; never the SQL's parameters.
        text = f"{exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:500]
        log.warning("export job %s failed: %s", job.id, text)
        ExportJob.objects.filter(pk=job.id).update(status=S.FAILED, rows_written=rows, bytes_written=nbytes,
                                                   error=text, finished=timezone.now())
        return f"failed: {text}"
    finally:
        progress.close()
        jobs.dispatch(job)
