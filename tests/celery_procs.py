"""Start real Celery worker and beat processes against the test database and a test redis DB.

The processes run the project's own entry points (`celery -A collector.celery_app ...`) with
DATABASE_URL pointing at pytest-django's test database, so tests using them must commit
(django_db(transaction=True)). Redis database 7 keeps their queues apart from `make run`.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
TEST_REDIS_DB = 7


def celery_test_redis_url() -> str:
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{TEST_REDIS_DB}"


def flush_test_redis() -> None:
    redis.Redis.from_url(celery_test_redis_url()).flushdb()


def process_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": celery_test_redis_url(),
           "CELLAR_SPOOL_DIR": str(tmp_path / "spool"), "CELLAR_BEAT_HEARTBEAT": str(tmp_path / "beat-heartbeat"),
           "CELLAR_ENV_FILE": "/nonexistent", "SECRET_KEY": settings.SECRET_KEY,
           "CELLAR_SECRETS_KEY": settings.CELLAR_SECRETS_KEY, "PYTHONUNBUFFERED": "1"}
    env.update(extra)
    return env


class CeleryProcess:
    def __init__(self, kind: str, tmp_path: Path, *args: str, **env: str):
        self.kind = kind
        self.log_path = tmp_path / f"{kind}.log"
        cmd = [sys.executable, "-m", "celery", "-A", "collector.celery_app", kind, "-l", "INFO", *args]
        if kind == "worker":
            cmd += ["--pool", "threads", "--concurrency", "8", "-Q", "polls,default", "--without-mingle",
                    "--without-gossip", "-n", f"test-{os.getpid()}@%h"]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=process_env(tmp_path, **env), stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def wait_for_log(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_path.read_text():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited: {self.tail()}")
            time.sleep(0.2)
        raise TimeoutError(f"{self.kind}: {text!r} not logged within {timeout} s: {self.tail()}")

    def tail(self, n: int = 3000) -> str:
        return self.log_path.read_text()[-n:]

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
