"""The network map in Debian's headless chromium, on the simulated network: links drawn
with the utilisation of what the agents count, checked by pixel against the truth of the manifest;
a link's panel lists the VCs that cross it; a traced path is highlighted; an operator's drag is
stored; no console error. Screenshots: /tmp/cellar-shots/map*.png."""
from __future__ import annotations

import io
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.utils import timezone
from PIL import Image

from collector.archive.models import Series
from collector.archive.tiers import floor_time
from collector.inventory.models import MapPosition, Port, Switch
from collector.poller import runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.browser import SHOTS, log_in, watched_page
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
# The colour bands of webapp/topology/static/topology/map.js, as the legend states them.
BANDS = [(0.01, (0x4a, 0x90, 0xd9)), (0.10, (0x2e, 0xb8, 0x2e)), (0.25, (0x9a, 0xcd, 0x32)),
         (0.50, (0xf5, 0xc4, 0x00)), (0.75, (0xff, 0x8c, 0x00)), (1.0001, (0xe0, 0x30, 0x1e))]
KEEP = Path("/work/shots/topology")


def band(util: float) -> tuple[int, int, int]:
    return next(c for limit, c in BANDS if util < limit)


@pytest.fixture(scope="module")
def net():
    with SimNetwork(make_state_dir("map"), find_free_base_port(5), use_netns=False) as network:
        yield network


@pytest.fixture
def seeded(net, settings):
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}

    def seed() -> None:
        # in a thread of its own: Playwright's sync API keeps an event loop running in this one
        try:
            call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), stdout=io.StringIO())
            ids = list(Switch.objects.values_list("id", flat=True))
            for i in range(2):
                if i:
                    time.sleep(3)
                for sid in ids:
                    assert runner.poll_once(sid).ok
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(seed).result()
    return net


def wait_text(page, selector: str, text: str, seconds: float = 10.0) -> str:
    """Poll an element's text (wait_for_function would evaluate a string: the CSP forbids it)."""
    deadline = time.monotonic() + seconds
    while True:
        got = page.inner_text(selector)
        if text in got or time.monotonic() > deadline:
            return got
        page.wait_for_timeout(100)


def truth_rate(manifest: dict, port: Port, direction: str) -> float:
    """The rate the simulated agent counts for a port (manifest), in the unit the map uses."""
    sw = next(s for s in manifest["switches"] if s["name"] == port.switch.name)
    if sw["profile"] == "fore-asx":
        obj, key, value = ("portTransmittedCells" if direction == "out" else "portReceivedCells"), "port", port.name
    else:
        obj, key, value = ("ifHCOutOctets" if direction == "out" else "ifHCInOctets"), "ifindex", port.if_index
    return next(s["rate"] for s in sw["series"] if s["object"] == obj and s["labels"].get(key) == value)


def capacity(port: Port) -> float:
    unit = "cells" if port.switch.detected_profile == "fore-asx" else "octets"
    return Series.objects.filter(port=port, vp__isnull=True, vc__isnull=True, metric=unit).values_list(
        "capacity_per_s", flat=True).first()


