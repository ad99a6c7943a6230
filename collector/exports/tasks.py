"""Thin tasks of background exports, found by the worker's autodiscovery.
They take ids only; the work is in writer.py and jobs.py."""
from __future__ import annotations

from collector.exports import jobs, writer
from collector.poller.celery_app import app


@app.task(name="cellar.run_export")
def run_export(job_id: int) -> str:
    """Write one export job's file (queue "exports": a long COPY never holds up a poll)."""
    return writer.run(int(job_id))


@app.task(name="cellar.expire_exports")
def expire_exports() -> dict:
    """Delete export files past CELLAR_EXPORT_KEEP_HOURS; fail jobs whose worker died."""
    return jobs.expire()
