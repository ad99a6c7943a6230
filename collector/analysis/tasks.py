"""The analysis tasks (found by the worker's autodiscovery). Thin: they take a job id; the work is
collector/analysis/run.py and jobs.py."""
from __future__ import annotations

from collector.analysis import jobs, run
from collector.poller.celery_app import app


@app.task(name="cellar.run_analysis")
def run_analysis(job_id: int) -> str:
    """Compute one analysis job (queue "exports": never in the way of a poll)."""
    return run.execute(int(job_id))


@app.task(name="cellar.expire_analyses")
def expire_analyses() -> dict:
    """Delete analyses past jobs.KEEP; fail jobs whose worker died."""
    return jobs.expire()
