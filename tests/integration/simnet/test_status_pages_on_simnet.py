"""End to end on the simulated network: seed, discover, poll twice, then ask the pages.

The path mauchly-atm.ukans -> asx200bx-b A1 0/210 -> A4 0/210 == trunk == asx200bx A4 0/210
-> B4 0/210 -> houdini.tioc crosses two switches (simnet/network.py); its cell rates are known
exactly (MAUCHLY_TO_HOUDINI, HOUDINI_TO_MAUCHLY cells/s).
"""
from __future__ import annotations

import html as htmlmod
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def simnet():
    from simnet.runner import SimNetwork, find_free_base_port

    d = Path(tempfile.mkdtemp(prefix="cellar-simnet-status-", dir="/tmp"))
    os.chmod(d, 0o755)
    net = SimNetwork(d, find_free_base_port(5), use_netns=False)
    net.start()
    try:
        yield net, d
    finally:
        net.stop()
        shutil.rmtree(d, ignore_errors=True)


def text(resp) -> str:
    body = re.sub(r"<[^>]+>", " ", resp.content.decode())
    return htmlmod.unescape(re.sub(r"\s+", " ", body))


@pytest.fixture
def seeded(simnet, settings):
    from collector.inventory.models import Switch
    from collector.poller import runner

    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    net, d = simnet
    call_command("seed_simnet", manifest=str(d / "manifest.json"), wait=20)
    ids = list(Switch.objects.values_list("id", flat=True))
    for sid in ids:
        assert runner.poll_once(sid).ok
    time.sleep(2)
    for sid in ids:
        assert runner.poll_once(sid).ok
    return net


def test_path_across_two_switches_on_the_simulated_network(client, seeded):
    from simnet.network import HOUDINI_TO_MAUCHLY, MAUCHLY_TO_HOUDINI

    resp = client.get("/path/?src=mauchly-atm.ukans&dst=houdini.tioc")
    assert resp.status_code == 200
    t = text(resp)
    assert "mauchly-atm.ukans and houdini.tioc are joined by VC paths in both directions, all hops up" in t
    html = resp.content.decode()
    fwd = text_of(html[html.index('id="forward"'):html.index('id="reverse"')])
    assert re.search(r"1 asx200bx-b A1 \S* ?0/210 A4 \S* ?0/210 VC", fwd), fwd
    assert re.search(r"2 asx200bx A4 \S* ?0/210 B4 \S* ?0/210 VC", fwd), fwd
    rates = [float(x.replace(",", "")) for x in re.findall(r"up ([\d,]+) [\d.]+ [\d.]+ [MGk]", fwd)]
    assert len(rates) == 2 and all(abs(r - MAUCHLY_TO_HOUDINI) / MAUCHLY_TO_HOUDINI < 0.05 for r in rates), fwd
    rev = text_of(html[html.index('id="reverse"'):])
    rrates = [float(x.replace(",", "")) for x in re.findall(r"up ([\d,]+) [\d.]+ [\d.]+ [MGk]", rev)]
    assert len(rrates) == 2 and all(abs(r - HOUDINI_TO_MAUCHLY) / HOUDINI_TO_MAUCHLY < 0.05 for r in rrates), rev


def text_of(fragment: str) -> str:
    return htmlmod.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)))


def test_broken_trunk_says_where_the_path_stops(client, seeded):
    from collector.inventory import topology
    from collector.inventory.models import Link

    trunk = Link.objects.get(a_port__switch__name__in=["asx200bx", "asx200bx-b"], b_port__name="A4")
    topology.decide(trunk.id, "rejected", "test")       # an operator says the agents are wrong
    topology.infer_links()                              # and inference remembers it
    t = text(client.get("/path/?src=mauchly&dst=houdini"))
    assert "No VC path joins mauchly-atm.ukans and houdini.tioc" in t
    assert "leaves asx200bx-b on A4 as 0/210; the inventory does not say what A4 connects to" in t
    assert "suggests switch asx200bx" in t        # the port's name "asx200bx.tioc"


