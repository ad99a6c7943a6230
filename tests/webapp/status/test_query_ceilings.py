"""The status pages' SQL statements do not grow with the inventory: each page
is counted with the test network's 3 switches and again with 50 more (ports, hosts attached by
link and by port label, cross-connects, polls), and must stay under the same ceiling. The page
sizes are made small so that the lists (switches, hosts, PVCs) really are cut into pages.

The ceilings include 4 statements of every request (session, user, its role's permissions) and
2 of the statement budget (collector/reader/timelimits.py), 1 the events of the switch and port pages; the
traced pages one per switch-to-switch step of their widest trace (queries.reach), which depends
on the path, not on the inventory.
"""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel
from collector.poller.models import HostCheck, HostState, SwitchHealth
from tests.support.status_network import add_samples, series

pytestmark = pytest.mark.django_db

CEILINGS = {
    "/": 18,
    "/switches/": 13,
    "/switches/?page=2": 13,
    "/switches/fore-a/": 26,
    "/switches/fore-a/ports/A1/": 32,
    "/switches/fore-a/pvcs/": 21,
    "/switches/fore-a/vccs/": 21,
    "/pvcs/": 19,
    "/pvcs/?page=2": 19,
    "/pvcs/?status=up": 19,
    "/hosts/": 12,
    "/hosts/?page=2": 12,
    "/hosts/alpha.example/": 25,                 # + its events (one statement, read.recent)
    "/search/?q=example": 12,
    "/path/?src=alpha&dst=gamma": 30,
    "/path/vc/?switch=fore-b&port=A4&vpi=0&vci=200": 21,
}


@pytest.fixture
def small_pages(monkeypatch):
    from webapp.status.views import connections, dashboard, hosts

    monkeypatch.setattr(dashboard, "SWITCHES_PER_PAGE", 10)
    monkeypatch.setattr(dashboard, "DASHBOARD_ROWS", 5)
    monkeypatch.setattr(dashboard, "PROBLEMS_SHOWN", 5)
    monkeypatch.setattr(hosts, "HOSTS_PER_PAGE", 10)
    monkeypatch.setattr(connections, "PVCS_PER_PAGE", 10)


def add_switches(n: int) -> None:
    """n more switches, each with 4 ports (one down), a host linked to port 1 and one named by
    port 2's label, a cross-connect between two VCs, health and a stored poll."""
    now = timezone.now()
    for i in range(n):
        sw = Switch.objects.create(name=f"more-{i:02d}", address=f"198.51.100.{i + 1}", profile="fore-asx",
                                   detected_profile="fore-asx", switch_type="ASX-200BX", poll_interval_s=15,
                                   uptime_cs=1000, uptime_at=now, discovered_at=now)
        SwitchHealth.objects.create(switch=sw, last_poll_at=now, last_success_at=now, last_status="ok")
        ports = [Port.objects.create(switch=sw, key=str(k), name=f"A{k}", is_atm=True, port_type="OC3",
                                     capacity_cells=353207, oper_status="down" if k == 4 else "up",
                                     admin_status="up", status_since=now,
                                     label=f"more-host-{i}-b.example" if k == 2 else "")
                 for k in range(1, 5)]
        for name in (f"more-host-{i}-a.example", f"more-host-{i}-b.example"):
            h = Host.objects.create(name=name, address=f"198.18.{i}.{1 if name.endswith('a.example') else 2}")
            HostState.objects.create(host=h, reachable=i % 7 != 0, rtt_ms=1.0, method="icmp", checked_at=now,
                                     last_seen_at=now)
            HostCheck.objects.create(host_id=h.id, time=now, reachable=True, rtt_ms=1.0, method="icmp")
            if name.endswith("a.example"):
                Link.objects.create(a_port=ports[0], b_host=h)
        VirtualChannel.objects.create(switch=sw, port=ports[0], vpi=0, vci=100, status="up")
        VirtualChannel.objects.create(switch=sw, port=ports[2], vpi=0, vci=200, status="up")
        CrossConnect.objects.create(switch=sw, kind="vc", in_port=ports[0], in_vpi=0, in_vci=100, out_port=ports[2],
                                    out_vpi=0, out_vci=200, status="up")
        made = [series(sw, "portReceivedCells", p.key, "in", port=p) for p in ports]
        add_samples(sw, [(now, 15000, [1000] * 4, [150] * 4, [0] * 4)], made)


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200, url
    return len(ctx.captured_queries)


def test_status_pages_stay_under_the_same_ceiling_with_50_more_switches(client, network, small_pages):
    small = {url: count(client, url) for url in CEILINGS}
    add_switches(50)
    big = {url: count(client, url) for url in CEILINGS}
    over = {url: (small[url], big[url], limit) for url, limit in CEILINGS.items()
            if small[url] > limit or big[url] > limit}
    assert not over, f"(3 switches, 53 switches, ceiling): {over}"
    assert big == small, big


def test_the_lists_are_cut_into_pages(client, network, small_pages):
    add_switches(50)
    html = client.get("/switches/?page=2").content.decode()
    assert "switches 11–20 of 53 (page 2 of 6)" in html
    assert len(re.findall(r'<a href="/switches/more-\d\d/">', html)) == 10
    html = client.get("/hosts/").content.decode()
    assert "hosts 1–10 of 104" in html
    html = client.get("/pvcs/?page=3").content.decode()
    assert "PVCs 21–30 of" in html
    # a host named by a port label is found attached though the page loads only its candidates
    html = client.get("/hosts/?q=more-host-3-b").content.decode()
    assert "more-03</a> A2" in html and "inferred" in html
    dash = client.get("/").content.decode()
    assert "the first 5 of 53" in dash and "all switches" in dash
    assert re.search(r"Needs attention <span class=\"sub\">\d+</span>", dash)
