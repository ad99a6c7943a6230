"""What a failed SNMP request says it was, from the network's own answers (collector/core/snmp_types.py).

Each case runs a real request from inside a namespace of its own (so the network is what the case
needs and nothing leaves the machine) and checks the failure's class, its `cause` (the word the
dashboard groups by) and its words: no route, nobody answering ARP on the link, a closed port, and
silence (a community the agent does not accept).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from simnet import netns

pytestmark = pytest.mark.netns
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ASK = """
import asyncio, json, sys
from collector.core.snmp import SnmpSession
from collector.core.snmp_types import SnmpError, SnmpTarget
host, port, backend, version = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
kw = dict(v3_user="u", auth_proto="SHA", auth_key="authkey-1", priv_proto="AES", priv_key="privkey-1") \\
    if version == "3" else dict(community="wrong")
t = SnmpTarget(host, port, version=version, timeout=2.0, retries=1, credentials="credential set 'lab'", **kw)
async def main():
    async with SnmpSession(t, backend=backend) as s:
        await s.get(["1.3.6.1.2.1.1.3.0"])
try:
    asyncio.run(main())
    print(json.dumps(["answered", "", ""]))
except SnmpError as e:
    print(json.dumps([type(e).__name__, e.cause, str(e)]))
"""

# (where, backend, version) -> (class, cause, words in the message)
CASES = {
    "no route (v2c)": ("noroute", "fast", "2c", "SnmpUnreachable", "unreachable",
                       "network unreachable: no route to 192.0.2.1:161"),
    "no route (v3)": ("noroute", "pysnmp", "3", "SnmpUnreachable", "unreachable",
                      "network unreachable: no route to 192.0.2.1:161"),
    "nobody on the link": ("lan", "fast", "2c", "SnmpUnreachable", "unreachable",
                           "host unreachable: 198.18.0.2:161 does not answer on its network"),
    "closed port": ("closed", "fast", "2c", "SnmpRefused", "refused",
                    "no SNMP agent listens on port"),
    "silence": ("silent", "fast", "2c", "SnmpTimeout", "timeout",
                "after 2 attempt(s) of 2 s with SNMPv2c community from credential set 'lab' (agent down, "
                "filtered, or the community not accepted)"),
}


@pytest.fixture(scope="module")
def lab():
    reason = netns.unavailable_reason()
    if reason:
        pytest.fail(reason)
    with netns.NetnsLab() as lab:
        ns = lab.add_ns("causes")
        ns.disable_ipv6()
        # 198.18.0.1/30 on a veth whose peer is down (simnet's unreachable host): 198.18.0.2 is on the
        # link, and nobody answers ARP for it
        ns.ip("link", "add", "h0", "type", "veth", "peer", "name", "p0")
        ns.ip("addr", "add", "198.18.0.1/30", "dev", "h0")
        ns.ip("link", "set", "h0", "up")
        yield ns


def _ask(ns: netns.Netns, host: str, port: int, backend: str, version: str) -> list[str]:
    out = ns.run([sys.executable, "-c", ASK, host, str(port), backend, version], timeout=60,
                 env={**os.environ, "PYTHONPATH": ROOT})
    return json.loads(out.stdout)


SILENT = ("import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
          "s.bind(('127.0.0.1', 16161)); time.sleep(60)")
WHERE = {"noroute": ("192.0.2.1", 161), "lan": ("198.18.0.2", 161), "closed": ("127.0.0.1", 16162),
         "silent": ("127.0.0.1", 16161)}


@pytest.mark.parametrize("where, backend, version, cls, cause, words", list(CASES.values()), ids=list(CASES))
def test_a_failure_says_what_failed(lab, where, backend, version, cls, cause, words):
    sink = None
    if where == "silent":          # a UDP port that takes datagrams and never answers
        sink = subprocess.Popen(lab.argv([sys.executable, "-c", SILENT]))
        time.sleep(0.5)
    try:
        got = _ask(lab, *WHERE[where], backend, version)
    finally:
        if sink is not None:
            sink.kill()
            sink.wait()
    assert got[0] == cls and got[1] == cause, got
    assert words in got[2], got
    assert "wrong" not in got[2] and "authkey" not in got[2]      # never the secret
