"""A database made by an earlier release of Cellar, with that release's code, upgrades to today's.

tests/integration/platform/test_migrate_forward.py replays the old migrations of *this* checkout
and writes the old rows by hand in SQL; this test uses the earlier release itself: its files at
RELEASE (git archive into a temporary directory) run in a child process (same venv) that applies
ITS migrations to a new database and writes samples through ITS ingest (a Counter64 wrap, a
Counter32 fallback wrap, an agent reboot) and ITS rollup. Then today's code migrates that database
forward; every sample and rollup row is as the old code stored it, today's ingest continues the
series across the upgrade, and the pages answer. The same old database, backed up with today's
`manage.py backup` and restored --into another, is migrated forward by the restore (said so).

RELEASE: the repository has no tags, and its whole history spans 2026-11-22 to 2026-11-25 (no
"several weeks back" exists). 49ba248 (2026-11-22 21:14) is the last commit before the one-way
house (the models moved from webapp/traffic and webapp/status to collector apps, the SNMP core
split out): the clearest earlier milestone, a complete release of collector, rollups and pages.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections

from collector.archive.backup import Target

pytestmark = pytest.mark.django_db(transaction=True)
RELEASE = "49ba248"
POLLS, REBOOT_AT, RATE_64, RATE_32 = 240, 150, 9_000_000, 700_000
START = (datetime.now(UTC) - timedelta(days=3)).replace(hour=6, minute=0, second=0, microsecond=0)

# Runs inside the old release's tree with its settings: its migrations, its models, its ingest, its rollup.
OLD_WRITER = r'''
import json, os, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from webapp.inventory.models import Port, Switch
from collector.poll import CounterReading, PollResult
from collector import ingest, rollup
start, polls, reboot_at, rate64, rate32 = json.loads(sys.argv[1])
sw = Switch.objects.create(name="old-edge", address="127.0.0.1", community="old-c0mm", profile="if-mib",
                           poll_interval_s=15)
for key, speed in (("1", 10**9), ("2", 10**8)):
    Port.objects.create(switch=sw, key=key, if_index=int(key), name=f"eth{key}", is_atm=False, speed_bps=speed,
                        port_type="ethernet", oper_status="up")
for k in range(polls):
    since = k - reboot_at if k >= reboot_at else k
    base64 = 0 if k >= reboot_at else 2**64 - 50 * rate64 * 15
    base32 = 0 if k >= reboot_at else 2**32 - 30 * rate32 * 15
    uptime = (1000 if k >= reboot_at else 5000000) + since * 1500
    readings = {("ifHCInOctets", "1"): CounterReading((base64 + since * rate64 * 15) % 2**64, 64),
                ("ifHCInOctets", "2"): CounterReading((base32 + since * rate32 * 15) % 2**32, 32)}
    assert ingest.ingest(PollResult(sw.id, start + 15 * k, uptime, readings, {}), sw) == 1
rollup.run(budget_s=120)
print(json.dumps({"switch": sw.id}))
'''
SAMPLES_SQL = ("SELECT time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags FROM traffic_sample "
               "ORDER BY switch_id, time")
ROLLUP_SQL = ("SELECT bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged "
              "FROM traffic_rollup_{} ORDER BY series_id, bucket")


def old_tree(tmp: Path) -> Path:
    out = subprocess.run(["git", "-C", str(settings.BASE_DIR), "archive", "--format=tar", RELEASE, "manage.py",
                          "webapp", "collector", "migrations", "mibs"], capture_output=True, timeout=60)
    assert out.returncode == 0, f"commit {RELEASE} is not in this checkout (a full clone is needed): {out.stderr!r}"
    tree = tmp / "release"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def db_url(target: Target, dbname: str) -> str:
    from urllib.parse import quote

    auth = quote(target.user) + (":" + quote(target.password, safe="") if target.password else "")
    return f"postgres://{auth}@{target.host or 'localhost'}:{target.port}/{dbname}"


@contextmanager
def default_db(name: str):
    """Today's code (models, views) on database `name` for a while, then back on the test database."""
    original = connection.settings_dict["NAME"]
    connections.close_all()
    connection.settings_dict["NAME"] = name
    try:
        yield
    finally:
        connections.close_all()
        connection.settings_dict["NAME"] = original


def _snapshot(target: Target, dbname: str) -> dict:
    with target.connect(dbname) as conn:
        data = {"samples": conn.execute(SAMPLES_SQL).fetchall()}
        for tier in ("1m", "15m", "1h", "1d"):
            data[tier] = conn.execute(ROLLUP_SQL.format(tier)).fetchall()
        data["series"] = conn.execute("SELECT id, index, object_name, width, port_id FROM traffic_series "
                                      "ORDER BY id").fetchall()
    return data


