"""Start real Celery worker and beat processes against the test database and a test redis DB.

The processes run the project's own entry points (`celery -A collector.poller.celery_app ...`) with
DATABASE_URL pointing at pytest-django's test database, so tests using them must commit
(django_db(transaction=True)). Each test gives them a redis-server of its own (RedisServer):
queues shared with another test run would hand this worker tasks for switches it never saw.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import redis
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def _free_tcp_port() -> int:

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throwaway redis-server on 127.0.0.1 that a test can kill and bring back on the same port."""

    def __init__(self, tmp_path, unixsocket: Path | None = None):
        self.port = _free_tcp_port()
        self.dir = tmp_path
        self.proc = None
        self.unixsocket = unixsocket     # also listen there (a process in another network namespace)

    def start(self) -> RedisServer:
        sock = ["--unixsocket", str(self.unixsocket), "--unixsocketperm", "700"] if self.unixsocket else []
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(self.dir), *sock],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"



def process_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    # The private cluster wants a password (scram-sha-256): the children log in as this process does.
    auth = quote(db["USER"], safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
    url = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url,
           "CELLAR_SPOOL_DIR": str(tmp_path / "spool"),
           "CELLAR_EXPORT_DIR": str(tmp_path / "exports"), "CELLAR_BEAT_HEARTBEAT": str(tmp_path / "beat-heartbeat"),
           "CELLAR_ENV_FILE": "/nonexistent", "SECRET_KEY": settings.SECRET_KEY,
           "CELLAR_SECRETS_KEY": settings.CELLAR_SECRETS_KEY, "REDIS_URL": settings.REDIS_URL,
           "PYTHONUNBUFFERED": "1"}
    env.update(extra)
    return env


class CeleryProcess:
    """`celery worker|beat` of the project; `prefix` runs it through another command (`ip netns
    exec NAME`: a worker at another site), `name` tells two workers of one test apart."""

    def __init__(self, kind: str, tmp_path: Path, *args: str, queues: str = "polls,default", name: str = "test",
                 prefix: tuple[str, ...] = (), log_name: str = "", **env: str):
        self.kind = kind
        self.log_path = tmp_path / f"{log_name or kind}.log"
        cmd = [*prefix, sys.executable, "-m", "celery", "-A", "collector.poller.celery_app", kind, "-l", "INFO", *args]
        if kind == "worker":
            cmd += ["--pool", "threads", "--concurrency", "8", "-Q", queues, "--without-mingle",
                    "--without-gossip", "-n", f"{name}-{os.getpid()}@%h"]
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


def wait_for(predicate, timeout: float, step: float = 0.1) -> bool:
    """Poll `predicate` until it is true (True) or `timeout` seconds have passed (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False