def test_every_page_of_the_simulated_network(client, seeded):
    urls = ["/", "/hosts/", "/switches/", "/pvcs/", "/vccs/", "/path/"]
    for sw in ("asx200bx", "asx200bx-b", "atm2sw", "ipsw48"):
        urls += [f"/switches/{sw}/", f"/switches/{sw}/pvcs/", f"/switches/{sw}/vccs/"]
    urls += ["/switches/asx200bx/ports/A1/", "/switches/ipsw48/ports/Gi1/0/1/", "/switches/atm2sw/ports/atm1/0/0/",
             "/path/vc/?switch=asx200bx&port=A4&vpi=0&vci=210"]
    for url in urls:
        started = time.monotonic()
        resp = client.get(url)
        elapsed = time.monotonic() - started
        assert resp.status_code == 200, url
        assert elapsed < 1.0, f"{url} took {elapsed:.2f} s"
    t = text(client.get("/switches/asx200bx/"))
    assert re.search(r"ASX-200BX switch up 10 days, \d+:\d\d, 17 ports \(\d+ active\), software 3\.0\.1", t), t[:400]
    ports = text(client.get("/switches/asx200bx/"))
    assert "merlin-atm.edc" in ports and "houdini.tioc." in ports
    ilmi = text(client.get("/switches/atm2sw/"))
    assert "asx200bx D1" in ilmi                          # the ILMI neighbour link found by discovery


def test_a_run_on_the_simulated_network_counts_the_known_cells_at_every_hop(client, seeded):
    """A run whose window falls between polls: at both switches of mauchly -> houdini, the range of
    cells counted holds the truth (MAUCHLY_TO_HOUDINI cells/s x the window), and the run page
    judges the bytes the application says it sent consistent with them."""
    from collector.inventory.models import Switch
    from collector.poller import runner
    from collector.runs.models import ExperimentRun
    from numerics.accounting import expected, expected_cells
    from simnet.network import MAUCHLY_TO_HOUDINI
    from webapp.status import hopcount
    from webapp.status import queries as q

    ids = list(Switch.objects.filter(name__in=["asx200bx", "asx200bx-b"]).values_list("id", flat=True))
    polled = []
    for i in range(4):
        if i:
            time.sleep(3)
        for sid in ids:
            result = runner.poll_once(sid)
            assert result.ok
        polled.append(result.result.at)
    from datetime import UTC, datetime
    start = datetime.fromtimestamp(polled[0] + 1.3, UTC)
    end = datetime.fromtimestamp(polled[-1] - 1.1, UTC)
    truth = MAUCHLY_TO_HOUDINI * (end - start).total_seconds()
    sent = int(truth * 48)                                   # full cells: the expected minimum is the truth
    call_command("run", "add", "sc95-test", "--start", start.isoformat(), "--end", end.isoformat(),
                 "--src", "mauchly-atm.ukans", "--dst", "houdini.tioc", "--bytes", str(sent))
    run = ExperimentRun.objects.get(name="sc95-test")
    data = q.load_network(rates=False)
    conn = data.net.connection(data.net.hosts[run.src_host_id], data.net.hosts[run.dst_host_id])
    trace = conn.forward[0]
    hops = hopcount.account(data.net, q.series_index({h.switch.id for h in trace.hops}), trace, start, end,
                            expected=expected("cells", "atm", sent))
    assert [h.hop.switch.name for h in hops] == ["asx200bx-b", "asx200bx"]
    for h in hops:
        c = h.cells_in.count
        assert c is not None and c.high is not None, h
        slack = MAUCHLY_TO_HOUDINI * 0.25                    # when, within a poll, the agent read its counter
        assert c.low - slack <= truth <= c.high + slack, (h.hop.switch.name, c, truth)
        assert abs(c.estimate - truth) / truth < 0.05, (c, truth)
        assert h.cells_in.verdict.word == "consistent", h.cells_in.verdict
    page = text(client.get(f"/runs/{run.id}/"))
    assert "Cells counted at each switch of the VCC path" in page and page.count("consistent") >= 2
    body = client.get(f"/runs/{run.id}/").content.decode()
    assert f"{expected_cells(sent):,}</strong> cells" in body and "ceil(bytes / 48)" in body
