"""Bounded CSV and plot requests on the known network: points limits, the background export
offer and job (run here in-process; tests/integration/workers/test_export_worker.py runs it on a
real worker), owner checks, and the cap on concurrent streams (429 + Retry-After)."""
from __future__ import annotations

import os
import stat
import threading
from datetime import timedelta

import pytest
import redis

from collector.exports import jobs, writer
from collector.exports.models import ExportJob
from collector.reader import selection
from tests.support.celery_procs import wait_for
from tests.support.dblock import locked
from tests.support.users import make_user
from webapp.traffic import streamslots

pytestmark = pytest.mark.usefixtures("plain_static")


@pytest.fixture(autouse=True)
def _exports(settings, tmp_path, redis_url):
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    # The per-user request rate (webapp/access/ratelimits.py) is not what these tests count.
    settings.CELLAR_RATE_LIMIT_USER = settings.CELLAR_RATE_LIMIT_ADDRESS = "100000/m"
    client = redis.Redis.from_url(redis_url)

    def clear():
        for k in client.scan_iter(streamslots.PREFIX + "*"):
            client.delete(k)
    clear()
    yield
    clear()


@pytest.fixture
def alice(client):
    user = make_user("alice", "viewer")
    client.force_login(user)
    return user


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_plot_points_limit_names_the_limit_and_the_count(net, client, monkeypatch):
    monkeypatch.setattr(selection, "MAX_PLOT_CELLS", 10_000)
    r = client.get(f"/traffic/api/data?s={net.rx.id},{net.tx.id}&range=24h&res=raw")
    assert r.status_code == 400
    # 24 h of 15 s samples: 5,761 points per series (both ends counted), 2 series.
    assert r.json()["error"].startswith("2 series x 5,761 points (raw samples) = 11,522 values; one plot "
                                        "request reads at most 10,000")
    assert client.get(f"/traffic/api/data?s={net.rx.id}&range=24h&res=raw").status_code == 200


def test_csv_points_limit(net, client, monkeypatch):
    monkeypatch.setattr(selection, "MAX_EXPORT_CELLS", 5_000)
    r = client.get(f"/traffic/export.csv?s={net.rx.id}&range=24h&raw=1")
    assert r.status_code == 400
    text = r.content.decode()
    assert "1 series x 5,761 points (raw samples) = 5,761 values; a CSV export holds at most 5,000" in text


def test_a_large_csv_is_offered_as_a_background_export(net, client, alice, settings):
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 1000
    url = f"/traffic/export.csv?s={net.rx.id}&range=24h&raw=1"
    page = client.get(url)
    assert page.status_code == 409
    text = page.content.decode()
    assert "about 5,761 values (1 series x 5,761 rows of raw samples); a direct download holds at most 1,000" in text
    assert '<form method="post"' in text and "Start a background export" in text
    js = client.get(url, HTTP_ACCEPT="application/json")
    assert js.status_code == 409 and js.json()["cells"] == 5761 and js.json()["create"]["method"] == "POST"
    assert not ExportJob.objects.exists()       # offering creates nothing


def test_export_job_writes_the_same_csv_as_a_direct_download(net, client, alice, settings):
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 1000
    end = net.end
    start = end.replace(hour=0, minute=0) - timedelta(hours=6)
    q = f"s={net.rx.id},{net.ip_in.id}&start={start:%Y-%m-%dT%H:%M:%SZ}&end={end:%Y-%m-%dT%H:%M:%SZ}&raw=1"
    created = client.post(f"/traffic/export.csv?{q}")
    assert created.status_code == 303
    job = ExportJob.objects.get()
    assert created["Location"] == f"/exports/{job.id}/"
    assert job.owner_id == alice.id and job.status == "queued" and job.sent_at is not None
    assert "raw=1" in job.selection and f"s={net.rx.id},{net.ip_in.id}" in job.selection
    queued = client.get(f"/exports/{job.id}.json").json()
    assert queued["text"] == "queued, position 1" and queued["download_url"] is None

    assert writer.run(job.id).startswith("done")
    assert writer.run(job.id) == "not queued: skipped"          # idempotent: a duplicate message
    job.refresh_from_db()
    state = client.get(f"/exports/{job.id}.json").json()
    assert state["status"] == "done" and state["percent"] == 100
    assert stat.S_IMODE(os.stat(job.path).st_mode) == 0o600
    downloaded = client.get(state["download_url"])
    assert downloaded.status_code == 200 and downloaded["Content-Type"].startswith("text/csv")
    assert job.filename in downloaded["Content-Disposition"]
    content = body(downloaded)

    settings.CELLAR_CSV_SYNC_MAX_CELLS = 10**9
    direct = client.get(f"/traffic/export.csv?{q}")
    assert direct.status_code == 200
    assert content == body(direct)                               # byte for byte
    assert job.rows_written == content.count(b"\n") - 1 and job.bytes_written == len(content)
    assert job.rows_written > 1000


