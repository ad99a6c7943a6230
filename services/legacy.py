"""Processes a `make run` from before supervisord left running: they carry no marker in their
environment (supervisor.leftovers cannot see them), only pidfiles in state/run: the pid, then
`COMMAND [env DIGEST]`. A checkout updated in place while such a run was up would otherwise keep
the old web server on its port and the old simulator on its agents' addresses, and the next
`make run` would fail beside them. `make stop` and `make run` end them.

A pidfile is trusted only while the live process's command line is the one it records (a pid
reused by another program is left alone). Each was started as the leader of its own process
group (setsid), so the whole group goes: simnet's responders, gunicorn's workers.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

NAMES = ("trapd", "beat", "worker", "simworker", "web", "simnet")
GRACE_S = 10.0


def recorded(state: Path) -> list[tuple[str, int]]:
    """(name, pid) of every old-style pidfile whose process still runs the command it records."""
    found = []
    for name in NAMES:
        try:
            line = (state / "run" / f"{name}.pid").read_text().strip()
        except OSError:
            continue
        pid_text, _, command = line.partition("\n")
        pid_text, command = pid_text.strip(), command.split(" [env ")[0].strip()
        if not pid_text.isdigit() or not command:
            continue
        try:
            live = (Path("/proc") / pid_text / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if _same_command(command, live):
            found.append((name, int(pid_text)))
    return found


def _same_command(recorded_command: str, live: str) -> bool:
    # The recorded command is what the shell ran ("ip netns exec NS .venv/bin/celery ..."); the live
    # one is the process it became (ip exec()s the program, python runs the script): the program's
    # own arguments are the same words at the end.
    tail = recorded_command.split()[-3:]
    return " ".join(tail) in live


def stop(state: Path) -> list[int]:
    """End every recorded old-style process group; their pids. The pidfiles are removed."""
    found = recorded(state)
    pids = [pid for _, pid in found]
    for sig, wait in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 5.0)):
        for pid in pids:
            try:
                os.killpg(pid, sig) if os.getpgid(pid) == pid else os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not any(_alive(p) for p in pids):
            break
    for name in NAMES:
        (state / "run" / f"{name}.pid").unlink(missing_ok=True)
    return pids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