def test_a_database_of_an_earlier_release_upgrades_with_its_samples(tmp_path, client, capsys):
    started = time.monotonic()
    target = Target.from_settings()
    old_db, copy_db = f"{target.dbname}_release", f"{target.dbname}_release_copy"
    with target.connect("postgres") as admin:
        for name in (old_db, copy_db):
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{old_db}"')
    try:
        tree = old_tree(tmp_path)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTEST", "CELLAR_ENV"))}
        env.update({"DJANGO_SETTINGS_MODULE": "webapp.settings", "DATABASE_URL": db_url(target, old_db),
                    "SECRET_KEY": settings.SECRET_KEY, "REDIS_URL": settings.REDIS_URL,
                    "CELLAR_SECRETS_KEY": settings.CELLAR_SECRETS_KEY, "PYTHONPATH": str(tree),
                    "CELLAR_SPOOL_DIR": str(tmp_path / "spool")})
        proc = subprocess.run([sys.executable, "-c", OLD_WRITER,
                               json.dumps([START.timestamp(), POLLS, REBOOT_AT, RATE_64, RATE_32])],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        switch_id = json.loads(proc.stdout.strip().splitlines()[-1])["switch"]
        old = _snapshot(target, old_db)
        with target.connect(old_db) as conn:     # really the old release's schema
            assert conn.execute("SELECT count(*) FROM django_migrations WHERE app = 'archive'").fetchone()[0] == 0
        assert len(old["samples"]) == POLLS and old["1m"] and old["1d"]
        # The old code derived the wraps exactly: every delta is rate x 15 s, none across the reboot.
        deltas = [row[6] for row in old["samples"]]
        assert deltas[0] == [None, None] and deltas[REBOOT_AT] == [None, None]
        assert all(d == [RATE_64 * 15, RATE_32 * 15] for k, d in enumerate(deltas) if k not in (0, REBOOT_AT))

        _check_restore_of_old_dump(tmp_path, old_db, copy_db, old, capsys)
        with default_db(old_db):
            call_command("migrate", verbosity=0)
            _check_upgraded(target, old_db, old, switch_id, client)
    finally:
        with target.connect("postgres") as admin:
            for name in (old_db, copy_db):
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert time.monotonic() - started < 120


def _check_restore_of_old_dump(tmp_path: Path, old_db: str, copy_db: str, old: dict, capsys) -> None:
    with default_db(old_db):
        call_command("backup", f"{tmp_path}/backup/")
    (dump,) = (tmp_path / "backup").glob("*.dump")
    capsys.readouterr()
    call_command("restore", str(dump), into=copy_db)
    said = capsys.readouterr().out
    assert "the dump's schema is older than this code: applying" in said and "archive.0001" in said
    assert "migrated forward" in said
    copy = _snapshot(Target.from_settings(), copy_db)
    assert copy["samples"] == old["samples"] and all(copy[t] == old[t] for t in ("1m", "15m", "1h", "1d"))


def _check_upgraded(target: Target, old_db: str, old: dict, switch_id: int, client) -> None:
    from django.contrib.auth import get_user_model

    from collector.archive import ingest, rollup
    from collector.archive.models import Sample, Series
    from collector.core.poll import PollResult
    from collector.core.readings import CounterReading
    from collector.inventory.models import Switch

    now = _snapshot(target, old_db)
    assert now["samples"] == old["samples"]
    for tier in ("1m", "15m", "1h", "1d"):
        assert now[tier] == old[tier], f"rollup tier {tier} changed in the upgrade"
    assert now["series"] == old["series"]
    switch = Switch.objects.get(pk=switch_id)
    assert switch.community == "old-c0mm"            # the secret the old code encrypted reads back
    # Today's ingest continues after the upgrade: the next poll's delta comes from the old last row.
    last = Sample.objects.filter(switch_id=switch_id).order_by("-time").first()
    at = last.time.timestamp() + 15
    since = POLLS - REBOOT_AT
    readings = {("ifHCInOctets", "1"): CounterReading(since * RATE_64 * 15, 64),
                ("ifHCInOctets", "2"): CounterReading(since * RATE_32 * 15, 32)}
    assert ingest.ingest(PollResult(switch_id, at, last.uptime_cs + 1500, readings, {}), switch) == 1
    new = Sample.objects.filter(switch_id=switch_id).order_by("-time").first()
    assert new.layout_id == last.layout_id and new.delta == [RATE_64 * 15, RATE_32 * 15]
    rollup.run(budget_s=60)
    # The pages answer on the upgraded database, with the rates the old code stored.
    client.force_login(get_user_model().objects.create_superuser("upgrader", "u@example.com", "pw-for-tests-1"))
    ids = dict(Series.objects.filter(switch_id=switch_id).values_list("index", "id"))
    end = START + timedelta(seconds=15 * POLLS)
    q = f"s={ids['1']},{ids['2']}&start={START:%Y-%m-%dT%H:%M:%SZ}&end={end:%Y-%m-%dT%H:%M:%SZ}"
    data = client.get(f"/traffic/api/data?{q}&res=1m&unit=bps")
    assert data.status_code == 200
    stats = [s["stats"] for s in data.json()["series"]]
    assert [st["total"] for st in stats] == [RATE_64 * 15 * (POLLS - 2), RATE_32 * 15 * (POLLS - 2)]
    assert [st["average"] for st in stats] == pytest.approx([RATE_64 * 8, RATE_32 * 8], rel=1e-9)
    raw_csv = client.get(f"/traffic/export.csv?{q}&raw=1")
    assert raw_csv.status_code == 200 and b"".join(raw_csv.streaming_content).startswith(b"time,")
    for url in ("/switches/old-edge/", "/switches/", "/datasets/?switch=old-edge"):
        assert client.get(url).status_code == 200, url
