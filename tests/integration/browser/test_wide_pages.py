"""Every main page at 1,400 x 900 px with two switches of 60-character names, alerts firing on them
in bits/s, runs close together on a plot: no page is wider than the window and no table reaches past
its right edge (a column cut off or scrolled out of sight is a column an operator does not see).
Screenshots: /tmp/cellar-shots/wide-*.png (and /work/helpers/shots/ when that folder exists)."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.alerts import evaluate, rules
from collector.archive.models import Series
from collector.core.isotime import iso
from collector.events.record import record_event
from collector.inventory.models import Switch
from collector.poller.models import NetworkJob
from collector.runs.models import ExperimentRun
from tests.support.browser import SHOTS, sticking_out, watched_page
from tests.support.status_network import build_network

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]
WIDTH = 1400
LONG = "core-atm-switch-building-42-east-wing-third-floor-rack-17-u3"
LONG_IP = "ip-distribution-switch-building-42-east-wing-floor-3-rack-18"


@pytest.fixture
def net(transactional_db):
    net = build_network()
    Switch.objects.filter(pk=net["sa"].pk).update(name=LONG)
    Switch.objects.filter(pk=net["ip"].pk).update(name=LONG_IP)
    now = net["now"]
    rules.save({"name": "distribution uplinks above 5 Mb/s", "kind": "rate", "scope": "switch", "switch": LONG_IP,
                "unit": "bps", "threshold": "5000000", "recovery": "4000000", "window_minutes": "0"}, [])
    rules.save({"name": "core ports down", "kind": "status", "scope": "switch", "switch": LONG,
                "window_minutes": "0"}, [])
    evaluate.run()
    for k, name in enumerate(("iperf-morning-1", "iperf-morning-2", "iperf-morning-3")):
        ExperimentRun.objects.create(name=name, start=now - timedelta(seconds=50 - 8 * k),
                                     end=now - timedelta(seconds=40 - 8 * k), src_host=net["alpha"],
                                     dst_host=net["gamma"])
    record_event("note", at=now - timedelta(seconds=30), switch_id=net["sa"].id, port_id=net["a1"].id,
                 source="user", message="fibre cleaned on A1 of the long-named switch")
    sid = Series.objects.filter(port=net["a1"], direction="in").values_list("id", flat=True).first()
    net["traffic"] = f"/traffic/?s={sid}&start={iso(now - timedelta(minutes=2))}&end={iso(now + timedelta(seconds=10))}"
    job = NetworkJob.objects.create(kind="check_switch", target=LONG, status="failed", params={}, steps=[
        {"at": iso(now), "state": "info", "text": f"discovering {LONG} at 192.0.2.1:161"},
        {"at": iso(now), "state": "fail", "text": "poll: unreachable: host unreachable: 192.0.2.1:161 does not answer "
                                                  "on its network (from this poller: group default, network namespace "
                                                  "root)"}], error="")
    net["job"] = f"/onboard/jobs/{job.id}/"
    return net


@pytest.fixture
def page(browser, live_server, transactional_db):
    ctx, pg = watched_page(browser, live_server.url, "admin", "wide", {"width": WIDTH, "height": 900})
    yield pg
    ctx.close()


def shot(pg, name: str) -> None:
    path = SHOTS / f"wide-{name}.png"
    pg.screenshot(path=str(path), full_page=True)


PAGES = [
    ("dashboard", "/"), ("hosts", "/hosts/"), ("host", "/hosts/alpha.example/"), ("switches", "/switches/"),
    ("switch", f"/switches/{LONG}/"), ("switch-ip", f"/switches/{LONG_IP}/"), ("port", f"/switches/{LONG}/ports/A1/"),
    ("switch-pvcs", f"/switches/{LONG}/pvcs/"), ("pvcs", "/pvcs/"), ("vccs", f"/switches/{LONG}/vccs/"),
    ("path", "/path/?src=alpha.example&dst=gamma.example"), ("map", "/map/"), ("alerts", "/alerts/"),
    ("events", "/events/"), ("talkers", "/talkers/"), ("groups", "/groups/"), ("bills", "/bills/"),
    ("datasets", "/datasets/"), ("runs", "/runs/"), ("external", "/external/"), ("exports", "/exports/"),
    ("exports-new", "/exports/new"),
    ("me", "/me/"), ("traffic", "{traffic}"), ("onboard", "/onboard/"), ("network-job", "{job}"),
]


@pytest.mark.parametrize("name,url", PAGES, ids=[p[0] for p in PAGES])
def test_page_fits_1400_px_with_a_long_switch_name(page, live_server, net, name, url):
    resp = page.goto(live_server.url + url.format(traffic=net["traffic"], job=net["job"]))
    assert resp.status == 200
    page.wait_for_load_state("networkidle")
    shot(page, name)
    over = sticking_out(page)
    assert over == [], f"{name}: {over}"
    assert page.errors == []


def test_names_of_runs_close_together_are_not_printed_on_top_of_each_other(page, live_server, net):
    page.goto(live_server.url + net["traffic"])
    page.wait_for_function("() => Array.from(document.querySelectorAll('#plot text'))"
                           ".filter(t => t.textContent.startsWith('iperf-morning-')).length >= 3", timeout=20000)
    boxes = page.evaluate("""() => Array.from(document.querySelectorAll('#plot text'))
        .filter(t => t.textContent.startsWith('iperf-morning-'))
        .map(t => { const r = t.getBoundingClientRect();
                    return [t.textContent, r.left, r.top, r.right, r.bottom]; })""")
    assert len(boxes) == 3, boxes
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
            assert apart, f"{a[0]} and {b[0]} are printed on top of each other: {a[1:]} {b[1:]}"
    shot(page, "traffic-runs")
