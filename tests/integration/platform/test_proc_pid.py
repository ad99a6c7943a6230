"""scripts/lib.sh proc_pid: a process `make run` has just started is ours while it is still the
start script's forked subshell or between its execs, and a process that never becomes ours is not
(after `make test`, at load, `make run` once called a starting simnet dead and stopped it)."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def proc_pid_of(tmp_path: Path, child: str) -> tuple[str, float]:
    """What proc_pid says of `child` (a bash -c text) right after starting it with its pidfile,
    as start-services.sh does, and how long the whole check took (seconds)."""
    script = f"""
source {ROOT}/scripts/lib.sh
RUN_DIR={tmp_path}
MARK=simnet bash -c '{child}' &
printf '%s\\n' $! >"$(pidfile simnet)"
if pid=$(proc_pid simnet); then echo "ours $pid"; else echo "not ours"; fi
kill $! 2>/dev/null || true
"""
    started = time.monotonic()
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    return out.stdout.strip(), time.monotonic() - started


def test_a_process_still_becoming_ours_is_ours(tmp_path):
    # 0.2 s as the forked subshell (its command line names no simnet), then the program
    said, took = proc_pid_of(tmp_path, 'sleep 0.2; exec -a "python -m $MARK up" sleep 30')
    assert said.startswith("ours "), said
    assert took < 5


def test_a_process_that_never_becomes_ours_is_not(tmp_path):
    said, took = proc_pid_of(tmp_path, "exec sleep 30")
    assert said == "not ours"
    assert took < 5