def test_only_the_owner_or_staff_see_a_job(net, client, alice, settings):
    job = start_job(client, net)
    writer.run(job.id)
    urls = (f"/exports/{job.id}/", f"/exports/{job.id}.json", f"/exports/{job.id}/download")
    assert [client.get(u).status_code for u in urls] == [200, 200, 200]
    client.force_login(make_user("bob", "viewer"))
    assert [client.get(u).status_code for u in urls] == [403, 403, 403]
    assert f"/exports/{job.id}/" not in client.get("/exports/").content.decode()
    root = make_user("root", "viewer")
    root.is_staff = True
    root.save()
    client.force_login(root)
    assert [client.get(u).status_code for u in urls] == [200, 200, 200]


def test_an_anonymous_job_belongs_to_its_session(net, settings):
    from django.test import Client

    settings.CELLAR_ANONYMOUS_READ = True
    client = Client()
    job = start_job(client, net)
    assert job.owner_id is None and len(job.session_hash) == 64
    assert client.session.session_key not in (job.session_hash, job.selection)
    assert client.get(f"/exports/{job.id}.json").status_code == 200
    assert Client().get(f"/exports/{job.id}.json").status_code == 403


def test_jobs_beyond_the_per_user_limit_wait_in_line(net, client, alice, settings):
    settings.CELLAR_EXPORT_JOBS_PER_USER = 1
    first, second = start_job(client, net), start_job(client, net)
    second.refresh_from_db()
    assert first.sent_at is not None and second.sent_at is None
    page = client.get(f"/exports/{second.id}/").content.decode()
    assert "queued, position 2" in page
    assert 'src="/static/exports/job.js"' in page and "<script>" not in page     # no inline script
    writer.run(first.id)                    # its end hands the next job of the owner to the worker
    second.refresh_from_db()
    assert second.sent_at is not None
    assert client.get(f"/exports/{second.id}.json").json()["text"] == "queued, position 1"


def start_job(client, net) -> ExportJob:
    r = client.post(f"/traffic/export.csv?s={net.rx.id}&range=3h&raw=1")
    assert r.status_code == 303, r.content[:300]
    return ExportJob.objects.get(pk=int(r["Location"].strip("/").split("/")[-1]))


def test_concurrent_streams_are_capped_with_429_and_retry_after(net, alice, settings):
    """Streams are held open for real: a lock on the samples keeps their COPY waiting (each in
    a thread of its own, with its own connection) while later requests are answered."""
    from django.test import Client

    settings.CELLAR_CSV_STREAMS_PER_CLIENT = 1
    settings.CELLAR_CSV_STREAMS_MAX = 2
    url = f"/traffic/export.csv?s={net.rx.id}&range=1h&raw=1"
    slots = redis.Redis.from_url(settings.REDIS_URL)
    settings.CELLAR_ANONYMOUS_READ = True      # carol, below
    bob = make_user("bob", "viewer")
    done: dict[str, bytes] = {}
    with locked("traffic_sample"):
        threads = [stream_in_thread(user, url, done) for user in (alice, bob)]
        assert wait_for(lambda: slots.zcard(streamslots.PREFIX + "all") == 2, 10)
        again = Client()
        again.force_login(alice)
        busy = again.get(url)
        assert busy.status_code == 429 and 1 <= int(busy["Retry-After"]) <= streamslots.RETRY_AFTER_MAX_S
        assert "you have 1 CSV downloads streaming, the most one user (or address) may run at once" in \
            busy.content.decode()
        carol = Client(REMOTE_ADDR="192.0.2.7")     # anonymous: counted per address, and in the total
        full = carol.get(url)
        assert full.status_code == 429 and int(full["Retry-After"]) >= 1
        assert "2 CSV downloads are streaming now, the most the server runs at once" in full.content.decode()
    for t in threads:
        t.join(30)
    assert done["alice"].startswith(b"time,") and done["alice"] == done["bob"] and done["alice"].count(b"\n") > 200
    assert slots.zcard(streamslots.PREFIX + "all") == 0      # the ended streams gave their slots back
    after = Client(REMOTE_ADDR="192.0.2.7").get(url)
    assert after.status_code == 200 and body(after) == done["alice"]


def stream_in_thread(user, url: str, done: dict) -> threading.Thread:
    from django.db import connection
    from django.test import Client

    def run():
        try:
            c = Client()
            c.force_login(user)
            r = c.get(url)
            done[user.username] = body(r) if r.status_code == 200 else r.content
        finally:
            connection.close()
    t = threading.Thread(target=run)
    t.start()
    return t


def test_expiry_deletes_old_files(net, client, alice, settings):
    job = start_job(client, net)
    writer.run(job.id)
    job.refresh_from_db()
    path = job.path
    assert os.path.exists(path)
    assert jobs.expire()["expired"] == 0
    ExportJob.objects.filter(pk=job.id).update(finished=job.finished - timedelta(hours=25))
    assert jobs.expire()["expired"] == 1
    job.refresh_from_db()
    assert job.status == "expired" and job.path == "" and not os.path.exists(path)
    assert client.get(f"/exports/{job.id}/download").status_code == 409
    assert "expired" in client.get(f"/exports/{job.id}.json").json()["text"]
