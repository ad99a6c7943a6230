"""An analysis asked through the API runs on a real worker (queue "exports", task sent by name),
reports its progress while it runs, and stores a result the page and the CSV read; a duplicate
message for the same job does not run it twice."""
from __future__ import annotations

import time

import pytest
import redis
from celery import Celery
from django.test import Client

from collector.analysis.models import AnalysisJob
from tests.support import analysis_archive as A
from tests.support.celery_procs import CeleryProcess, wait_for
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(240)]


def test_an_analysis_runs_on_the_worker_with_progress(tmp_path, settings):
    data = A.build("worker-lrd", A.rates_selfsim(0.7, seed=11))
    redis.Redis.from_url(settings.REDIS_URL).delete("exports")     # messages left by other test databases
    web = Client()
    web.force_login(make_user("ana", "viewer"))                     # reading is enough to analyse
    worker = CeleryProcess("worker", tmp_path, queues="exports", REDIS_URL=settings.REDIS_URL)
    try:
        worker.wait_for_log("ready.")
        assert "cellar.run_analysis" in worker.log_path.read_text()
        r = web.post(f"/analysis/api/jobs?s={data['series'].id}&start={data['t0']:%Y-%m-%dT%H:%M:%SZ}"
                     f"&end={data['end']:%Y-%m-%dT%H:%M:%SZ}")
        assert r.status_code == 202, r.content
        job_id = r.json()["id"]
        seen: set[tuple[str, str]] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            body = web.get(f"/analysis/api/jobs/{job_id}?figures=0").json()
            if body["status"] == "running":
                seen.add((body["step"], str(body["percent"])))
            if body["status"] in ("done", "failed"):
                break
            time.sleep(0.05)
        assert body["status"] == "done", (body.get("error"), worker.tail())
        assert len(seen) >= 2, seen                     # the page saw it move through its steps
        assert all(0 <= float(p) < 100 for _, p in seen)
        finished = AnalysisJob.objects.get(pk=job_id).finished
        # A duplicate message (a redelivery) finds the job claimed and leaves it alone.
        Celery("producer", broker=settings.REDIS_URL).send_task("cellar.run_analysis", (job_id,), queue="exports")
        assert wait_for(lambda: "not queued: skipped" in worker.log_path.read_text(), 30), worker.tail()
        assert AnalysisJob.objects.get(pk=job_id).finished == finished
        h = {e["method"]: e["h"] for e in body["result"]["hurst"]}
        assert all(0.7 - (0.1 if k.startswith("rescaled range") else 0.05) < v < 0.75 for k, v in h.items()), h
        page = web.get(f"/analysis/jobs/{job_id}/").content.decode()
        assert "Stationarity" in page and "local Whittle" in page
        assert web.get(f"/analysis/jobs/{job_id}/results.csv").status_code == 200
    finally:
        worker.kill()
