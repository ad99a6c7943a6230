"""A real agent with real interfaces: net-snmp's snmpd in a network namespace, reached over a veth.

    root namespace                 namespace A                         namespace B
    test process  --- clNNN <-> uplink [snmpd]  tob  <== traffic ==>  toa
                   169.254.213.x/30              10.213.0.1/30        10.213.0.2/30

`snmpd_lab(tmp_path)` builds it (and removes it at the end, even on failure) and yields an
`SnmpdLab`: the namespaces, the agent's address and the veth to measure (`tob`, with GSO off so
that the counters count real MTU-sized frames: see test_snmpd_iperf_netns.py).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from simnet import netns
from simnet.probe import wait_for_agent

SNMPD = shutil.which("snmpd") or "/usr/sbin/snmpd"
SNMPGET = shutil.which("snmpget") or "/usr/bin/snmpget"
IPERF3 = shutil.which("iperf3") or "/usr/bin/iperf3"
MTU = 1500
SNMP_PORT = 161
IPERF_PORT = 5201
A_ADDR, B_ADDR = "10.213.0.1", "10.213.0.2"   # only inside the namespaces
COMMUNITY = "public"
HC_OUT_OCTETS = "1.3.6.1.2.1.31.1.1.1.10"
SNMP_ENV = dict(os.environ, MIBS="", MIBDIRS="/nonexistent")


@dataclass
class SnmpdLab:
    lab: netns.NetnsLab
    a: netns.Netns
    b: netns.Netns
    agent_addr: str
    root_addr: str


def _uplink_candidates() -> list[str]:
    start = os.getpid() % 64
    return [f"169.254.213.{4 * ((start + i) % 64)}/30" for i in range(64)]


def require_tools() -> None:
    """make test runs as root with these installed: a skip here would hide a broken CI machine."""
    reason = netns.unavailable_reason()
    if reason:
        pytest.fail(reason)
    for tool in (SNMPD, SNMPGET, IPERF3):
        if not os.path.exists(tool):
            pytest.fail(f"{tool} not installed (Debian packages snmpd, snmp, iperf3)")


def start_snmpd(lab: netns.NetnsLab, ns: netns.Netns, addr: str, allowed: str, tmp: Path) -> subprocess.Popen:
    tmp.mkdir()
    persist = tmp / "persist"
    persist.mkdir(mode=0o700)
    conf = tmp / "snmpd.conf"
    conf.write_text("\n".join([
        f"rocommunity {COMMUNITY} {allowed}",
        "maxGetbulkResponses 1000",
        "maxGetbulkRepeats 1000",
        # keep AgentX away from the system-wide /var/agentx/master socket
        "master agentx",
        f"agentXSocket unix:{tmp}/agentx",
        "dontLogTCPWrappersConnects yes",
        "sysLocation cellar-netns-test",
    ]) + "\n")
    env = dict(SNMP_ENV, SNMP_PERSISTENT_DIR=str(persist))
    proc = lab.spawn(ns, [SNMPD, "-f", "-Lf", str(tmp / "snmpd.log"), "-C", "-c", str(conf),
                          "-p", str(tmp / "snmpd.pid"), f"udp:{addr}:{SNMP_PORT}"], env=env)
    if wait_for_agent(addr, SNMP_PORT, COMMUNITY, 10, alive=lambda: proc.poll() is None):
        return proc
    log = (tmp / "snmpd.log").read_text(errors="replace")[-2000:] if (tmp / "snmpd.log").exists() else ""
    pytest.fail(f"snmpd in {ns.name} did not answer on {addr}:{SNMP_PORT} within 10 s "
                f"(exit code {proc.poll()}); log:\n{log}")


@contextlib.contextmanager
def snmpd_lab(tmp: Path) -> Iterator[SnmpdLab]:
    require_tools()
    netns.remove_stale_namespaces()
    uplink = netns.free_subnet(_uplink_candidates())
    root_addr, agent_addr = (str(h) for h in uplink.hosts())
    root_if = f"cl{os.getpid()}"[:15]
    with netns.NetnsLab() as lab:
        a, b = lab.add_ns("a"), lab.add_ns("b")
        a.disable_ipv6()
        b.disable_ipv6()    # no RS/MLD/DAD frames on tob: only the test's traffic crosses it
        lab.add_veth(None, root_if, a, "uplink")
        lab.add_veth(a, "tob", b, "toa", ("mtu", str(MTU), "gso_max_segs", "1", "gso_max_size", str(MTU)))
        subprocess.run([netns.IP, "link", "set", root_if, "addrgenmode", "none"], check=True, timeout=10)
        subprocess.run([netns.IP, "addr", "add", f"{root_addr}/{uplink.prefixlen}", "dev", root_if],
                       check=True, timeout=10)
        subprocess.run([netns.IP, "link", "set", root_if, "up"], check=True, timeout=10)
        a.ip("addr", "add", f"{agent_addr}/{uplink.prefixlen}", "dev", "uplink")
        a.ip("addr", "add", f"{A_ADDR}/30", "dev", "tob")
        b.ip("addr", "add", f"{B_ADDR}/30", "dev", "toa")
        for ns, dev in ((a, "uplink"), (a, "tob"), (b, "toa")):
            ns.ip("link", "set", dev, "up")
        start_snmpd(lab, a, agent_addr, root_addr, tmp / "snmpd")
        yield SnmpdLab(lab, a, b, agent_addr, root_addr)


def agent_hc_out_octets(addr: str, if_index: int) -> int | None:
    out = subprocess.run([SNMPGET, "-v2c", "-c", COMMUNITY, "-On", "-Oqv", "-m", "", "-r", "0", "-t", "1",
                          f"udp:{addr}:{SNMP_PORT}", f"{HC_OUT_OCTETS}.{if_index}"],
                         capture_output=True, text=True, env=SNMP_ENV, timeout=10)
    try:
        return int(out.stdout.strip())
    except ValueError:
        return None


def iperf_server(env: SnmpdLab) -> subprocess.Popen:
    server = env.lab.spawn(env.b, [IPERF3, "-s", "-1", "-B", B_ADDR, "-p", str(IPERF_PORT)])
    netns.wait_until(lambda: env.b.run(["ss", "-Hltn", f"sport = :{IPERF_PORT}"]).stdout.strip() != "",
                     timeout=10, what=f"iperf3 listening in {env.b.name}")
    return server
