"""A big raw CSV becomes a background export that a real worker writes (queue "exports"), with
progress, while the direct-download cap answers 429 and a poll of an agent still runs on time.
The file is the direct download's CSV byte for byte; another user gets 403."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
import redis
from celery import Celery
from django.core.management import call_command
from django.db import connection
from django.test import Client

from collector.archive import rollup
from collector.archive.models import PollLog
from collector.exports.models import ExportJob
from collector.inventory.models import Switch
from tests.support import traffic_factory as f
from tests.support.agents import NetSnmpAgent
from tests.support.celery_procs import CeleryProcess, wait_for
from tests.support.users import make_user
from webapp.traffic import streamslots

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(300)]

DAYS, SERIES = 30, 10       # 172,800 rows of 10 series: tens of MB, seconds of COPY


def big_archive():
    end = rollup.db_now().replace(second=0, microsecond=0) - timedelta(minutes=5)
    start = end - timedelta(days=DAYS)
    sw = f.switch("big-1")
    members = []
    for i in range(SERIES // 2):
        p = f.port(sw, f"P{i}")
        members += [f.series(p, "in"), f.series(p, "out")]
    f.generate(sw, f.layout(sw, members), start, end, 15, [1000 * (i + 1) for i in range(SERIES)])
    return members, start, end


def test_a_big_export_runs_on_the_worker_while_polls_stay_on_time(tmp_path, settings):
    members, start, end = big_archive()
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 100_000
    settings.CELLAR_CSV_STREAMS_MAX = 1
    slots = redis.Redis.from_url(settings.REDIS_URL)
    for k in slots.scan_iter(streamslots.PREFIX + "*"):
        slots.delete(k)
    slots.delete("exports")         # messages of earlier runs' jobs (other test databases)
    settings.CELLAR_RATE_LIMIT_USER = settings.CELLAR_RATE_LIMIT_ADDRESS = "100000/m"
    alice = make_user("alice", "viewer")
    web = Client()
    web.force_login(alice)
    q = (f"s={','.join(str(s.id) for s in members)}&start={start:%Y-%m-%dT%H:%M:%SZ}"
         f"&end={end:%Y-%m-%dT%H:%M:%SZ}&raw=1")

    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "t-export-poll", agent.host, "--port", str(agent.port),
                     "--community", "public", "--profile", "if-mib", "--interval", "15", "--timeout", "1",
                     "--retries", "0")
        polled = Switch.objects.get(name="t-export-poll")
        worker = CeleryProcess("worker", tmp_path, queues="polls,default,exports", REDIS_URL=settings.REDIS_URL,
                               CELLAR_EXPORT_DIR=str(tmp_path / "exports"))
        release = threading.Event()
        held: dict = {}
        try:
            worker.wait_for_log("ready.")
            assert "cellar.run_export" in worker.log_path.read_text()
            offer = web.get(f"/traffic/export.csv?{q}")
            assert offer.status_code == 409 and "start a background export" in offer.content.decode()
            created = web.post(f"/traffic/export.csv?{q}", HTTP_ACCEPT="application/json")
            assert created.status_code == 202
            job_url = created.json()["json_url"]

            # A direct download holds the only stream slot; the next one is refused.
            holder = threading.Thread(target=hold_stream, args=(alice, f"/traffic/export.csv?s={members[0].id}"
                                                               "&range=3h&raw=1", release, held))
            holder.start()
            assert wait_for(lambda: slots.zcard(streamslots.PREFIX + "all") == 1, 10)
            refused = web.get(f"/traffic/export.csv?s={members[1].id}&range=1h&raw=1")
            assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
            assert "the most the server runs at once" in refused.content.decode()

            # A poll sent while the export runs is done well within its 15 s interval.
            assert wait_for(lambda: web.get(job_url).json()["status"] == "running", 30, step=0.05), worker.tail()
            producer = Celery("cellar-test-producer", broker=settings.REDIS_URL)
            sent = time.monotonic()
            producer.send_task("cellar.poll_switch", (polled.id,), queue="polls")
            assert wait_for(lambda: PollLog.objects.filter(switch_id=polled.id).exists(), 15, step=0.05), \
                worker.tail()
            poll_s = time.monotonic() - sent
            producer.close()

            seen: list[tuple[str, int]] = []

            def finished() -> bool:
                s = web.get(job_url).json()
                seen.append((s["status"], s["rows_written"]))
                return s["status"] in ("done", "failed")
            assert wait_for(finished, 180, step=0.1), worker.tail()
        finally:
            release.set()
            worker.kill()
    state = web.get(job_url).json()
    assert state["status"] == "done", state
    assert poll_s < 5, poll_s
    running = [rows for status, rows in seen if status == "running"]
    assert any(0 < r < state["rows_written"] for r in running), seen[:20]      # progress advanced
    assert running == sorted(running)
    assert state["rows_written"] == DAYS * 86400 // 15
    holder.join(30)
    assert held["status"] == 200 and held["body"].startswith(b"time,")

    downloaded = web.get(state["download_url"])
    assert downloaded.status_code == 200
    content = b"".join(downloaded.streaming_content)
    bob = Client()
    bob.force_login(make_user("bob", "viewer"))
    assert bob.get(state["download_url"]).status_code == 403
    assert bob.get(job_url).status_code == 403

    settings.CELLAR_CSV_SYNC_MAX_CELLS = 10**9
    settings.CELLAR_CSV_STREAMS_MAX = 4
    direct = web.get(f"/traffic/export.csv?{q}")
    assert direct.status_code == 200
    assert b"".join(direct.streaming_content) == content        # byte for byte
    assert ExportJob.objects.get().bytes_written == len(content)


def hold_stream(user, url: str, release: threading.Event, held: dict) -> None:
    """A direct download started (its slot taken, first rows read) and left unread until `release`."""
    try:
        c = Client()
        c.force_login(user)
        r = c.get(url)
        held["status"] = r.status_code
        release.wait(120)
        held["body"] = b"".join(r.streaming_content) if r.status_code == 200 else r.content
    finally:
        connection.close()
