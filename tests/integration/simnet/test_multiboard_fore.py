"""A FORE switch with several switch boards (ASX-1000, recording built by simnet/network.py
build_multiboard_network): its ports 1A1, 2A1, 3A1 stay distinct everywhere - the port
table, the plot page's picker (inventory API), CSV headers, `export_csv --port` and URLs - and a
name that could be several ports is an error listing them. Renaming on rediscovery keeps series."""
from __future__ import annotations

import csv
import io
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collector.archive.models import Sample, Series
from collector.inventory.models import Port, Switch
from collector.poller import actions, runner
from simnet.network import build_multiboard_network
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
NAMES = {"1A1", "1A2", "1B1", "1CTL", "2A1", "2A2", "2CTL", "3A1", "3CTL"}


@pytest.fixture(scope="module")
def agent():
    with SimNetwork(make_state_dir("multiboard"), find_free_base_port(1), hosts=False, bind_mgmt=False,
                    network=build_multiboard_network()) as net:
        yield net


@pytest.fixture
def asx1000(agent):
    sw = agent.manifest["switches"][0]
    call_command("add_switch", "--no-check", "asx1000", "127.0.0.1", "--port", str(sw["port"]), "--community",
                 sw["community"], "--profile", "auto", "--interval", "5", stdout=io.StringIO())
    switch = Switch.objects.get(name="asx1000")
    assert actions.discover(switch.id).complete
    for i in range(2):
        if i:
            time.sleep(2)
        assert runner.poll_once(switch.id).ok
    return Switch.objects.get(pk=switch.id)


def test_every_port_is_named_by_its_bnp_and_distinct_everywhere(asx1000, admin_client):
    assert asx1000.switch_type == "ASX-1000"
    assert set(Port.objects.filter(switch=asx1000).values_list("name", flat=True)) == NAMES
    page = admin_client.get("/switches/asx1000/").content.decode()
    assert all(f">{n}<" in page for n in NAMES)
    picker = admin_client.get(f"/traffic/api/inventory/{asx1000.id}").json()
    assert sorted(p["name"] for p in picker["ports"]) == sorted(NAMES)
    out = io.StringIO()
    call_command("export_csv", "--switch", "asx1000", "--port", "2A1", stdout=out)
    header = next(csv.reader(io.StringIO(out.getvalue())))
    assert any("2A1" in h for h in header) and not any("1A1" in h for h in header)
    out = io.StringIO()
    call_command("export_csv", "--switch", "asx1000", "--port", "B1", stdout=out)      # only board 1 has a B1
    assert any("1B1" in h for h in next(csv.reader(io.StringIO(out.getvalue()))))


def test_an_ambiguous_name_is_an_error_listing_the_candidates(asx1000, admin_client):
    with pytest.raises(CommandError, match="ambiguous: it names 1A1, 2A1, 3A1"):
        call_command("export_csv", "--switch", "asx1000", "--port", "A1", stdout=io.StringIO())
    resp = admin_client.get("/switches/asx1000/ports/A1/")
    body = resp.content.decode()
    assert resp.status_code == 404 and "names several ports" in body
    assert all(f"asx1000 {n}" in body for n in ("1A1", "2A1", "3A1")) and "asx1000 1A2" not in body
    plot = admin_client.get("/traffic/port/asx1000/A1/")
    assert plot.status_code == 404 and "ambiguous: it names 1A1, 2A1, 3A1" in plot.content.decode()
    assert admin_client.get("/traffic/port/asx1000/1A1/").status_code == 302
    assert admin_client.get("/switches/asx1000/ports/CTL/").status_code == 404       # three CTL ports
    assert admin_client.get("/switches/asx1000/ports/2CTL/").status_code == 200


def test_renaming_on_rediscovery_keeps_the_series_and_their_history(asx1000):
    # As an older Cellar named them: the board digit dropped, duplicates qualified by port number.
    old = {"1A1": "A1 (port 0)", "2A1": "A1 (port 64)", "3A1": "A1 (port 128)"}
    for new, before in old.items():
        Port.objects.filter(switch=asx1000, name=new).update(name=before, agent_name="A1")
    ids = {p.key: p.id for p in Port.objects.filter(switch=asx1000)}
    series = {s.id: s.port_id for s in Series.objects.filter(switch=asx1000)}
    samples = Sample.objects.filter(switch_id=asx1000.id).count()
    report = actions.discover(asx1000.id)
    assert report.renamed == 3 and "3 ports renamed" in report.summary()
    assert set(Port.objects.filter(switch=asx1000).values_list("name", flat=True)) == NAMES
    assert {p.key: p.id for p in Port.objects.filter(switch=asx1000)} == ids
    assert {s.id: s.port_id for s in Series.objects.filter(switch=asx1000)} == series
    assert Sample.objects.filter(switch_id=asx1000.id).count() == samples
