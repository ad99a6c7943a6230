"""The programs `make run` starts, in start order, and how each runs: one definition, read by
`python -m services up|stop|status` and shown in docs/architecture.md.

simnet and simworker (the worker of the simulated network's poller group) run through
scripts/simnet-exec.sh when there is a namespace: it runs them inside it with the service URLs
that work there (unix sockets) and passes no password on a command line. Everything else runs
in the machine's own namespace and reads state/cellar.env itself (webapp/env.py).
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .supervisor import Program

SIM_GROUP = "simnet"   # the poller group of the simulated network; its worker is simworker


@dataclass(frozen=True)
class Checkout:
    root: Path
    netns: str | None        # the namespace simnet and simworker run in (root only), else None
    web_port: int
    trap_host: str
    trap_port: int
    queues: str
    concurrency: str

    @classmethod
    def from_env(cls, root: Path, env: Mapping[str, str], netns: str | None = None) -> Checkout:
        return cls(root=root, netns=netns, web_port=int(env.get("CELLAR_WEB_PORT") or 8000),
                   trap_host=env.get("CELLAR_TRAP_HOST") or "0.0.0.0",
                   trap_port=int(env.get("CELLAR_TRAP_PORT") or 1162),
                   queues=env.get("CELLAR_QUEUES") or "polls,default,exports,notify",
                   concurrency=env.get("CELLAR_WORKER_CONCURRENCY") or "16")

    @property
    def venv(self) -> Path:
        return self.root / ".venv" / "bin"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def inside(self) -> tuple[str, ...]:
        """The prefix that runs a command where simworker runs."""
        return (str(self.root / "scripts" / "simnet-exec.sh"),) if self.netns else ()


def programs(c: Checkout) -> list[Program]:
    py = str(c.venv / "python")
    celery = (str(c.venv / "celery"), "-A", "collector.poller.celery_app")
    return [
        Program("simnet", (*c.inside(), py, "-m", "simnet", "up", "--state-dir", "state/simnet")),
        Program("web", (str(c.venv / "gunicorn"), "webapp.wsgi:application", "--bind", f"127.0.0.1:{c.web_port}",
                        "--workers", "2", "--access-logfile", str(c.state / "logs" / "web-access.log"),
                        # gunicorn >= 23 opens a control socket in ~/.gunicorn by default: keep it
                        # in state/ (and apart from any other checkout's gunicorn).
                        "--control-socket", str(c.state / "run" / "gunicorn.ctl"))),
        # -n: two workers on one host need names of their own.
        Program("worker", (*celery, "worker", "-n", "default@%h", "-Q", c.queues, "-l", "info",
                           "--pool", "threads", "--concurrency", c.concurrency)),
        Program("simworker", (*c.inside(), *celery, "worker", "-n", f"{SIM_GROUP}@%h", "-Q", f"polls.{SIM_GROUP}",
                              "-l", "info", "--pool", "threads", "--concurrency", "4")),
        Program("beat", (*celery, "beat", "-l", "info")),
        # The trap receiver listens where the agents can reach it: the root namespace (docs/events.md).
        Program("trapd", (py, "manage.py", "trapd", "--host", c.trap_host, "--port", str(c.trap_port))),
    ]


def seed_command(c: Checkout) -> tuple[str, ...]:
    """Registers the simulated network (no link typed by hand), where its worker runs."""
    return (*c.inside(), str(c.venv / "python"), "manage.py", "seed_simnet", "--poller-group", SIM_GROUP)


def settings_digest(root: Path, env: Mapping[str, str]) -> str:
    """What every program reads once at start: the Cellar variables set in the environment (those
    .env.example documents) and the env file. supervisord carries it as its identifier, so a
    `make run` with other settings restarts supervisord and every program with them."""
    names = re.findall(r"^([A-Z][A-Z0-9_]*)=", (root / ".env.example").read_text(), re.M)
    h = hashlib.sha256()
    for name in sorted(set(names) & set(env)):
        h.update(f"{name}={env[name]}\0".encode())
    env_file = Path(env.get("CELLAR_ENV_FILE") or root / "state" / "cellar.env")
    h.update(env_file.read_bytes() if env_file.is_file() else b"")
    return h.hexdigest()[:12]
