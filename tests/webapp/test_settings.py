"""Settings fail early, naming the variable; the env helpers validate what they read."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from webapp import env

ROOT = Path(__file__).resolve().parents[2]
SETUP = ("import django, os; os.environ['DJANGO_SETTINGS_MODULE']='webapp.settings'; django.setup();"
         "from django.conf import settings as s;")


def _django_check(extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG")}
    base.update({"CELLAR_ENV_FILE": "/nonexistent", "SECRET_KEY": "x" * 50,
                 "DATABASE_URL": "postgres://u@127.0.0.1:1/db", "REDIS_URL": "redis://127.0.0.1:1/0"})
    base.update(extra_env)
    return subprocess.run([sys.executable, "-c", "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
                           "'webapp.settings'); django.setup()"], cwd=ROOT, env=base, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("variable, value, message", [
    ("SECRET_KEY", "", "SECRET_KEY is required"),
    ("DEBUG", "maybe", "DEBUG='maybe' is not a boolean"),
    ("DATABASE_URL", "mysql://x/y", "DATABASE_URL must start with postgres://"),
    ("REDIS_URL", "http://x", "REDIS_URL must be a redis:// URL"),
    ("CELLAR_DEFAULT_POLL_INTERVAL", "0", "CELLAR_DEFAULT_POLL_INTERVAL=0 is below the minimum 1"),
    ("CELLAR_SNMP_TIMEOUT", "fast", "CELLAR_SNMP_TIMEOUT='fast' is not a number"),
    ("LOG_LEVEL", "LOUD", "LOG_LEVEL='LOUD' is not one of"),
])
def test_bad_value_fails_at_start_with_the_variable_name(variable, value, message):
    proc = _django_check({variable: value})
    assert proc.returncode != 0
    assert message in proc.stderr


def test_good_environment_starts():
    proc = _django_check({})
    assert proc.returncode == 0, proc.stderr


def test_production_defaults_are_safe():
    proc = subprocess.run(
        [sys.executable, "-c", SETUP + "print(s.DEBUG, s.SESSION_COOKIE_HTTPONLY, s.X_FRAME_OPTIONS)"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**{k: v for k, v in os.environ.items() if k != "DEBUG"}, "CELLAR_ENV_FILE": "/nonexistent",
             "SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@h/db", "REDIS_URL": "redis://h/0"})
    assert proc.stdout.split() == ["False", "True", "DENY"], proc.stderr


def test_env_file_does_not_override_the_environment(tmp_path, monkeypatch):
    f = tmp_path / "cellar.env"
    f.write_text("# comment\nCELLAR_TEST_A=from-file\nCELLAR_TEST_B=from-file\n")
    monkeypatch.setenv("CELLAR_TEST_A", "from-env")
    monkeypatch.delenv("CELLAR_TEST_B", raising=False)
    env.load_env_file(f)
    assert os.environ["CELLAR_TEST_A"] == "from-env"
    assert os.environ["CELLAR_TEST_B"] == "from-file"
    monkeypatch.delenv("CELLAR_TEST_B")


def test_env_file_rejects_garbage(tmp_path):
    f = tmp_path / "cellar.env"
    f.write_text("not a pair\n")
    with pytest.raises(env.EnvError, match="expected KEY=VALUE"):
        env.load_env_file(f)


def test_database_url_parsing():
    db = env.parse_database_url("DATABASE_URL", "postgres://us%40er:p%2Fw@db.example:6543/cellar")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "us@er", "p/w", "db.example", "6543", "cellar")
    with pytest.raises(env.EnvError, match="no database name"):
        env.parse_database_url("DATABASE_URL", "postgres://u@h:5432/")


@pytest.mark.parametrize("value, threshold", [("true", 2**31 - 1), ("false", None)])
def test_prepared_statements_switch(value, threshold):
    proc = subprocess.run(
        [sys.executable, "-c", SETUP + "print(s.DATABASES['default']['OPTIONS']['prepare_threshold'])"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**os.environ, "CELLAR_ENV_FILE": "/nonexistent", "SECRET_KEY": "x" * 50,
             "DATABASE_URL": "postgres://u@h/db", "REDIS_URL": "redis://h/0", "DATABASE_PREPARED_STATEMENTS": value})
    assert proc.stdout.split() == [str(threshold)], proc.stderr
