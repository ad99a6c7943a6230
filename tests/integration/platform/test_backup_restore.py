"""manage.py backup / restore end to end: the archive answers byte for byte the same after the
database was dropped and restored from the dump.

The plot JSON (/traffic/api/data), the CSV export (/traffic/export.csv, raw and a rollup tier)
and the data inventory CSV (/datasets/export.csv) are fetched for several selections before the
backup and after the restore. Only the two timing fields of the plot JSON are removed before
comparing: `server_ms` (how long the server took) and `now` (the server's clock when it answered);
every other byte must be identical (the CSV bodies are compared whole).
"""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections

from collector.archive.backup import Manifest, Target, manifest_path
from collector.core.isotime import iso

pytestmark = pytest.mark.django_db(transaction=True)
TIMING_FIELDS = ("server_ms", "now")


def _login(client) -> None:
    # The pages may require a login (access control); a superuser sees everything either way.
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username="backup-op").first() or \
        get_user_model().objects.create_superuser("backup-op", "op@example.com", "pw-for-tests-1")
    client.force_login(user)


def _body(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if response["Content-Type"].startswith("application/json"):
        data = json.loads(body)
        for name in TIMING_FIELDS:
            assert name in data, f"{name} is no longer in {url}: update TIMING_FIELDS"
            data.pop(name)
        body = json.dumps(data, sort_keys=True).encode()
    return body


def _urls(a: dict) -> list[str]:
    def t(x: datetime) -> str:
        return iso(x).replace("+", "%2B")

    day = f"start={t(a['start'])}&end={t(a['end'])}"
    edge = f"start={t(a['ingest_start'])}&end={t(a['ingest_end'])}"
    return [
        f"/traffic/api/data?s={a['hc_in']},{a['in32']}&{edge}&res=raw",
        f"/traffic/api/data?s={a['hc_in']},{a['in32']}&{edge}&res=1m&unit=bps",
        f"/traffic/api/data?s={a['quiet']},{a['bursty']}&{day}",
        f"/traffic/api/data?s={a['bursty']}&{day}&res=15m&figure=1",
        f"/traffic/export.csv?s={a['hc_in']},{a['in32']}&{edge}&raw=1",
        f"/traffic/export.csv?s={a['hc_in']},{a['in32']}&{edge}&res=1m",
        f"/traffic/export.csv?s={a['quiet']},{a['bursty']}&{day}&res=1h",
        f"/datasets/export.csv?{day}",
        f"/datasets/export.csv?switch=edge-1&{edge}",
        f"/datasets/export.csv?switch=sc95-floor&port=B2&{day}",
    ]


def _drop_database(name: str) -> None:
    connections.close_all()
    target = Target.from_settings()
    with target.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        assert admin.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [name]).fetchone()[0] == 0


def test_backup_drop_restore_gives_the_same_answers(client, tmp_path, capsys):
    from tests.support import ops_archive

    archive = ops_archive.build()
    _login(client)
    urls = _urls(archive)
    before = {u: _body(client, u) for u in urls}
    assert all(len(b) > 200 for b in before.values())           # real answers, not empty ones
    from collector.archive.models import Sample

    samples = Sample.objects.count()
    call_command("backup", f"{tmp_path}/")
    (dump,) = tmp_path.glob("*.dump")
    manifest = Manifest.read(manifest_path(dump))
    assert manifest.row_counts["traffic_sample"] == samples and manifest.timescaledb_version
    assert manifest.heads["archive"] and manifest.dump_sha256
    password = Target.from_settings().password
    if password:        # the private test cluster may trust local connections (no password to leak)
        assert password not in dump.read_bytes().decode("latin-1") + manifest_path(dump).read_text()
    name = connection.settings_dict["NAME"]
    _drop_database(name)

    capsys.readouterr()
    call_command("restore", str(dump))
    said = capsys.readouterr().out
    assert f"created database '{name}'" in said and "timescaledb_pre_restore()" in said
    assert "timescaledb_post_restore()" in said and "restore done" in said
    _login(client)
    after = {u: _body(client, u) for u in urls}
    for u in urls:
        assert after[u] == before[u], f"{u} answers differently after the restore:\n{_debug_diff(before[u], after[u])}"
    assert Sample.objects.count() == samples
    with connection.cursor() as cur:     # a hypertable again, restoring mode off, jobs back
        cur.execute("SELECT count(*) FROM timescaledb_information.hypertables WHERE hypertable_name = 'traffic_sample'")
        assert cur.fetchone()[0] == 1
        cur.execute("SHOW timescaledb.restoring")
        assert cur.fetchone()[0] == "off"

    # A second restore over the (now full) database is refused without --force, and says how.
    with pytest.raises(CommandError, match="not empty .*--force"):
        call_command("restore", str(dump))
    # --force replaces it (after a change the dump does not have, which must be gone after).
    from collector.inventory.models import Switch

    Switch.objects.create(name="made-after-the-backup", address="127.0.0.1")
    capsys.readouterr()
    call_command("restore", str(dump), force=True)
    assert f"replaced database '{name}'" in capsys.readouterr().out
    assert not Switch.objects.filter(name="made-after-the-backup").exists()
    assert Sample.objects.count() == samples
    # --into another name leaves this one alone and creates the copy.
    copy = f"{name}_copy"
    try:
        call_command("restore", str(dump), into=copy)
        with Target.from_settings().connect(copy) as conn:
            assert conn.execute("SELECT count(*) FROM traffic_sample").fetchone()[0] == samples
    finally:
        with Target.from_settings().connect("postgres") as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


def test_restore_refuses_a_newer_schema_and_an_altered_dump(tmp_path):
    call_command("backup", f"{tmp_path}/")
    (dump,) = tmp_path.glob("*.dump")
    path = manifest_path(dump)
    original = json.loads(path.read_text())
    newer = {**original, "migrations": [*original["migrations"], "archive.9999_from_the_future"]}
    path.write_text(json.dumps(newer))
    with pytest.raises(CommandError, match=r"newer Cellar.*archive\.9999_from_the_future.*Nothing was restored"):
        call_command("restore", str(dump), into="never_made")
    path.write_text(json.dumps(original))
    with dump.open("r+b") as fh:
        fh.seek(-10, 2)
        fh.write(b"0123456789")
    with pytest.raises(CommandError, match="does not match its manifest"):
        call_command("restore", str(dump), into="never_made")
    target = Target.from_settings()
    with psycopg.connect(host=target.host, port=target.port, user=target.user, password=target.password,
                         dbname="postgres") as admin:
        assert admin.execute("SELECT count(*) FROM pg_database WHERE datname = 'never_made'").fetchone()[0] == 0
    Path(dump).unlink()
    with pytest.raises(CommandError, match="no dump at"):
        call_command("restore", str(dump))


def _debug_diff(a: bytes, b: bytes) -> str:
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"{a[max(0, i - 150):i + 80]!r}\n{b[max(0, i - 150):i + 80]!r}"
