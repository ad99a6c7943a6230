"""The analysis task, registered through collector/poller/celery_app.py's include list and sent
by name from collector/exports/analyses.py (the collector never imports the web floor). Thin:
it takes a job id; the work is webapp/analysis/run.py."""
from __future__ import annotations

from collector.poller.celery_app import app
from webapp.analysis import run


@app.task(name="cellar.run_analysis")
def run_analysis(job_id: int) -> str:
    """Compute one analysis job (queue "exports": never in the way of a poll)."""
    return run.execute(int(job_id))
