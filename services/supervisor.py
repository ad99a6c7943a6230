"""One supervisord per checkout, driven through its XML-RPC socket.

supervisord forks every program itself, so it always knows their pids: no pidfiles, no reading
/proc to guess whether a pid is still the program we started. It starts each program in a
process group of its own and stops the whole group (gunicorn's workers go with their master),
counts a program as started only once it stayed up `min_uptime` seconds (startsecs, no retry),
and appends its output to state/logs/<name>.log. Its configuration, state/supervisord.conf, is
written here on every `make run`; a program whose section changed is restarted, the others keep
running. The socket (state/run/supervisor.sock, mode 0700) admits root or the checkout's user.

supervisord only knows the processes it forked. So that nothing is left that nobody can stop (the
children of a program whose leader was killed, such as gunicorn's workers still holding the web
port; every program of a supervisord killed outright), it runs with MARKER=<state dir> in its
environment: every program and every child of a program inherits it, and `leftovers()` finds
those no longer below the running supervisord by it, never anything another checkout or the
machine started.

Standard library only: `make stop` and `make status` run before the venv exists.
"""
from __future__ import annotations

import http.client
import os
import shlex
import signal
import socket
import subprocess
import time
import xmlrpc.client
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARKER = "CELLAR_SUPERVISED"
LIVE = ("STARTING", "RUNNING", "STOPPING")   # states in which the program's process exists


@dataclass(frozen=True)
class Program:
    name: str
    argv: tuple[str, ...]


class SupervisorError(Exception):
    """supervisord would not start or answer, or a program did not start; `log` is where to look."""

    def __init__(self, message: str, log: Path | None = None, offset: int = 0):
        super().__init__(message)
        self.log, self.offset = log, offset


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


class _UnixTransport(xmlrpc.client.Transport):
    def __init__(self, path: str, timeout: float):
        super().__init__()
        self._path, self._timeout = path, timeout

    def make_connection(self, host: object) -> http.client.HTTPConnection:
        return _UnixConnection(self._path, self._timeout)


def _conf_value(text: str) -> str:
    """A value supervisord reads back unchanged: it expands %(name)s (so % is doubled) and cuts
    a line at ' ;' or ' #' (inline comments)."""
    if "\n" in text or " ;" in text or " #" in text:
        raise SupervisorError(f"cannot put {text!r} into supervisord.conf (a newline, ' ;' or ' #')")
    return text.replace("%", "%%")


