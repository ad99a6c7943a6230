"""Test helpers: a real net-snmp ``snmpd`` on 127.0.0.1 with a throw-away configuration.

Used by tests/collector/test_snmp.py (and usable by other tests):

    with NetSnmpAgent() as agent:
        agent.port, agent.community, agent.v3_users["authpriv"] ...

The agent listens on a random free high UDP port of 127.0.0.1, answers v1/v2c for
``agent.community`` and SNMPv3 for two USM users (authNoPriv SHA, authPriv SHA/AES).
Its persistent directory (engine ID, USM keys) is a temporary directory, so nothing
under /var/lib/snmp is read or written.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

SNMPD = shutil.which("snmpd") or "/usr/sbin/snmpd"


@dataclass(frozen=True)
class V3User:
    name: str
    auth_proto: str
    auth_key: str
    priv_proto: str = ""
    priv_key: str = ""


DEFAULT_V3_USERS = {
    "authnopriv": V3User("cellarAuth", "SHA", "auth-pass-0123"),
    "authpriv": V3User("cellarPriv", "SHA", "auth-pass-4567", "AES", "priv-pass-89ab"),
    "md5des": V3User("cellarMd5", "MD5", "auth-pass-cdef", "DES", "priv-pass-0246"),
}


def free_udp_port() -> int:
    """A currently free UDP port on 127.0.0.1 (high, chosen by the kernel)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def snmpd_available() -> bool:
    return os.path.exists(SNMPD)


class NetSnmpAgent:
    """A net-snmp snmpd process on 127.0.0.1:<random port>."""

    def __init__(self, community: str = "public", v3_users: dict[str, V3User] | None = None,
                 max_getbulk_responses: int = 1000, extra_conf: str = ""):
        self.community = community
        self.v3_users = dict(DEFAULT_V3_USERS if v3_users is None else v3_users)
        self.max_getbulk_responses = max_getbulk_responses
        self.extra_conf = extra_conf
        self.host = "127.0.0.1"
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.tmpdir: str | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def _write_conf(self) -> str:
        assert self.tmpdir
        lines = [
            f"rocommunity {self.community} 127.0.0.1",
            # net-snmp truncates GETBULK answers to this many varbinds (default 100)
            f"maxGetbulkResponses {self.max_getbulk_responses}",
            f"maxGetbulkRepeats {self.max_getbulk_responses}",
            # keep AgentX away from the system-wide /var/agentx/master socket
            "master agentx",
            f"agentXSocket unix:{self.tmpdir}/agentx",
            "dontLogTCPWrappersConnects yes",
            "sysLocation cellar-test-rack",
            "sysContact cellar@example.invalid",
        ]
        for u in self.v3_users.values():
            line = f'createUser {u.name} {u.auth_proto} "{u.auth_key}"'
            level = "auth"
            if u.priv_proto:
                line += f' {u.priv_proto} "{u.priv_key}"'
                level = "priv"
            lines.append(line)
            lines.append(f"rouser {u.name} {level}")
        if self.extra_conf:
            lines.append(self.extra_conf)
        path = os.path.join(self.tmpdir, "snmpd.conf")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def start(self, wait: float = 10.0) -> "NetSnmpAgent":
        self.tmpdir = tempfile.mkdtemp(prefix="cellar-snmpd-")
        persist = os.path.join(self.tmpdir, "persist")
        os.mkdir(persist, 0o700)
        conf = self._write_conf()
        env = dict(os.environ, SNMP_PERSISTENT_DIR=persist, MIBS="", MIBDIRS="/nonexistent")
        last_err = ""
        for _attempt in range(5):
            self.port = free_udp_port()
            self.proc = subprocess.Popen(
                [SNMPD, "-f", "-Lf", os.path.join(self.tmpdir, "snmpd.log"), "-C", "-c", conf,
                 "-p", os.path.join(self.tmpdir, "snmpd.pid"), f"udp:127.0.0.1:{self.port}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env, start_new_session=True,
            )
            if self._wait_ready(wait):
                return self
            last_err = self.log_tail()
            self._kill()
        raise RuntimeError(f"snmpd did not start: {last_err}")

    def _wait_ready(self, wait: float) -> bool:
        """Ready when it answers a v2c GET of sysUpTime.0 (hand-made packet, no deps)."""
        deadline = time.monotonic() + wait
        req = _v2c_get_sysuptime(self.community)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.1)
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    return False
                try:
                    s.sendto(req, (self.host, self.port))
                    data, _ = s.recvfrom(65535)
                    if data:
                        return True
                except OSError:
                    time.sleep(0.05)
        return False

    def log_tail(self, n: int = 2000) -> str:
        try:
            with open(os.path.join(self.tmpdir or "", "snmpd.log"), errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        self._kill()
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def __enter__(self) -> "NetSnmpAgent":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- net-snmp command line tools -----------------------------------------------------
    def tool_args(self, version: str = "2c", user: str | None = None) -> list[str]:
        if version in ("1", "2c"):
            return ["-v", version, "-c", self.community]
        u = self.v3_users[user or "authpriv"]
        args = ["-v", "3", "-u", u.name, "-a", u.auth_proto, "-A", u.auth_key]
        if u.priv_proto:
            args += ["-l", "authPriv", "-x", u.priv_proto, "-X", u.priv_key]
        else:
            args += ["-l", "authNoPriv"]
        return args

    def run_tool(self, tool: str, *oids: str, version: str = "2c", user: str | None = None,
                 extra: tuple[str, ...] = ()) -> str:
        cmd = [tool, *self.tool_args(version, user), "-On", "-Ob", "-Oe", "-Ox", "-m", "",
               "-r", "1", "-t", "3", *extra, f"udp:{self.host}:{self.port}", *oids]
        env = dict(os.environ, MIBS="", MIBDIRS="/nonexistent")
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"{tool} failed: {out.stderr.strip()}")
        return out.stdout


def _v2c_get_sysuptime(community: str) -> bytes:
    def tlv(tag: int, body: bytes) -> bytes:
        n = len(body)
        if n < 0x80:
            return bytes([tag, n]) + body
        return bytes([tag, 0x82, n >> 8, n & 0xFF]) + body

    oid = bytes([0x2B, 6, 1, 2, 1, 1, 3, 0])
    vb = tlv(0x30, tlv(0x06, oid) + b"\x05\x00")
    pdu = tlv(0xA0, tlv(0x02, b"\x01") + tlv(0x02, b"\x00") + tlv(0x02, b"\x00") + tlv(0x30, vb))
    return tlv(0x30, tlv(0x02, b"\x01") + tlv(0x04, community.encode()) + pdu)


def parse_tool_output(text: str) -> dict[str, tuple[str, str]]:
    """Parse ``-On -Ob -Oe -Ox`` tool output into {oid: (type, raw value text)}.

    Multi-line values (hex strings wrapping lines) are joined.
    """
    result: dict[str, tuple[str, str]] = {}
    last = None
    for line in text.splitlines():
        if line.startswith(".") and " = " in line:
            oid, rest = line.split(" = ", 1)
            oid = oid.lstrip(".")
            if ": " in rest:
                typ, val = rest.split(": ", 1)
            else:
                typ, val = rest, ""
            result[oid] = (typ.strip(), val)
            last = oid
        elif last is not None:
            typ, val = result[last]
            result[last] = (typ, val + "\n" + line)
    return result
