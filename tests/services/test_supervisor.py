"""services/supervisor.py against a real supervisord and real processes: commands reach the program
unchanged, a program counts as started only after its minimum uptime (and is the same process while
it execs its way to the real program), one that dies at start fails with its log, a second `make
run` reuses, restarts or removes, a stop takes the whole process group, and what a killed
supervisord left is found by its marker, never another checkout's processes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.supervisor import MARKER, Program, Supervisor, SupervisorError, _conf_value

SUPERVISORD = Path(sys.executable).with_name("supervisord")
SLEEP = (sys.executable, "-c", "import sys, time; time.sleep(600)")


@pytest.fixture
def sup(tmp_path: Path) -> Iterator[Supervisor]:
    s = Supervisor(tmp_path / "state", tmp_path, SUPERVISORD, identifier="test", min_uptime=1, stop_grace=3)
    assert len(str(s.sock)) < 108, "unix socket path too long for this tmp dir"
    yield s
    s.shutdown()
    s.stop_leftovers()


def started(sup: Supervisor, name: str, offset: int = 0, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while not sup.check(name, offset):
        assert time.monotonic() < deadline, f"{name} still starting"
        time.sleep(0.05)
    pid = sup.running(name)
    assert pid
    return pid


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def group(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group `pgid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in "ZX":
            found.append(int(stat.parent.name))
    return found


ARGS = [["default@%h"], ["with space", "100%"], ["a'b", 'c"d'], ["--x=(y)", "a,b=c"]]


def test_commands_reach_the_program_unchanged(sup):
    progs = [Program(f"p{i}", (*SLEEP, *args)) for i, args in enumerate(ARGS)]
    sup.launch(progs)
    for p in progs:
        sup.start(p)
    for p, args in zip(progs, ARGS, strict=True):
        assert cmdline(started(sup, p.name)) == [*SLEEP, *args]


@pytest.mark.parametrize("text", ["x ;y", "x #y", "a\nb"])
def test_what_supervisord_would_cut_is_refused(text):
    with pytest.raises(SupervisorError):
        _conf_value(text)


def test_a_program_counts_once_it_stayed_up_and_is_the_same_process_while_it_execs(sup):
    # As simnet-exec.sh does (bash, then ip netns exec, then the program): the pid never changes.
    chain = Program("chain", ("bash", "-c", f"sleep 0.3; exec -a becoming {sys.executable} -c 'import time; "
                                            "time.sleep(600)'"))
    sup.launch([chain])
    began = time.monotonic()
    sup.start(chain)
    first = sup.running("chain")
    assert sup.check("chain") is False
    assert started(sup, "chain") == first
    assert time.monotonic() - began >= 1
    assert cmdline(first)[0] == "becoming"


@pytest.mark.parametrize("argv, said", [
    ((sys.executable, "-c", "print('boom', flush=True); raise SystemExit(3)"), "boom"),
    (("bash", "-c", "sleep 0.5; echo late; exit 1"), "late"),
], ids=["exits at once", "exits before its minimum uptime"])
def test_a_program_that_dies_at_start_fails_with_this_starts_log(sup, argv, said):
    prog = Program("dies", argv)
    sup.launch([prog])
    sup.log("dies").write_text("an older run's line\n")
    offset = sup.start(prog)
    with pytest.raises(SupervisorError, match="dies exited right after starting") as e:
        started(sup, "dies", offset)
    assert e.value.log == sup.log("dies")
    part = e.value.log.read_text()[e.value.offset:]
    assert said in part and "older run" not in part
    assert sup.running("dies") is None


def test_a_program_that_cannot_be_run_is_refused(sup):
    prog = Program("nothing", ("/nonexistent/program",))
    sup.launch([prog])
    with pytest.raises(SupervisorError, match="nothing could not be started"):
        sup.start(prog)


def test_a_second_run_reuses_restarts_or_removes(sup):
    a, b, c = (Program(n, (*SLEEP, n)) for n in "abc")
    sup.launch([a, b, c])
    pids = {}
    for p in (a, b, c):
        sup.start(p)
    for p in (a, b, c):
        pids[p.name] = started(sup, p.name)
    b2, d = Program("b", (*SLEEP, "b", "--other")), Program("d", (*SLEEP, "d"))
    assert sup.update([a, b2, d]) == ["b"]
    assert sup.running("a") == pids["a"]
    assert sup.running("b") is None and sup.running("c") is None and sup.running("d") is None
    with pytest.raises(Exception, match="BAD_NAME"):
        sup.info("c")
    sup.start(b2)
    assert cmdline(started(sup, "b"))[-1] == "--other"
    assert sup.update([a, b2, d]) == []


def test_a_stop_takes_the_whole_process_group(sup):
    prog = Program("family", ("bash", "-c", "sleep 600 & sleep 600 & wait"))
    sup.launch([prog])
    sup.start(prog)
    pid = started(sup, "family")
    assert len(group(pid)) == 3
    assert sup.stop("family") == pid
    deadline = time.monotonic() + 5
    while group(pid):
        assert time.monotonic() < deadline, f"left in the group: {group(pid)}"
        time.sleep(0.05)
    assert sup.stop("family") is None


def test_the_children_of_a_killed_leader_are_leftovers_and_a_running_programs_are_not(sup):
    # gunicorn's workers outlive a master killed with -9 and keep the web port.
    killed, alive = (Program(n, ("bash", "-c", "sleep 600 & sleep 600 & wait")) for n in ("killed", "alive"))
    sup.launch([killed, alive])
    for p in (killed, alive):
        sup.start(p)
    leader = started(sup, "killed")
    started(sup, "alive")
    children = sorted(set(group(leader)) - {leader})
    os.kill(leader, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while sup.running("killed"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert sorted(sup.leftovers()) == children
    assert sorted(sup.stop_leftovers()) == children
    assert group(leader) == [] and len(group(sup.running("alive") or 0)) == 3


def test_what_a_killed_supervisord_left_is_found_and_stopped_and_nothing_else(sup, tmp_path):
    prog = Program("orphan", ("bash", "-c", "sleep 600 & wait"))
    daemon = sup.launch([prog])
    sup.start(prog)
    pid = started(sup, "orphan")
    other = subprocess.Popen(SLEEP, env={**os.environ, MARKER: str(tmp_path / "another-checkout")})
    mine = subprocess.Popen(SLEEP)
    try:
        os.kill(daemon, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while sup.answering() is not None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        left = sup.leftovers()
        assert pid in left and len(left) == 2    # the program and its child, not supervisord itself
        assert other.pid not in left and mine.pid not in left
        assert sorted(sup.stop_leftovers()) == sorted(left)
        assert sup.leftovers() == []
        assert other.poll() is None and mine.poll() is None
    finally:
        for p in (other, mine):
            p.kill()
            p.wait()
