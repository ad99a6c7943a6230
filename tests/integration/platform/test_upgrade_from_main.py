"""A database made by the main branch before the house was rearranged upgrades with its data.

The rearrangement moved models between apps, state only: experiment runs and bursts from
`studies` to `runs` and `bursts`, analysis jobs from `exports` to `analysis` (tables, rows, content
types and permissions kept). This test takes the code of that commit (git archive of BEFORE into a
temporary directory), lets it migrate a new database and write the rows those models hold through
ITS models (a run with its series, a burst and its scan, an analysis job, an export job, an
operator whose role grants making runs, the run's audit trail); then today's code migrates that
database forward, and every row reads back through today's models, the operator may still make
runs, the run's audit trail is one trail, and the pages answer.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from collector.archive.backup import Target
from tests.integration.platform.test_upgrade_from_release import db_url, default_db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]
BEFORE = "c375ffc"

OLD_WRITER = r'''
import json
from datetime import datetime, timedelta, UTC
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from collector.archive.models import Series
from collector.audit.context import set_actor
from collector.exports.models import AnalysisJob, ExportJob
from collector.inventory.models import Host, Port, Switch
from collector.studies.models import Burst, BurstScan, ExperimentRun
from webapp.access import roles

t0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
sw = Switch.objects.create(name="main-sw", address="127.0.0.1", community="main-c0mm", profile="if-mib")
port = Port.objects.create(switch=sw, key="1", if_index=1, name="eth1", is_atm=False, speed_bps=10**9)
series = Series.objects.create(switch=sw, port=port, index="1", object_name="ifHCInOctets", direction="in",
                               unit="octets", width=64, metric="octets")
src = Host.objects.create(name="src-h", address="127.0.0.2")
dst = Host.objects.create(name="dst-h", address="127.0.0.3")
user = get_user_model().objects.create_user("ops-before", password="pw-before-1")
roles.grant(user, "operator")
set_actor("ops-before", user, source="web")
run = ExperimentRun.objects.create(name="ftp-before", start=t0, end=t0 + timedelta(minutes=5), src_host=src,
                                   dst_host=dst, bytes_sent=14_000_000, message_size=9180, overhead=8)
run.series.set([series])
Burst.objects.create(series=series, day=t0.date(), start=t0, end=t0 + timedelta(minutes=2), peak=9.0e7, mean=8.0e7,
                     volume=10**9, points=8, rule_k=10.0, rule_capacity_pct=10.0, rule_min_s=60.0)
BurstScan.objects.create(day=t0.date(), scanned_at=t0 + timedelta(days=1), final=True, series=1, bursts=1, seconds=0.1)
AnalysisJob.objects.create(owner=user, selection=f"s={series.id}&start=2026-11-20T12:00:00Z", status="done",
                           result={"summary": {"n": 1}})
ExportJob.objects.create(owner=user, selection=f"s={series.id}", filename="x.csv", header="time",
                         copy_sql="SELECT 1", copy_params={}, expected_rows=1, status="done")
print(json.dumps({"run": run.id, "series": series.id}))
'''


def main_tree(tmp: Path) -> Path:
    out = subprocess.run(["git", "-C", str(settings.BASE_DIR), "archive", "--format=tar", BEFORE, "manage.py",
                          "webapp", "collector", "migrations", "analysis"], capture_output=True, timeout=60)
    assert out.returncode == 0, f"commit {BEFORE} is not in this checkout (a full clone is needed): {out.stderr!r}"
    tree = tmp / "before"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def old_code_env(tree: Path, database_url: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a process running the old tree's code on `database_url` (this run's secrets)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTEST", "CELLAR_ENV"))}
    env.update({"DJANGO_SETTINGS_MODULE": "webapp.settings", "DATABASE_URL": database_url,
                "SECRET_KEY": settings.SECRET_KEY, "REDIS_URL": settings.REDIS_URL,
                "CELLAR_SECRETS_KEY": settings.CELLAR_SECRETS_KEY, "PYTHONPATH": str(tree),
                "CELLAR_SPOOL_DIR": str(tmp_path / "spool")})
    return env


def test_a_database_of_main_before_the_rearrangement_upgrades_with_its_rows(tmp_path):
    target = Target.from_settings()
    db = f"{target.dbname}_before"
    with target.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{db}"')
    try:
        tree = main_tree(tmp_path)
        env = old_code_env(tree, db_url(target, db), tmp_path)
        proc = subprocess.run([sys.executable, "-c", OLD_WRITER], cwd=tree, env=env, capture_output=True, text=True,
                              timeout=180)
        assert proc.returncode == 0, proc.stderr[-3000:]
        made = json.loads(proc.stdout.strip().splitlines()[-1])
        with target.connect(db) as conn:         # the old state: the models in studies and exports
            studies = "SELECT count(*) FROM django_content_type WHERE app_label = 'studies'"
            assert conn.execute(studies).fetchone()[0] == 3
            assert conn.execute("SELECT count(*) FROM django_migrations WHERE app = 'runs'").fetchone()[0] == 0
        with default_db(db):
            call_command("migrate", verbosity=0)
            _check(made)
    finally:
        with target.connect("postgres") as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def _check(made: dict) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.contenttypes.models import ContentType

    from collector.analysis.models import AnalysisJob
    from collector.audit.models import AuditEvent
    from collector.bursts.models import Burst, BurstScan
    from collector.exports.models import ExportJob
    from collector.inventory.models import Switch
    from collector.runs.models import ExperimentRun

    run = ExperimentRun.objects.get(pk=made["run"])
    assert (run.name, run.bytes_sent, run.src_host.name, list(run.series.values_list("id", flat=True))) == (
        "ftp-before", 14_000_000, "src-h", [made["series"]])
    assert Burst.objects.get().series_id == made["series"] and BurstScan.objects.get().bursts == 1
    assert AnalysisJob.objects.get().result == {"summary": {"n": 1}} and ExportJob.objects.get().filename == "x.csv"
    assert str(Switch.objects.get(name="main-sw").community) == "main-c0mm"
    labels = set(ContentType.objects.filter(model__in=("experimentrun", "burst", "burstscan", "analysisjob"))
                 .values_list("app_label", "model"))
    assert labels == {("runs", "experimentrun"), ("bursts", "burst"), ("bursts", "burstscan"),
                      ("analysis", "analysisjob")}
    assert not ContentType.objects.filter(app_label="studies").exists()
    operator = get_user_model().objects.get(username="ops-before")
    assert operator.has_perm("runs.add_experimentrun") and not operator.has_perm("runs.delete_experimentrun")
    trail = AuditEvent.objects.filter(object_id=str(run.id), object_type__endswith=".experimentrun").values_list(
        "object_type", flat=True)
    assert list(trail) == ["runs.experimentrun"]
    client = Client()
    client.force_login(operator)
    for url in (f"/runs/{run.id}/", "/runs/", "/datasets/", "/switches/main-sw/", "/exports/"):
        assert client.get(url).status_code == 200, url
