"""The private PostgreSQL cluster and redis of `make run` / `make test` want passwords.

Real connections to the running services of this checkout (state/): without a password and with a
wrong one they are refused, on the socket and on 127.0.0.1, as `postgres` and as `cellar`; with the
password of state/pgpass they are accepted. redis refuses a client without AUTH. The secret files
are mode 0600, pg_hba.conf has no trust line, no process shows a password in its command line and
no log under state/logs holds one.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parents[3]
STATE = ROOT / "state"
RUN_DIR = STATE / "run"
PGPASS = STATE / "pgpass"
REDIS_CONF = STATE / "redis.conf"
SECRET_FILES = (STATE / "cellar.env", PGPASS, REDIS_CONF)


def _pg_passwords() -> dict[str, str]:
    if not PGPASS.exists():
        pytest.fail(f"{PGPASS} is missing: provision with scripts/provision.sh (make test does)")
    out = {}
    for line in PGPASS.read_text().splitlines():
        if line and not line.startswith("#"):
            *_, user, password = line.split(":")
            out[user] = password
    return out


def _redis_conf() -> dict[str, str]:
    conf = {}
    for line in REDIS_CONF.read_text().splitlines():
        key, _, value = line.partition(" ")
        if key and not key.startswith("#"):
            conf[key] = value
    return conf


def _pg_port() -> int:
    return int((STATE / "pg" / "postmaster.pid").read_text().splitlines()[3])


def _connect(host: str, user: str, password: str | None) -> psycopg.Connection:
    # passfile=/dev/null: only the password given here may be used (not ~/.pgpass).
    kw = {"password": password} if password is not None else {}
    return psycopg.connect(host=host, port=_pg_port(), user=user, dbname="postgres", passfile=os.devnull,
                           connect_timeout=5, **kw)


@pytest.fixture(autouse=True)
def _no_password_from_the_environment(monkeypatch):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGPASSFILE", raising=False)


@pytest.mark.parametrize("host", [str(RUN_DIR), "127.0.0.1"], ids=["socket", "tcp"])
@pytest.mark.parametrize("user", ["postgres", "cellar"])
def test_postgres_wants_the_password(host, user):
    password = _pg_passwords()[user]
    with pytest.raises(psycopg.OperationalError, match="no password supplied|password authentication failed"):
        _connect(host, user, None).close()
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        _connect(host, user, password[::-1]).close()
    with _connect(host, user, password) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (user,)


def test_cluster_settings_allow_no_trust_and_loopback_only():
    hba = (STATE / "pg" / "pg_hba.conf").read_text()
    rules = [line.split() for line in hba.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert rules and all(rule[-1] == "scram-sha-256" for rule in rules), hba
    assert {rule[0] for rule in rules} == {"local", "host"}
    with _connect(str(RUN_DIR), "postgres", _pg_passwords()["postgres"]) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("127.0.0.1",)
        assert conn.execute("SHOW password_encryption").fetchone() == ("scram-sha-256",)
        # What the server actually loaded, not only the file.
        methods = {r[0] for r in conn.execute("SELECT auth_method FROM pg_hba_file_rules")}
        assert methods == {"scram-sha-256"}
        hashes = dict(conn.execute(
            "SELECT rolname, left(rolpassword, 14) FROM pg_authid WHERE rolname IN ('postgres', 'cellar')"))
        assert hashes == {"postgres": "SCRAM-SHA-256$", "cellar": "SCRAM-SHA-256$"}


def test_redis_wants_the_password():
    conf = _redis_conf()
    password, port, sock = conf["requirepass"], int(conf["port"]), conf["unixsocket"]
    for kw in ({"host": "127.0.0.1", "port": port}, {"unix_socket_path": sock}):
        with pytest.raises(redis.AuthenticationError):    # NOAUTH
            redis.Redis(socket_timeout=5, **kw).ping()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(socket_timeout=5, password=password[::-1], **kw).ping()
        assert redis.Redis(socket_timeout=5, password=password, **kw).ping() is True


def test_redis_url_of_cellar_env_carries_the_password(redis_url):
    assert redis.Redis.from_url(redis_url, socket_timeout=5).ping() is True
    assert _redis_conf()["requirepass"] in redis_url


@pytest.mark.parametrize("path", SECRET_FILES, ids=lambda p: p.name)
def test_secret_files_are_private(path):
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _secrets() -> list[str]:
    return [*_pg_passwords().values(), _redis_conf()["requirepass"]]


def test_no_command_line_shows_a_password():
    secrets = [s.encode() for s in _secrets()]
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes()
        except OSError:    # the process ended meanwhile
            continue
        assert not any(s in argv for s in secrets), f"{cmdline.parent.name}: a password in argv"


def test_no_log_holds_a_password():
    secrets = [s.encode() for s in _secrets()]
    logs = [p for p in (STATE / "logs").rglob("*") if p.is_file()]
    assert logs
    for path in logs:
        data = path.read_bytes()
        assert not any(s in data for s in secrets), f"{path} holds a password"
