"""services/programs.py: which programs run where, with which command, and which changes make a
second `make run` restart them."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from services.programs import Checkout, programs, seed_command, settings_digest

ROOT = Path(__file__).resolve().parents[2]
INSIDE = {"simnet", "simworker"}   # the programs that run in the namespace when there is one


@pytest.mark.parametrize("netns", ["cellar-sim-0123456789", None], ids=["root", "not root"])
def test_only_simnet_and_its_worker_run_in_the_namespace(netns):
    c = Checkout.from_env(ROOT, {}, netns)
    exec_in = str(ROOT / "scripts" / "simnet-exec.sh")
    progs = programs(c)
    assert [p.name for p in progs] == ["simnet", "web", "worker", "simworker", "beat", "trapd"]
    for p in progs:
        assert (p.argv[0] == exec_in) == (netns is not None and p.name in INSIDE), p
    assert (seed_command(c)[0] == exec_in) == (netns is not None)


@pytest.mark.parametrize("env, name, wanted", [
    ({}, "web", ["--bind", "127.0.0.1:8000"]),
    ({"CELLAR_WEB_PORT": "8029"}, "web", ["--bind", "127.0.0.1:8029"]),
    ({}, "worker", ["-n", "default@%h", "-Q", "polls,default,exports,notify", "--concurrency", "16"]),
    ({"CELLAR_QUEUES": "polls", "CELLAR_WORKER_CONCURRENCY": "4"}, "worker", ["-Q", "polls", "--concurrency", "4"]),
    ({}, "simworker", ["-n", "simnet@%h", "-Q", "polls.simnet"]),
    ({}, "trapd", ["--host", "0.0.0.0", "--port", "1162"]),
    ({"CELLAR_TRAP_HOST": "127.0.0.1", "CELLAR_TRAP_PORT": "1189"}, "trapd", ["--host", "127.0.0.1", "--port", "1189"]),
])
def test_commands_follow_the_environment(env, name, wanted):
    argv = next(p.argv for p in programs(Checkout.from_env(ROOT, env)) if p.name == name)
    for flag, value in zip(wanted[::2], wanted[1::2], strict=True):
        assert argv[argv.index(flag) + 1] == value, argv


def _digest(root: Path, env: dict[str, str], cellar_env: str) -> str:
    (root / "state" / "cellar.env").write_text(cellar_env)
    return settings_digest(root, env)


@pytest.mark.parametrize("env, cellar_env, restarts", [
    ({"CELLAR_HOST_CHECK_INTERVAL": "5"}, "DEBUG=false\n", True),    # a Cellar variable set by the caller
    ({}, "DEBUG=true\n", True),                                       # state/cellar.env edited
    ({"TERM": "dumb", "OLDPWD": "/"}, "DEBUG=false\n", False),        # the shell's own variables
    ({"CELLAR_NOT_A_SETTING": "1"}, "DEBUG=false\n", False),          # not in .env.example
], ids=["cellar variable", "cellar.env", "shell variables", "undocumented"])
def test_what_restarts_every_program(tmp_path, env, cellar_env, restarts):
    shutil.copy(ROOT / ".env.example", tmp_path / ".env.example")
    (tmp_path / "state").mkdir()
    before = _digest(tmp_path, {"PATH": "/usr/bin"}, "DEBUG=false\n")
    assert (_digest(tmp_path, {"PATH": "/usr/bin", **env}, cellar_env) != before) == restarts
