"""Processes of a `make run` from before supervisord, known only by their pidfiles, are ended with
their process groups; a pidfile whose pid now runs another command is left alone."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services import legacy

SLEEPER = ("import time, subprocess, sys; "
           "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)")


def start(*words: str) -> subprocess.Popen:
    """A group leader (as the old scripts started each program) with a child, like simnet's responders."""
    return subprocess.Popen([sys.executable, "-c", SLEEPER, *words], start_new_session=True)


def write_pidfile(state: Path, name: str, pid: int, command: str) -> None:
    (state / "run").mkdir(parents=True, exist_ok=True)
    (state / "run" / f"{name}.pid").write_text(f"{pid}\n{command} [env 3cbb450a2f64]\n")


def group(pgid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout.split("\n")
    return [int(p) for p, g, st in (line.split() for line in out if line.strip()) if int(g) == pgid and st[0] != "Z"]


def test_old_run_is_stopped_with_its_children(tmp_path):
    web = start("web", "--bind", "127.0.0.1:8000")
    other = start("somebody", "else's", "program")
    try:
        time.sleep(0.5)
        assert len(group(web.pid)) == 2
        write_pidfile(tmp_path, "web", web.pid, f"{sys.executable} -c x web --bind 127.0.0.1:8000")
        # a pidfile left from long ago whose pid is now another program's
        write_pidfile(tmp_path, "worker", other.pid, ".venv/bin/celery -A collector.poller.celery_app worker -l info")
        assert legacy.recorded(tmp_path) == [("web", web.pid)]
        assert legacy.stop(tmp_path) == [web.pid]
        web.wait(5)
        assert group(web.pid) == []                      # the child went with its leader
        assert other.poll() is None                      # not ours: left running
        assert not list((tmp_path / "run").glob("*.pid"))
    finally:
        for p in (web, other):
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(5)


@pytest.mark.parametrize("content", ["", "abc\n.venv/bin/celery beat", "123", "999999999\n.venv/bin/celery beat"])
def test_unreadable_or_dead_pidfiles_are_ignored(tmp_path, content):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "beat.pid").write_text(content)
    assert legacy.recorded(tmp_path) == []
    assert legacy.stop(tmp_path) == []
