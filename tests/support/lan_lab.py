"""A LAN of real agents, each in a network namespace of its own, reached from the root namespace the
way a switch on the LAN is: through an ordinary interface, by ARP, with no route added anywhere.

    root namespace             namespace "lan"                agent namespaces
    test, make run  -- clNNN <-> up0 [br0] p1 <-> eth0  snmpd (v2c, v3)   169.254.213.x+2
      169.254.213.x+1/28                  p2 <-> eth0  snmpd
                                          p3 <-> eth0  snmpsim (a real device's recording)

`lan_lab(tmp)` builds it and removes it all at the end, even on failure. Agents are added with
add_snmpd / add_recording; their addresses are the next ones of the /28. The root side gets one
address on one new interface (its connected route goes with it); nothing else of the root
namespace changes, and no packet to these addresses leaves the machine.
"""
from __future__ import annotations

import bz2
import contextlib
import ipaddress
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from simnet import netns
from simnet.probe import wait_for_agent
from simnet.serve import RecordingServer
from tests.support.agents import V3User

SNMPD = shutil.which("snmpd") or "/usr/sbin/snmpd"
SNMP_ENV = dict(os.environ, MIBS="", MIBDIRS="/nonexistent")


@dataclass
class Agent:
    name: str                 # its sysName (snmpd) or recording
    address: str
    ns: netns.Netns
    community: str
    v3: V3User | None = None


@dataclass
class Lan:
    lab: netns.NetnsLab
    lan: netns.Netns
    network: ipaddress.IPv4Network
    root_if: str
    root_addr: str
    tmp: Path
    agents: list[Agent] = field(default_factory=list)

    def _next(self) -> tuple[netns.Netns, str]:
        i = len(self.agents) + 1
        host = str(self.network.network_address + 1 + i)
        ns = self.lab.add_ns(f"ag{i}")
        ns.disable_ipv6()
        self.lab.add_veth(self.lan, f"p{i}", ns, "eth0")
        self.lan.ip("link", "set", f"p{i}", "master", "br0", "up")
        ns.ip("addr", "add", f"{host}/{self.network.prefixlen}", "dev", "eth0")
        ns.ip("link", "set", "eth0", "up")
        return ns, host

    def add_snmpd(self, sys_name: str, community: str = "public", v3: V3User | None = None) -> Agent:
        """net-snmp's snmpd answering v2c `community` (and v3 `v3`) from the root side only."""
        ns, host = self._next()
        d = self.tmp / f"snmpd-{sys_name}"
        (d / "persist").mkdir(parents=True, mode=0o700)
        lines = [f"rocommunity {community} {self.root_addr}", f"sysName {sys_name}", "sysLocation cellar-lan-lab",
                 "maxGetbulkResponses 1000", "maxGetbulkRepeats 1000", "master agentx",
                 f"agentXSocket unix:{d}/agentx", "dontLogTCPWrappersConnects yes"]
        if v3 is not None:
            lines += [f'createUser {v3.name} {v3.auth_proto} "{v3.auth_key}"'
                      + (f' {v3.priv_proto} "{v3.priv_key}"' if v3.priv_proto else ""),
                      f"rouser {v3.name} {'priv' if v3.priv_proto else 'auth'}"]
        (d / "snmpd.conf").write_text("\n".join(lines) + "\n")
        proc = self.lab.spawn(ns, [SNMPD, "-f", "-Lf", str(d / "snmpd.log"), "-C", "-c", str(d / "snmpd.conf"),
                                   "-p", str(d / "snmpd.pid"), f"udp:{host}:161"],
                              env=dict(SNMP_ENV, SNMP_PERSISTENT_DIR=str(d / "persist")))
        if not wait_for_agent(host, 161, community, 10, alive=lambda: proc.poll() is None):
            log = (d / "snmpd.log").read_text(errors="replace")[-2000:] if (d / "snmpd.log").exists() else ""
            pytest.fail(f"snmpd {sys_name} did not answer on {host}:161 within 10 s; log:\n{log}")
        agent = Agent(sys_name, host, ns, community, v3)
        self.agents.append(agent)
        return agent

    def add_recording(self, recording: Path, cache: Path) -> Agent:
        """snmpsim serving one real device's recording on port 161 (community: the file's name)."""
        ns, host = self._next()
        # snmpsim runs as nobody (RecordingServer drops root): port 161 must be bindable by it, in
        # this namespace only.
        ns.run(["sysctl", "-qw", "net.ipv4.ip_unprivileged_port_start=0"])
        data = Path(self.tmp / f"rec-{len(self.agents) + 1}")
        data.mkdir()
        os.chmod(self.tmp, 0o755)
        name = recording.name.split(".snmprec")[0] + ".snmprec"
        opener = bz2.open if recording.name.endswith(".bz2") else open
        with opener(recording, "rb") as src, open(data / name, "wb") as dst:    # snmpsim reads plain files
            shutil.copyfileobj(src, dst)
        server = RecordingServer(data, cache, port=161, address=host, netns=ns.name,
                                 log_path=self.tmp / f"snmpsim-{host}.log")
        server.start()
        self.lab.procs.append(server.proc)       # stopped with the lab
        server.wait_ready(300)
        agent = Agent(recording.name.split(".snmprec")[0], host, ns, server.communities()[0])
        self.agents.append(agent)
        return agent


def _candidates() -> list[str]:
    start = os.getpid() % 16
    return [f"169.254.213.{16 * ((start + i) % 16)}/28" for i in range(16)]


@contextlib.contextmanager
def lan_lab(tmp: Path) -> Iterator[Lan]:
    reason = netns.unavailable_reason()
    if reason:
        pytest.fail(reason)
    if not os.path.exists(SNMPD):
        pytest.fail(f"{SNMPD} not installed (Debian package snmpd)")
    netns.remove_stale_namespaces()
    network = netns.free_subnet(_candidates())
    root_addr = str(network.network_address + 1)
    root_if = f"cl{os.getpid()}l"[:15]
    tmp.mkdir(parents=True, exist_ok=True)
    with netns.NetnsLab() as lab:
        lan = lab.add_ns("lan")
        lan.disable_ipv6()
        lan.ip("link", "add", "br0", "type", "bridge")
        lan.ip("link", "set", "br0", "up")
        lab.add_veth(None, root_if, lan, "up0")
        lan.ip("link", "set", "up0", "master", "br0", "up")
        for cmd in (["link", "set", root_if, "addrgenmode", "none"],
                    ["addr", "add", f"{root_addr}/{network.prefixlen}", "dev", root_if],
                    ["link", "set", root_if, "up"]):
            subprocess.run([netns.IP, *cmd], check=True, timeout=10, capture_output=True)
        yield Lan(lab, lan, network, root_if, root_addr, tmp)
