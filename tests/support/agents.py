"""Test helpers: a real net-snmp ``snmpd`` on 127.0.0.1 with a throw-away configuration.

Used by tests/collector/core/test_snmp.py and test_snmp_hostile_agents.py (and usable by other tests):

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
from dataclasses import dataclass

from collector.core import snmp_codec
from simnet.probe import wait_for_agent

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

    def start(self, wait: float = 10.0) -> NetSnmpAgent:
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
        """Ready when it answers a v2c GET of sysUpTime.0."""
        return wait_for_agent(self.host, self.port, self.community, wait,
                              alive=lambda: self.proc is not None and self.proc.poll() is None)

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

    def __enter__(self) -> NetSnmpAgent:
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


# ---------------------------------------------------------------------------------------
# A scriptable in-process SNMPv1/v2c agent (for hostile / malformed-response tests)

# What FakeAgent serves by default in the tests: every value type, multi-byte indexes, Counter64
# at the edges, an IpAddress index.
FAKE_MIB = {
    "1.3.6.1.2.1.1.1.0": (0x04, b"fake agent"),
    "1.3.6.1.2.1.1.2.0": (0x06, "1.3.6.1.4.1.99999.1"),
    "1.3.6.1.2.1.1.3.0": (0x43, 4294967295),
    **{f"1.3.6.1.2.1.2.2.1.1.{i}": (0x02, i) for i in (1, 2, 127, 128, 300, 16384)},
    **{f"1.3.6.1.2.1.2.2.1.2.{i}": (0x04, f"port{i}".encode()) for i in (1, 2, 127, 128, 300,
                                                                         16384)},
    **{f"1.3.6.1.2.1.2.2.1.10.{i}": (0x41, 2**32 - i) for i in (1, 2, 127, 128, 300, 16384)},
    "1.3.6.1.2.1.4.20.1.1.10.0.0.1": (0x40, "10.0.0.1"),
    "1.3.6.1.2.1.4.20.1.1.192.168.255.254": (0x40, "192.168.255.254"),
    "1.3.6.1.2.1.31.1.1.1.6.1": (0x46, 2**64 - 1),
    "1.3.6.1.2.1.31.1.1.1.6.2": (0x46, 0),
    "1.3.6.1.2.1.31.1.1.1.6.4294967295": (0x46, 2**63),
    "1.3.6.1.2.1.31.1.1.1.15.1": (0x42, 1000),
    "1.3.6.1.2.1.31.1.1.1.18.1": (0x04, b"\x00\xff binary"),
    "1.3.6.1.4.1.99999.1.1.0": (0x02, -2**31),
    "1.3.6.1.4.1.99999.1.2.0": (0x02, 2**31 - 1),
    "1.3.6.1.4.1.99999.1.3.0": (0x44, b"\x9f\x78\x04\x00\x00\x00\x00"),
}


class FakeAgent:
    """SNMPv1/v2c agent in the caller's event loop on 127.0.0.1:<free port>.

    ``mib``: {dotted OID: (tag, value)}.  By default it answers GET/GETNEXT/GETBULK
    correctly (v1 errors as noSuchName, v2c with exception values).  ``handler(agent,
    request, data)`` may replace the answer: it returns bytes, a list of datagrams, or
    None (stay silent); ``agent.answer(request)`` gives the correct answer to start from.
    """

    def __init__(self, mib: dict | None = None, community: str = "public", handler=None,
                 host: str = "127.0.0.1"):
        self.host = host
        self.codec = snmp_codec
        self.community = community.encode()
        self.handler = handler
        self.requests = 0
        self.seen_types: list[int] = []          # PDU type of each request answered, in order
        self.port = 0
        self.transport = None
        items = []
        for oid, (tag, value) in (mib or {}).items():
            raw = snmp_codec.oid_to_raw(oid)
            items.append((snmp_codec.raw_to_oid(raw), raw, snmp_codec.encode_value(tag, value)))
        items.sort()
        self.keys = [k for k, _, _ in items]
        self.items = items
        self.by_raw = {raw: val for _, raw, val in items}

    async def __aenter__(self) -> FakeAgent:
        import asyncio

        agent = self

        class Proto(asyncio.DatagramProtocol):
            def connection_made(self, transport):
                agent.transport = transport

            def datagram_received(self, data, addr):
                agent._received(data, addr)

        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            Proto, local_addr=(self.host, 0))
        self.port = transport.get_extra_info("sockname")[1]
        return self

    async def __aexit__(self, *exc) -> None:
        if self.transport is not None:
            self.transport.close()

    def _received(self, data: bytes, addr) -> None:
        try:
            req = self.codec.decode_message(data)
        except self.codec.CodecError:
            return
        if req.community != self.community:
            return
        self.requests += 1
        self.seen_types.append(req.pdu_type)
        out = self.handler(self, req, data) if self.handler else self.answer(req)
        if out is None:
            return
        for dgram in ([out] if isinstance(out, (bytes, bytearray)) else out):
            self.transport.sendto(bytes(dgram), addr)

    # -- a correct agent ------------------------------------------------------------------
    def next_after(self, raw: bytes, v1: bool = False):
        import bisect

        key = self.codec.raw_to_oid(raw)
        i = bisect.bisect_right(self.keys, key)
        while i < len(self.items):
            _, r, v = self.items[i]
            if not (v1 and v[0] == 0x46):          # SNMPv1 cannot carry Counter64
                return r, v
            i += 1
        return None

    def answer(self, req, *, status: int | None = None, index: int = 0) -> bytes:
        v1 = req.version == 0
        names = [n for n, _ in req.varbinds]
        out: list[tuple[bytes, bytes]] = []
        err, err_index = 0, 0
        if req.pdu_type == 0xA0:                      # GET
            for i, n in enumerate(names):
                val = self.by_raw.get(n)
                if val is None or (v1 and val[0] == 0x46):
                    if v1:
                        err, err_index = err or 2, err_index or i + 1
                    val = b"\x80\x00"
                out.append((n, val))
        elif req.pdu_type == 0xA1:                    # GETNEXT
            for i, n in enumerate(names):
                nxt = self.next_after(n, v1)
                if nxt is None:
                    if v1:
                        err, err_index = err or 2, err_index or i + 1
                    out.append((n, b"\x82\x00"))
                else:
                    out.append(nxt)
        elif req.pdu_type == 0xA5:                    # GETBULK
            nonrep, reps = max(0, req.error_status), max(0, req.error_index)
            for n in names[:nonrep]:
                out.append(self.next_after(n) or (n, b"\x82\x00"))
            cur = names[nonrep:]
            for _ in range(reps if cur else 0):
                new_cur = []
                for n in cur:
                    got = self.next_after(n)
                    if got is None:
                        out.append((n, b"\x82\x00"))
                        new_cur.append(n)
                    else:
                        out.append(got)
                        new_cur.append(got[0])
                cur = new_cur
        if status is not None:
            err, err_index = status, index
        if err and v1:
            out = [(n, b"\x05\x00") for n in names]
        return snmp_codec.encode_message(req.version, req.community, 0xA2, req.request_id, err,
                              err_index, out)


def mutate(rng, data: bytes) -> bytes:
    """One random mutation of a datagram (for fuzzing response parsers)."""
    b = bytearray(data)
    kind = rng.randrange(12)
    if kind == 0 and b:                               # flip some bits
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == 1 and b:                             # interesting byte values
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.choice(
                (0x00, 0x01, 0x7F, 0x80, 0x81, 0x82, 0x83, 0x84, 0x88, 0xFF, 0x30, 0x06))
    elif kind == 2:                                   # truncate
        b = b[:rng.randrange(len(b) + 1)]
    elif kind == 3:                                   # insert random bytes
        i = rng.randrange(len(b) + 1)
        b[i:i] = rng.randbytes(rng.randint(1, 16))
    elif kind == 4 and b:                             # delete a range
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 16)]
    elif kind == 5 and b:                             # duplicate a slice
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 40))
        b[j:j] = b[i:j]
    elif kind == 6:                                   # pure garbage
        b = bytearray(rng.randbytes(rng.randint(0, 300)))
    elif kind == 7:                                   # garbage behind a valid header
        b = b[:rng.randint(0, 30)] + bytearray(rng.randbytes(rng.randint(0, 100)))
    elif kind == 8 and b:                             # length octet -> long/indefinite forms
        i = rng.randrange(len(b))
        b[i:i + 1] = rng.choice((b"\x80", b"\x81\xff", b"\x84\xff\xff\xff\xff", b"\x82\x00\x05",
                                 b"\x83\x01\x00\x00"))
    elif kind == 9:                                   # huge datagram
        b = b + bytearray(rng.randbytes(rng.randint(1000, 60000)))
    elif kind == 10 and b:                            # swap two bytes
        i, j = rng.randrange(len(b)), rng.randrange(len(b))
        b[i], b[j] = b[j], b[i]
    else:                                             # several mutations at once
        for _ in range(rng.randint(2, 4)):
            b = bytearray(mutate(rng, bytes(b)))
    return bytes(b[:65507])