class Supervisor:
    def __init__(self, state: Path, directory: Path, supervisord: Path, *, identifier: str = "cellar",
                 min_uptime: int = 3, stop_grace: int = 15):
        self.state, self.directory, self.supervisord = state.resolve(), directory.resolve(), supervisord
        self.conf = self.state / "supervisord.conf"
        self.sock = self.state / "run" / "supervisor.sock"
        self.logs = self.state / "logs"
        self.identifier, self.min_uptime, self.stop_grace = identifier, min_uptime, stop_grace

    # -- configuration -------------------------------------------------------------------------
    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def render(self, programs: Sequence[Program]) -> str:
        v = _conf_value
        lines = [
            "; Written by services/supervisor.py on every `make run`: change it there, not here.",
            "[unix_http_server]", f"file={v(str(self.sock))}", "chmod=0700", "",
            "[supervisord]", f"logfile={v(str(self.log('supervisord')))}",
            f"pidfile={v(str(self.state / 'run' / 'supervisord.pid'))}", f"directory={v(str(self.directory))}",
            f"identifier={v(self.identifier)}",
            # Said outright as root, else supervisord logs a warning that it did not drop privileges.
            *(["user=root"] if os.geteuid() == 0 else []), "",
            "[rpcinterface:supervisor]",
            "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface", "",
            "[supervisorctl]", f"serverurl=unix://{v(str(self.sock))}", "",
        ]
        for p in programs:
            lines += [
                f"[program:{p.name}]", f"command={v(shlex.join(p.argv))}", f"directory={v(str(self.directory))}",
                # Started and restarted only by `make run`, as before supervisord: a program that
                # dies stays down (make status says so) until the next `make run`.
                "autostart=false", "autorestart=false", f"startsecs={self.min_uptime}", "startretries=0",
                "stopasgroup=true", "killasgroup=true", f"stopwaitsecs={self.stop_grace}",
                f"stdout_logfile={v(str(self.log(p.name)))}", "stdout_logfile_maxbytes=0", "redirect_stderr=true",
                "",
            ]
        return "\n".join(lines)

    def write(self, programs: Sequence[Program]) -> None:
        tmp = self.conf.with_suffix(".tmp")
        tmp.write_text(self.render(programs))
        os.replace(tmp, self.conf)

    # -- the daemon ----------------------------------------------------------------------------
    def call(self, method: str, *args: object, timeout: float = 60.0) -> Any:
        """supervisord's XML-RPC `supervisor.<method>` (its documented API) over our socket."""
        proxy = xmlrpc.client.ServerProxy("http://localhost", transport=_UnixTransport(str(self.sock), timeout))
        return getattr(proxy.supervisor, method)(*args)

    def answering(self) -> str | None:
        """The identifier of the supervisord on our socket, None when none answers."""
        try:
            return str(self.call("getIdentification", timeout=5))
        except (OSError, xmlrpc.client.Error):
            return None

    def pid(self) -> int | None:
        try:
            return int(self.call("getPID", timeout=5))
        except (OSError, xmlrpc.client.Error):
            return None

    def launch(self, programs: Sequence[Program]) -> int:
        """Write the configuration and start supervisord (it daemonizes); its pid once it answers."""
        self.logs.mkdir(parents=True, exist_ok=True)
        self.sock.parent.mkdir(parents=True, exist_ok=True)
        self.write(programs)
        log = self.log("supervisord")
        offset = log.stat().st_size if log.exists() else 0
        with open(log, "ab") as out:
            done = subprocess.run([str(self.supervisord), "-c", str(self.conf)], cwd=self.directory,
                                  env={**os.environ, MARKER: str(self.state)}, stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT, timeout=60)
        deadline = time.monotonic() + 15
        while done.returncode == 0 and time.monotonic() < deadline:
            if self.answering() == self.identifier and (pid := self.pid()):
                return pid
            time.sleep(0.1)
        raise SupervisorError("supervisord did not start", log, offset)

    def shutdown(self) -> int | None:
        """Stop supervisord itself (it stops any program still running); the pid it had."""
        pid = self.pid()
        if pid is None:
            return None
        try:
            self.call("shutdown")
        except (OSError, xmlrpc.client.Error):
            pass   # it may close the connection on its way out
        _wait_gone([pid], self.stop_grace + 15)
        return pid

    # -- programs ------------------------------------------------------------------------------
    def update(self, programs: Sequence[Program]) -> list[str]:
        """Write the configuration and apply it: sections added or gone are added or removed, a
        changed one is removed and added again (stopped). The changed ones that were running."""
        self.write(programs)
        added, changed, removed = self.call("reloadConfig")[0]
        restarted = [name for name in changed if self.running(name)]
        for name in removed + changed:
            self.stop(name)
            self.call("removeProcessGroup", name)
        for name in changed + added:
            self.call("addProcessGroup", name)
        return restarted

    def info(self, name: str) -> dict[str, Any]:
        return dict(self.call("getProcessInfo", name))

    def running(self, name: str) -> int | None:
        """The pid of program `name` while its process exists, else None."""
        try:
            info = self.info(name)
        except (OSError, xmlrpc.client.Error):
            return None
        return int(info["pid"]) if info["statename"] in LIVE and info["pid"] else None

    def start(self, program: Program) -> int:
        """Start `program` without waiting for its minimum uptime (see `check`); the offset of this
        start's part of its log, which begins with a line naming the command."""
        log = self.log(program.name)
        with open(log, "a") as out:
            out.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} starting: {shlex.join(program.argv)}\n")
        offset = log.stat().st_size
        try:
            self.call("startProcess", program.name, False)
        except xmlrpc.client.Fault as e:
            raise SupervisorError(f"{program.name} could not be started: {e.faultString}", log, offset) from None
        return offset

    def check(self, name: str, offset: int = 0) -> bool:
        """True once `name` has stayed up its minimum uptime, False while it is starting; raises
        when it stopped or gave up."""
        info = self.info(name)
        if info["statename"] == "RUNNING":
            return True
        if info["statename"] == "STARTING":
            return False
        # supervisord's spawnerr for an early exit only says "Exited too quickly": the status says more.
        why = info["spawnerr"]
        if not why or why.startswith("Exited too quickly"):
            why = f"exit status {info['exitstatus']}"
        raise SupervisorError(f"{name} exited right after starting ({why})", self.log(name), offset)

    def stop(self, name: str) -> int | None:
        """Stop `name` (SIGTERM to its process group, SIGKILL after the grace); the pid it had."""
        pid = self.running(name)
        if pid is None:
            return None
        try:
            self.call("stopProcess", name, True, timeout=self.stop_grace + 30)
        except xmlrpc.client.Fault as e:
            if "NOT_RUNNING" not in e.faultString:
                raise
        return pid

    # -- what a dead supervisord left ----------------------------------------------------------
    def leftovers(self) -> list[int]:
        """Live processes a supervisord of this state dir started (the marker in their environment)
        that are not below the supervisord answering now, if any."""
        entry, root = f"{MARKER}={self.state}".encode(), self.pid()
        found = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                marked = entry in (d / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if marked and _alive(int(d.name)) and not (root and _below(int(d.name), root)):
                found.append(int(d.name))
        return found

    def stop_leftovers(self) -> list[int]:
        pids = self.leftovers()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            if not _wait_gone(pids, 5):
                break
        return pids


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie: a stopped orphan stays a zombie until init reaps it,
    and some inits (micro-VMs, containers) reap only every second or two."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def _below(pid: int, ancestor: int) -> bool:
    """`pid` is `ancestor` or one of its descendants (an orphan's parent is init, or a subreaper)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
    return False


def _wait_gone(pids: Sequence[int], seconds: float) -> bool:
    """Wait until none of `pids` is alive; True if some still are after `seconds`."""
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.1)
    return False
