"""The trap receiver as a process (`manage.py trapd` against the test database) and net-snmp's
snmptrap as the sender, for the trap tests."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.support.celery_procs import ROOT, process_env

LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"
LINK_UP = "1.3.6.1.6.3.1.1.5.4"
COLD_START = "1.3.6.1.6.3.1.1.5.1"
IF_INDEX = "1.3.6.1.2.1.2.2.1.1"
IF_ADMIN = "1.3.6.1.2.1.2.2.1.7"
IF_OPER = "1.3.6.1.2.1.2.2.1.8"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TrapReceiver:
    """`python manage.py trapd --port P` with the test database; stopped with SIGTERM."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_udp_port()
        self.log_path = tmp_path / "trapd.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "manage.py", "trapd", "--host", "127.0.0.1", "--port",
                                      str(self.port)], cwd=ROOT, env=process_env(tmp_path), stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while "listening on" not in self.tail():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"trapd did not start:\n{self.tail()}")
            time.sleep(0.1)

    def tail(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(10)
        finally:
            self.log.close()


def snmptrap(port: int, auth: list[str], trap_oid: str, varbinds: list[str], source: str = "127.0.0.1") -> None:
    """Send one real trap with net-snmp's snmptrap (v2c: ["-v2c", "-c", community]; v3: the
    -v3 -u -l -a -A -x -X -e options) from `source` (a loopback address) to the receiver."""
    args = ["snmptrap", *auth, f"--clientaddr={source}", f"udp:127.0.0.1:{port}", "", trap_oid, *varbinds]
    # No MIBs, no snmp.conf: numeric OIDs only, nothing of the machine's configuration.
    env = {"PATH": "/usr/bin:/bin", "MIBS": "", "HOME": "/nonexistent", "SNMPCONFPATH": "/nonexistent"}
    p = subprocess.run(args, capture_output=True, text=True, timeout=30, env=env)
    assert p.returncode == 0, f"{' '.join(args)}: {p.stderr}"
