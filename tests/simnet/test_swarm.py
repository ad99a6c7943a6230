"""The swarm agent (simnet/swarm.py) looks like a real agent to net-snmp's tools and to the poller."""
from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from collector.core import snmp_codec as codec
from collector.core.poll import poll_switch
from collector.core.profiles import get_profile
from collector.core.snmp import SnmpSession
from collector.core.snmp_types import SnmpTarget
from simnet import swarm


@pytest.fixture(scope="module")
def agent() -> Iterator[int]:
    # Never skipped: make test installs net-snmp; without it these tests fail loudly.
    assert shutil.which("snmpbulkwalk"), "net-snmp's snmpbulkwalk is not installed (make test installs it)"
    proc = subprocess.Popen([sys.executable, "-m", "simnet.swarm", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r":(\d+)$", line.strip())
        assert m, f"swarm did not start: {line!r}"
        yield int(m.group(1))
    finally:
        proc.terminate()
        proc.wait(10)


def _walk(port: int, community: str, oid: str, *, version: str = "2c") -> list[tuple[str, str]]:
    tool = "snmpbulkwalk" if version == "2c" else "snmpwalk"
    out = subprocess.run([tool, f"-v{version}", "-c", community, "-On", "-Oe", f"127.0.0.1:{port}", oid],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    return [tuple(line.split(" = ", 1)) for line in out.splitlines()     # type: ignore[misc]
            if " = " in line and "No more variables" not in line]


def _objects(mib: dict, prefix: str) -> list[str]:
    oids = [o for o in mib if o.startswith(prefix + ".")]
    return ["." + o for o in sorted(oids, key=lambda o: tuple(map(int, o.split("."))))]


@pytest.mark.parametrize("community, mib", [("ip48", swarm.ip_switch()), ("atm300", swarm.atm_switch(300))])
def test_snmpbulkwalk_sees_every_object_in_order(agent, community, mib):
    got = _walk(agent, community, "1.3.6")
    assert [o for o, _ in got] == _objects(mib, "1.3.6")
    counters = dict(got)
    assert counters["." + swarm.IFX + ".6.3"].startswith("Counter64: ")


def test_snmpv1_walk_steps_over_counter64_and_get_reports_no_such_name(agent):
    got = _walk(agent, "ip48", swarm.IFX, version="1")
    assert got and not any(v.startswith("Counter64") for _, v in got)
    assert len(got) == 4 * swarm.IP_PORTS           # ifName, ifHighSpeed, ifAlias, discontinuity
    res = subprocess.run(["snmpget", "-v1", "-c", "ip48", f"127.0.0.1:{agent}", "1.3.6.1.2.1.1.9.0"],
                         capture_output=True, text=True, timeout=10)
    assert "noSuchName" in res.stdout + res.stderr


def test_unknown_community_gets_silence(agent):
    res = subprocess.run(["snmpget", "-v2c", "-t", "0.3", "-r", "0", "-c", "nope", f"127.0.0.1:{agent}",
                          "1.3.6.1.2.1.1.3.0"], capture_output=True, text=True, timeout=10)
    assert "Timeout" in res.stdout + res.stderr


async def _poll(port: int, community: str, profile: str):
    async with SnmpSession(SnmpTarget("127.0.0.1", port=port, community=community)) as s:
        return await poll_switch(s, 1, get_profile(profile), "2c")


@pytest.mark.parametrize("community, profile, counters", [
    ("ip48", "if-mib", 8 * swarm.IP_PORTS),
    # ports (octets, errors and discards, in and out), VPs (16 x 4: cells in, out, discards), VCs
    ("atm1000", "atm2", 6 * swarm.ATM_PORTS + 3 * 64 + 5 * 1000),
])
def test_the_poller_reads_every_counter_at_its_rate(agent, community, profile, counters):
    first = asyncio.run(_poll(agent, community, profile))
    assert not first.missing_columns and not first.rejected
    assert len(first.readings) == counters
    time.sleep(2.1)
    second = asyncio.run(_poll(agent, community, profile))
    assert second.uptime_cs - first.uptime_cs in range(200, 600)
    key = ("ifHCInOctets", "7") if profile == "if-mib" else ("atmVclStatTotalCellIns", "8.1.32")
    # The agent answers from whole seconds of its clock, each request of a poll from the second it
    # arrives in: under load a poll's uptime and its counters can come from neighbouring seconds (a
    # rate over uptime read 2/3 of the truth). So the counter alone: it advanced by exactly the
    # known rate times a whole number of seconds, the 2.1 s slept and the polls' own time.
    expected = swarm.port_rate(7) if profile == "if-mib" else swarm.vc_rate(7)
    seconds = (second.readings[key].value - first.readings[key].value) / expected
    assert seconds == round(seconds) and 2 <= seconds <= 5, seconds


def test_getbulk_answers_fit_a_datagram():
    kind = swarm.Kind(swarm.atm_switch(2000))
    names = (codec.oid_to_raw(swarm.VCL_STAT + ".1"), codec.oid_to_raw(swarm.VCL_STAT + ".5"))
    status, _, vbl = kind.answer(1, codec.GETBULK, names, 0, 250, 100.0)
    assert status == 0 and 1000 < len(vbl) <= swarm.MAX_RESPONSE + 200
