"""Serve a directory of snmprec recordings with one snmpsim process on 127.0.0.1.

    with RecordingServer(data_dir, cache_dir) as server:      # NAME.snmprec -> community NAME
        server.port

One process serves every file of the directory (community = file name without .snmprec), as
simnet's responder (simnet/responder.py: privilege drop as root, parent watchdog). snmpsim
indexes each file the first time it is served, which takes about a minute for the largest real
recordings: keep `cache_dir` between runs and unchanged files start at once. Ready means every
community answers a GET of sysUpTime.0 (`wait_ready`).
"""
from __future__ import annotations

import grp
import os
import pwd
import signal
import subprocess
import sys
import time
from pathlib import Path

from .probe import snmp_probe
from .runner import find_free_base_port

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ADDRESS = "127.0.0.1"


class ServerError(RuntimeError):
    pass


class RecordingServer:
    """`address` and `netns`: serve on another address, inside a network namespace (`ip netns exec`),
    as an agent on a LAN does."""

    def __init__(self, data_dir: Path, cache_dir: Path, port: int | None = None, log_path: Path | None = None,
                 address: str = ADDRESS, netns: str | None = None):
        self.data_dir, self.cache_dir = Path(data_dir), Path(cache_dir)
        self.address, self.netns = address, netns
        self.port = port or find_free_base_port(1)
        self.log_path = log_path or self.cache_dir.parent / f"snmpsim-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    def communities(self) -> list[str]:
        return sorted(p.name.split(".snmprec")[0] for p in self.data_dir.iterdir() if ".snmprec" in p.name)

    def _prepare(self) -> None:
        # snmpsim runs as nobody when started as root: it must read the data and write the cache.
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        for d in (self.data_dir, self.cache_dir):
            os.chmod(d, 0o755)
        for f in self.data_dir.iterdir():
            os.chmod(f, 0o644)
        parent = self.data_dir
        while parent != parent.parent:          # every directory above must be traversable
            if not os.stat(parent).st_mode & 0o001:
                raise ServerError(f"{parent} is not traversable by nobody: use a directory under /tmp")
            parent = parent.parent
        if os.geteuid() == 0:
            uid, gid = pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid
            for root, dirs, files in os.walk(self.cache_dir):
                for name in dirs + files:
                    os.chown(os.path.join(root, name), uid, gid)
            os.chown(self.cache_dir, uid, gid)

    def start(self) -> None:
        self._prepare()
        cmd = [sys.executable, "-m", "simnet.responder", f"--data-dir={self.data_dir}",
               f"--cache-dir={self.cache_dir}", f"--agent-udpv4-endpoint={self.address}:{self.port}",
               "--log-level=error"]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns, *cmd]
        if os.geteuid() == 0:
            cmd += ["--process-user=nobody", "--process-group=nogroup"]
        env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()

    def wait_ready(self, seconds: float = 300.0) -> None:
        """Until every community answers (the first start indexes every file: minutes for big ones)."""
        pending = self.communities()
        deadline = time.monotonic() + seconds
        while pending:
            if self.proc is None or self.proc.poll() is not None:
                raise ServerError(f"snmpsim exited ({self.proc and self.proc.returncode}); see {self.log_path}")
            pending = [c for c in pending if not snmp_probe(self.address, self.port, c, timeout=2.0)]
            if pending and time.monotonic() > deadline:
                raise ServerError(f"not answering after {seconds:.0f} s: {', '.join(pending)}; see {self.log_path}")
            if pending:
                time.sleep(0.5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def __enter__(self) -> RecordingServer:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