def test_the_map_draws_the_traffic_the_agents_count(seeded, browser, live_server):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    log_in(ctx, live_server.url, "operator", "mapper")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/map/")
    page.wait_for_selector("g.edge.switch")
    status = wait_text(page, "#map-status", "links between switches")
    assert "5 switches, 3 links between switches (3 inferred, 0 in conflict)" in status
    shot = SHOTS / "map.png"
    page.locator("#map").screenshot(path=str(shot))
    KEEP.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, KEEP / "map.png")
    image = Image.open(shot).convert("RGB")
    box = page.locator("#map").bounding_box()
    graph = page.evaluate("fetch('/map/api/graph').then(r => r.json())")
    checked = 0
    for edge in (e for e in graph["edges"] if e["kind"] == "switch"):
        a = Port.objects.select_related("switch").get(pk=edge["a_port_id"])
        for direction, truth_dir in (("ab", "out"), ("ba", "in")):
            util = truth_rate(seeded.manifest, a, truth_dir) / capacity(a)
            # the midpoint of the half line, in screenshot pixels
            x, y = page.evaluate("""([id, dir]) => {
                const l = document.querySelector(`g.edge[data-id="${id}"] line.half.${dir}`);
                const m = l.getScreenCTM(), b = document.getElementById('map').getBoundingClientRect();
                const px = (+l.getAttribute('x1') + +l.getAttribute('x2')) / 2;
                const py = (+l.getAttribute('y1') + +l.getAttribute('y2')) / 2;
                return [m.a * px + m.c * py + m.e - b.left, m.b * px + m.d * py + m.f - b.top];
            }""", [edge["id"], direction])
            got = image.getpixel((round(x * image.width / box["width"]), round(y * image.height / box["height"])))
            want = band(util)
            assert all(abs(g - w) <= 12 for g, w in zip(got, want)), (edge["a_port"], direction, util, got, want)
            checked += 1
    assert checked == 6
    # the time slider: two hours ago, from the 15-minute rollup, the trunk sent 90 % of its capacity
    trunk_port = Port.objects.get(pk=next(e["a_port_id"] for e in graph["edges"]
                                          if e["kind"] == "switch" and e["a_port"] == "A4"))
    past = floor_time(timezone.now() - timedelta(hours=2), 900)
    out_sid = Series.objects.get(port=trunk_port, vp__isnull=True, vc__isnull=True, direction="out",
                                metric="cells").id
    with connection.cursor() as cur:
        cur.execute("INSERT INTO traffic_rollup_15m (series_id, bucket, sum_delta, sum_interval_ms, max_rate, "
                    "min_rate, samples, flagged) VALUES (%s, %s, %s, 900000, 0, 0, 60, 0)",
                    [out_sid, past, round(capacity(trunk_port) * 0.9 * 900)])
    page.reload()
    page.wait_for_selector("g.edge.switch")
    wait_text(page, "#map-status", "links between switches")
    page.evaluate("() => { const s = document.getElementById('time-slider'); s.value = 0; "
                  "s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); }")
    assert "15m rollup bucket from" in wait_text(page, "#map-status", "rollup bucket")
    trunk_id = next(e["id"] for e in graph["edges"] if e["kind"] == "switch" and e["a_port"] == "A4")
    assert page.get_attribute(f'g.edge[data-id="{trunk_id}"] line.half.ab', "stroke") == "#e0301e"    # 75-100 %
    page.locator("#map").screenshot(path=str(SHOTS / "map-past.png"))
    shutil.copy(SHOTS / "map-past.png", KEEP / "map-past.png")
    page.click("#time-live")
    assert "latest poll" in wait_text(page, "#map-status", "latest poll")
    # a link's panel: its evidence and the VCs that cross it, with their rates
    trunk = next(e for e in graph["edges"] if e["kind"] == "switch" and e["a_port"] == "A4")
    page.locator(f'g.edge[data-id="{trunk["id"]}"] line.hit').click(force=True)
    page.wait_for_selector("#panel table.vcs")
    panel = page.inner_text("#panel")
    assert "fore-signalling (asx200bx-b, 0.6)" in panel and "0/210" in panel
    from simnet.network import HOUDINI_TO_MAUCHLY, MAUCHLY_TO_HOUDINI

    vcs = {row.split("\t")[0]: float(row.split("\t")[-1].replace(",", ""))
           for row in panel.splitlines() if "0/210" in row}
    assert vcs["asx200bx-b -> asx200bx"] == pytest.approx(MAUCHLY_TO_HOUDINI, rel=0.02)
    assert vcs["asx200bx -> asx200bx-b"] == pytest.approx(HOUDINI_TO_MAUCHLY, rel=0.02)
    page.locator("#panel").screenshot(path=str(SHOTS / "map-link.png"))
    shutil.copy(SHOTS / "map-link.png", KEEP / "map-link.png")
    # the path between two hosts on two switches, highlighted
    page.fill("#path-form input[name=src]", "mauchly")
    page.fill("#path-form input[name=dst]", "houdini")
    page.click("#path-form button[type=submit]")
    page.wait_for_selector(f'g.edge.on-path[data-id="{trunk["id"]}"]')
    assert page.locator("g.node.on-path").count() == 4          # two switches, two hosts
    page.locator("#map").screenshot(path=str(SHOTS / "map-path.png"))
    shutil.copy(SHOTS / "map-path.png", KEEP / "map-path.png")
    # an operator drags a switch: stored, for the next visit
    node = page.locator('g.node[data-id^="switch:"]').first
    node_id = node.get_attribute("data-id")
    nb = node.bounding_box()
    page.mouse.move(nb["x"] + nb["width"] / 2, nb["y"] + nb["height"] / 2)
    page.mouse.down()
    page.mouse.move(nb["x"] + 80, nb["y"] + 40, steps=5)
    page.mouse.up()
    wait_text(page, "#map-status", "stored 1 position")
    assert MapPosition.objects.filter(node=node_id).exists()
    assert errors == []
    ctx.close()


def test_a_map_drawn_around_one_switch_says_what_it_leaves_out(seeded, browser, live_server):
    ctx, page = watched_page(browser, live_server.url, "viewer", "around", {"width": 1500, "height": 1000})
    page.goto(f"{live_server.url}/map/?around=ipsw48&hops=1")
    page.wait_for_selector("g.edge.switch")
    status = wait_text(page, "#map-status", "Drawn:")
    assert "those within 1 link(s) of ipsw48" in status and "choose it above" in status
    assert page.locator('g.node[data-id^="switch:"]').count() == 2          # ipsw48 and ipsw8, its LLDP neighbour
    assert page.locator("#around-form input[name=around]").input_value() == "ipsw48"
    page.screenshot(path=str(SHOTS / "map-around.png"))
    assert page.errors == []
    ctx.close()
