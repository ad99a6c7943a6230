"""Real agents for the benchmarks: net-snmp snmpd inside a network namespace full of interfaces.

    with SnmpdLab(pairs=500, agents=1) as lab:     # ~1,000 veth ends + lo + uplink
        lab.address, lab.ports[0], lab.community

Everything is built on simnet/netns.py (NetnsLab): one namespace `cellar-b-<pid>-snmp` holding
`pairs` veth pairs (made in one `ip -n NS -batch -` call: this kernel has no dummy driver) and
an uplink veth to the root namespace on a free link-local /30. `agents` snmpd processes listen
on the namespace side of the uplink (UDP 161, 162, ...). close() (also on failure half way, on
__exit__) stops the processes and deletes the links and the namespace; namespaces left by a
benchmark process that died are removed by remove_stale().
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from simnet import netns
from simnet.probe import wait_for_agent

SNMPD = shutil.which("snmpd") or "/usr/sbin/snmpd"
PREFIX = "cellar-b-"
COMMUNITY = "public"
SNMP_ENV = {"MIBS": "", "MIBDIRS": "/nonexistent"}


def remove_stale() -> list[str]:
    """Delete cellar-b-<pid>-* namespaces of benchmark processes that no longer exist."""
    import json
    import re

    out = subprocess.run([netns.IP, "-j", "netns", "list"], capture_output=True, text=True, timeout=20)
    removed: list[str] = []
    try:
        entries = json.loads(out.stdout or "[]")
    except ValueError:
        return removed
    pat = re.compile(rf"^{re.escape(PREFIX)}(\d+)-")
    for entry in entries:
        name = entry.get("name", "")
        m = pat.match(name)
        if not m or int(m.group(1)) == os.getpid() or os.path.exists(f"/proc/{m.group(1)}"):
            continue
        if subprocess.run([netns.IP, "netns", "del", name], capture_output=True, timeout=20).returncode == 0:
            removed.append(name)
    return removed


def unavailable_reason() -> str | None:
    if not os.path.exists(SNMPD):
        return f"{SNMPD} not installed (Debian package snmpd)"
    return netns.unavailable_reason()


class SnmpdLab:
    def __init__(self, pairs: int, agents: int = 1, tag: str = "snmp", cache_timeout: int | None = None):
        self.pairs = pairs
        self.n_agents = agents
        self.tag = tag
        self.cache_timeout = cache_timeout
        self.lab = netns.NetnsLab(tag=f"{PREFIX}{os.getpid()}")
        self.ns: netns.Netns | None = None
        self.address = ""
        self.ports: list[int] = []
        self.procs: list[subprocess.Popen] = []
        self.tmp = ""
        self.interfaces = 0

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> SnmpdLab:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        remove_stale()
        self.ns = ns = self.lab.add_ns(self.tag)
        ns.disable_ipv6()
        batch = "".join(f"link add v{i}a type veth peer name v{i}b\n" for i in range(self.pairs))
        if batch:
            out = subprocess.run([netns.IP, "-n", ns.name, "-batch", "-"], input=batch, text=True,
                                 capture_output=True, timeout=120)
            if out.returncode != 0:
                raise netns.NetnsError(f"ip -batch failed: {out.stderr.strip()[:500]}")
        candidates = [f"169.254.{200 + (os.getpid() + i) % 50}.{4 * j}/30" for i in range(50) for j in range(64)]
        subnet = netns.free_subnet(candidates[(os.getpid() % 64):] + candidates[:(os.getpid() % 64)])
        root_addr, ns_addr = (str(h) for h in list(subnet.hosts())[:2])
        root_link = f"cb{os.getpid() % 100000}{self.tag[:3]}"[:15]
        self.lab.add_veth(None, root_link, ns, "uplink")
        netns.run([netns.IP, "addr", "add", f"{root_addr}/30", "dev", root_link])
        netns.run([netns.IP, "link", "set", root_link, "up"])
        ns.ip("addr", "add", f"{ns_addr}/30", "dev", "uplink")
        ns.ip("link", "set", "uplink", "up")
        self.address = ns_addr
        self.interfaces = len(ns.run(["cat", "/proc/net/dev"]).stdout.splitlines()) - 2
        self.tmp = tempfile.mkdtemp(prefix="cellar-bench-snmpd-")
        for k in range(self.n_agents):
            self.procs.append(self._start_agent(k, 161 + k, root_addr))
            self.ports.append(161 + k)

    def _start_agent(self, k: int, port: int, allowed: str) -> subprocess.Popen:
        d = os.path.join(self.tmp, f"a{k}")
        os.makedirs(os.path.join(d, "persist"), mode=0o700)
        conf = os.path.join(d, "snmpd.conf")
        lines = [f"rocommunity {COMMUNITY} {allowed}/32", "maxGetbulkResponses 1000", "maxGetbulkRepeats 1000",
                 "master agentx", f"agentXSocket unix:{d}/agentx", "dontLogTCPWrappersConnects yes",
                 "sysLocation cellar-benchmark"]
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = {**os.environ, **SNMP_ENV, "SNMP_PERSISTENT_DIR": os.path.join(d, "persist")}
        assert self.ns is not None
        proc = self.lab.spawn(self.ns, [SNMPD, "-f", "-Lf", os.path.join(d, "snmpd.log"), "-C", "-c", conf,
                                        "-p", os.path.join(d, "snmpd.pid"), f"udp:{self.address}:{port}"], env=env)
        if wait_for_agent(self.address, port, COMMUNITY, 15, alive=lambda: proc.poll() is None):
            return proc
        raise netns.NetnsError(f"snmpd {k} in {self.ns.name} did not answer on {self.address}:{port}")

    def close(self) -> None:
        self.procs.clear()
        try:
            self.lab.close()     # stops the processes it spawned, deletes links and the namespace
        finally:
            if self.tmp:
                shutil.rmtree(self.tmp, ignore_errors=True)
                self.tmp = ""

    def agent_pids(self) -> list[int]:
        return [p.pid for p in self.lab.procs if p.poll() is None]


def bulkwalk(address: str, port: int, community: str, column: str, reps: int, timeout: float = 120
             ) -> tuple[int, float]:
    """One `snmpbulkwalk -v2c -Cr<reps> -On` of a column: (varbinds of the column, its CPU seconds).

    The CPU is the child's own rusage (os.wait4), user + system, process start included.
    """
    import threading

    env = {**os.environ, **SNMP_ENV}
    with tempfile.TemporaryFile() as errf:
        proc = subprocess.Popen(["snmpbulkwalk", "-v2c", "-c", community, f"-Cr{reps}", "-On", "-m", "",
                                 "-r", "1", "-t", "5", f"udp:{address}:{port}", column],
                                stdout=subprocess.PIPE, stderr=errf, stdin=subprocess.DEVNULL, env=env)
        if proc.stdout is None:         # stdout=PIPE gives one
            raise RuntimeError("snmpbulkwalk started without its output pipe")
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            out = proc.stdout.read()
            proc.stdout.close()
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            killer.cancel()
        if proc.returncode != 0:
            errf.seek(0)
            raise RuntimeError(f"snmpbulkwalk failed ({proc.returncode}): "
                               f"{errf.read().decode(errors='replace').strip()[:300]}")
    prefix = ("." + column.strip(".") + ".").encode()
    varbinds = sum(1 for line in out.splitlines() if line.startswith(prefix))
    return varbinds, ru.ru_utime + ru.ru_stime
