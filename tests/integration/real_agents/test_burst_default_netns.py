"""Bursts on a fast, quiet port, found by the default rule: real traffic through a real agent.

net-snmp's snmpd reports the veth `tob` (10 Gb/s; tests/support/snmpd_lab.py), polled every POLL_S
seconds. iperf3 sends 30 Mb/s (0.3 % of the port's capacity) for 60 s, then, after a quiet minute,
for 30 s; the port carries nothing else (its median is 0). With no burst parameter at all, the
plot API finds both: the default rule marks bursts against the series' own behaviour
(numerics/bursts.py), not against 10 % of a capacity the port never approaches. (The data sets'
burst scan takes its median over a UTC day of 1-minute buckets, which a few minutes of traffic
cannot make: tests/collector/runs/test_bursts.py scans such a port over two quiet hours.)
"""
from __future__ import annotations

import io
import time
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.test import Client

from collector.archive.models import Series
from collector.core.isotime import iso, parse_iso
from collector.inventory.models import Port, Switch
from collector.poller import runner
from tests.support.snmpd_lab import B_ADDR, COMMUNITY, IPERF3, IPERF_PORT, SNMP_PORT, iperf_server, snmpd_lab
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.netns, pytest.mark.slow, pytest.mark.timeout(600)]

POLL_S = 5.0
PLAN = [("quiet", 30), ("burst", 60), ("quiet", 60), ("burst", 30), ("quiet", 40)]   # seconds each
RATE = "30M"


def test_two_bursts_of_30_mbps_on_an_idle_10_gbps_port_are_found_by_default(tmp_path):
    spans: list[tuple[float, float]] = []
    with snmpd_lab(tmp_path) as env:
        call_command("add_switch", "quiet-10g", env.agent_addr, "--port", str(SNMP_PORT), "--community", COMMUNITY,
                     "--profile", "if-mib", "--interval", str(int(POLL_S)), "--timeout", "2", "--retries", "1",
                     stdout=io.StringIO())
        switch = Switch.objects.get(name="quiet-10g")
        call_command("discover", switch.name, stdout=io.StringIO())
        port = Port.objects.get(switch=switch, name="tob")
        assert port.speed_bps == 10_000_000_000, port.speed_bps
        first = time.time()
        next_at = first
        for kind, seconds in PLAN:
            sender = None
            if kind == "burst":
                server = iperf_server(env)
                sender = env.lab.spawn(env.a, [IPERF3, "-c", B_ADDR, "-p", str(IPERF_PORT), "-t", str(seconds),
                                               "-b", RATE, "--connect-timeout", "5000"])
                began = time.time()
            phase_end = time.time() + seconds
            while time.time() < phase_end or (sender is not None and sender.poll() is None):
                time.sleep(max(0.0, next_at - time.time()))
                result = runner.poll_once(switch.id)
                assert result.status == "ok", (result.status, result.error)
                next_at += POLL_S
            if sender is not None:
                assert sender.wait(30) == 0
                server.wait(10)
                spans.append((began, time.time()))
        last = time.time()

    out = Series.objects.get(switch=switch, index=port.key, object_name="ifHCOutOctets")
    window = {"start": iso(datetime.fromtimestamp(first - 1, UTC)), "end": iso(datetime.fromtimestamp(last + 1, UTC))}
    viewer = Client()
    viewer.force_login(make_user("researcher", "viewer"))
    body = viewer.get("/traffic/api/data", {"s": out.id, **window, "res": "raw", "points": "0"}).json()
    found = body["series"][0]["bursts"]
    summary = f"iperf3 {spans}; median {found['median']}, threshold {found['threshold']}; bursts {found['bursts']}"
    print(summary)
    assert found["median"] == 0, summary
    assert len(found["bursts"]) == 2, summary
    for b, (a, z) in zip(found["bursts"], spans, strict=True):
        # within two polls of iperf3's start and end (snmpd answers from a cache of the counters)
        assert abs(parse_iso(b["start"]).timestamp() - a) <= 2 * POLL_S, summary
        assert abs(parse_iso(b["end"]).timestamp() - z) <= 2 * POLL_S, summary
        assert body["unit"] == "bps" and 25e6 <= b["mean"] <= 35e6, summary      # 30 Mb/s
