"""Export jobs (collector/exports/jobs.py): stored parameters, who sees a job, per-owner dispatch,
expiry of old files, stray files and jobs whose worker died."""
from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from collector.audit import owners
from collector.exports import jobs, writer
from collector.exports.models import ExportJob

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _dir(settings, tmp_path):
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"


def make(owner=None, session="s" * 32, sql="SELECT 1, 'a,b'", params=None) -> ExportJob:
    return jobs.create(owner_id=owner.id if owner else None, session_key=None if owner else session,
                       selection="s=1&range=1h", filename="x.csv", header=b"time,value\n", sql=sql,
                       params=params or {}, expected_rows=1)


def test_parameters_come_back_with_their_types():
    t = datetime(2026, 11, 20, 10, 0, 0, 500, tzinfo=UTC)
    params = {"lo": t, "ids": [1, 2], "k0": 0.5, "sw": 3, "none": None}
    stored = jobs.encode_params(params)
    assert stored["lo"] == {"$t": "2026-11-20T10:00:00.000500+00:00"}
    assert jobs.decode_params(stored) == params


def test_a_job_needs_an_owner():
    with pytest.raises(ValueError, match="needs an owner"):
        jobs.create(owner_id=None, session_key="", selection="", filename="x", header=b"", sql="", params={},
                    expected_rows=1)


def test_visibility():
    alice = User.objects.create_user("alice")
    mine, anon = make(alice), make(None, session="k" * 32)
    assert anon.session_hash == owners.session_hash("k" * 32) and "k" * 32 not in anon.session_hash
    see = owners.visible_to
    assert see(mine, user_id=alice.id, is_staff=False, session_key=None)
    assert not see(mine, user_id=alice.id + 1, is_staff=False, session_key=None)
    assert not see(mine, user_id=None, is_staff=False, session_key="k" * 32)
    assert see(mine, user_id=alice.id + 1, is_staff=True, session_key=None)
    assert see(anon, user_id=None, is_staff=False, session_key="k" * 32)
    assert not see(anon, user_id=None, is_staff=False, session_key="j" * 32)
    assert not see(anon, user_id=None, is_staff=False, session_key=None)
    assert not see(anon, user_id=alice.id, is_staff=False, session_key=None)


def test_the_worker_writes_the_copy_with_its_parameters():
    job = make(sql="SELECT %(lo)s::timestamptz, x FROM generate_series(1, %(n)s) x",
               params={"lo": datetime(2026, 1, 1, tzinfo=UTC), "n": 3})
    assert writer.run(job.id) == "done: 3 rows, 86 bytes"
    job.refresh_from_db()
    with open(job.path, "rb") as fh:
        assert fh.read() == (b"time,value\n2026-01-01 00:00:00+00,1\n2026-01-01 00:00:00+00,2\n"
                             b"2026-01-01 00:00:00+00,3\n")
    assert oct(os.stat(job.path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(jobs.export_dir()).st_mode & 0o777) == "0o700"


def test_a_failing_query_fails_the_job_with_its_reason_and_leaves_no_file():
    job = make(sql="SELECT 1/0")
    assert writer.run(job.id).startswith("failed: DivisionByZero: division by zero")
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "DivisionByZero: division by zero" and job.path == ""
    assert list(jobs.export_dir().iterdir()) == []


def test_dispatch_keeps_each_owner_to_its_limit(settings):
    settings.CELLAR_EXPORT_JOBS_PER_USER = 2
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    a = [make(alice) for _ in range(3)]
    b = make(bob)
    sent = set(ExportJob.objects.filter(sent_at__isnull=False).values_list("id", flat=True))
    assert sent == {a[0].id, a[1].id, b.id}                  # alice's third waits; bob is not held up
    assert jobs.position(ExportJob.objects.get(pk=a[2].id)) == 3
    writer.run(a[0].id)
    assert ExportJob.objects.get(pk=a[2].id).sent_at is not None


def test_expire_deletes_old_files_strays_and_fails_lost_jobs(settings):
    alice = User.objects.create_user("alice")
    old, fresh, lost, long = make(alice), make(alice), make(alice), make(alice)
    writer.run(old.id)
    writer.run(fresh.id)
    old.refresh_from_db()
    ExportJob.objects.filter(pk=old.id).update(finished=timezone.now() - timedelta(hours=25))
    ExportJob.objects.filter(pk=lost.id).update(status="running", started=timezone.now() - timedelta(hours=2),
                                                progress_at=timezone.now() - timedelta(minutes=11))
    # a long bulk export whose worker reported progress a minute ago is alive, however long it has run
    ExportJob.objects.filter(pk=long.id).update(status="running", started=timezone.now() - timedelta(hours=5),
                                                progress_at=timezone.now() - timedelta(minutes=1))
    stray = jobs.export_dir() / "export-999.csv.part"
    stray.write_bytes(b"half")
    os.utime(stray, (time.time() - 90000, time.time() - 90000))
    assert jobs.expire() == {"expired": 1, "lost": 1, "stray_files": 1}
    assert not os.path.exists(old.path) and not stray.exists()
    assert ExportJob.objects.get(pk=old.id).status == "expired"
    assert os.path.exists(ExportJob.objects.get(pk=fresh.id).path)
    assert ExportJob.objects.get(pk=lost.id).status == "failed"
    assert ExportJob.objects.get(pk=long.id).status == "running"
    assert jobs.expire() == {"expired": 0, "lost": 0, "stray_files": 0}      # idempotent
