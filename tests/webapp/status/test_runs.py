"""Run pages over the status network: cells counted per hop against the expected minimum."""
from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from django.test import Client

from collector.runs.models import ExperimentRun
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = pytest.mark.django_db


def make_run(network, **kw) -> ExperimentRun:
    # fore-a stored polls at now-35 s, now-20 s, now-5 s: VC A1 0/100 in counts 12,000 cells in each
    # of the two 15 s intervals (800 cells/s); fore-b A4 0/200 in counts 11,970 in the last one.
    fields = {"name": "ftp alpha-gamma", "start": network["now"] - timedelta(seconds=35),
              "end": network["now"] - timedelta(seconds=5), "src_host": network["alpha"],
              "dst_host": network["gamma"], "bytes_sent": 24_000 * 48}
    return ExperimentRun.objects.create(**{**fields, **kw})


def test_run_page_counts_cells_at_each_hop_with_the_verdict(client, network):
    run = make_run(network)
    html = client.get(f"/runs/{run.id}/").content.decode()
    assert "24,000</strong> cells" in html and "ceil(bytes / 48)" in html
    body = html[html.index('id="hop-counts"'):]
    assert "24,000 – 24,000" in body                      # on poll boundaries: exact
    assert "consistent" in body
    # fore-b's counter has one interval inside the window; its first poll (now-20 s) is FIRST
    assert "11,970 – ?" in body or "11,970 – 11,970" in body


def test_run_page_shows_the_range_when_the_window_falls_between_polls(client, network):
    run = make_run(network, start=network["now"] - timedelta(seconds=30), end=network["now"] - timedelta(seconds=10),
                   bytes_sent=None)
    body = client.get(f"/runs/{run.id}/").content.decode()
    body = body[body.index('id="hop-counts"'):]
    assert "0 – 24,000" in body and "16,000" in body        # both intervals straddle; 20 s of 800 cells/s


def test_missing_cells_are_called_loss(client, network):
    run = make_run(network, bytes_sent=40_000 * 48)
    body = client.get(f"/runs/{run.id}/").content.decode()
    assert "missing" in body[body.index('id="hop-counts"'):]


def test_run_csv_and_list(client, network):
    run = make_run(network)
    r = client.get(f"/runs/{run.id}/accounting.csv")
    lines = r.content.decode().splitlines()
    assert lines[0].startswith("# run ftp alpha-gamma")
    assert lines[1].startswith("# expected minimum cells on ATM (AAL5 cells): 24000 = ceil(bytes / 48)")
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[2:]))))
    first_in = next(x for x in rows if x["hop"] == "1" and x["side"] == "in")
    assert (first_in["switch"], first_in["unit"], first_in["low"], first_in["high"], first_in["verdict"]) == (
        "fore-a", "cells", "24000", "24000", "consistent")
    assert "ftp alpha-gamma" in client.get("/runs/").content.decode()
    assert client.get("/runs/999999/").status_code == 404


def test_creating_a_run_needs_the_operator_role_and_refuses_bad_input(network):
    client = Client()
    r = client.post("/runs/new", {"name": "x"})
    assert r.status_code == 302 and "/login/" in r.url
    client.force_login(make_user("viewer", "viewer"))
    assert client.post("/runs/new", {"name": "x"}).status_code == 403
    client.force_login(make_user("op", "operator"))
    bad = client.post("/runs/new", {"name": "x", "start": "2026-01-02T00:00:00Z", "end": "2026-01-01T00:00:00Z"})
    assert bad.status_code == 400 and "is not after start" in bad.content.decode()
    assert not ExperimentRun.objects.exists()
    ok = client.post("/runs/new", {"name": "ok", "src": "alpha.example", "dst": "gamma.example",
                                   "start": (network["now"] - timedelta(minutes=1)).isoformat()})
    assert ok.status_code == 302
    run = ExperimentRun.objects.get(name="ok")
    assert run.created_by == "op" and run.end is None and ok.url == f"/runs/{run.id}/"


def test_runs_are_shaded_on_plots_they_overlap(client, network):
    run = make_run(network)
    sid = ",".join(str(s) for s in network["sa"].series.values_list("id", flat=True)[:1])
    body = client.get(f"/traffic/api/data?s={sid}&range=1h&figure=1&points=0").json()
    assert [r["name"] for r in body["runs"]] == [run.name]
    layout = body["figure"]["layout"]
    assert any(s.get("name") == "run" for s in layout["shapes"])                      # the band
    assert any(a.get("name") == "run" and a["text"] == run.name for a in layout["annotations"])    # its name


def test_runs_api_lists_creates_and_accounts(client, network):
    run = make_run(network)
    assert [r["name"] for r in client.get("/runs/api").json()["runs"]] == [run.name]
    detail = client.get(f"/runs/api/{run.id}").json()
    assert [(e["unit"], e["value"]) for e in detail["expected"]] == [("cells", 24_000)]
    assert detail["hops"][0]["in"]["cells"]["low"] == 24_000
    assert detail["hops"][0]["in"]["cells"]["verdict"] == "consistent"
    assert Client().post("/runs/api", "{}", content_type="application/json").status_code == 401
    # A script creates runs with an operator's API token: no session, no CSRF token.
    script = Client(enforce_csrf_checks=True)
    viewer = tokens.issue(make_user("reader", "viewer"), "script").plaintext
    refused = script.post("/runs/api", "{}", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {viewer}")
    assert refused.status_code == 403 and "operator" in refused.json()["error"]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(make_user('api', 'operator'), 'script').plaintext}"}
    bad = script.post("/runs/api", '{"name": "y", "src": "nobody"}', content_type="application/json", **auth)
    assert bad.status_code == 400 and "unknown source host 'nobody'" in bad.json()["error"]
    made = script.post("/runs/api", '{"name": "y", "src": "alpha.example", "dst": "gamma.example", '
                                    '"start": "2026-11-24T10:00:00Z", "end": "2026-11-24T10:05:00Z", '
                                    '"bytes_sent": 1000000}', content_type="application/json", **auth)
    assert made.status_code == 201 and made.json()["bytes_sent"] == 1_000_000
    assert ExperimentRun.objects.get(name="y").created_by == "api"
    from collector.audit.models import AuditEvent

    event = AuditEvent.objects.get(object_type="runs.experimentrun", object_repr__contains="y", action="create")
    assert (event.actor_label, event.source) == ("api-token:api/script", "api")


def test_a_pvc_run_follows_the_pvc_and_a_series_run_counts_its_series(client, network):
    from collector.archive.models import Series
    from collector.inventory.models import VirtualChannel

    vc = VirtualChannel.objects.get(switch=network["sa"], port=network["a1"], vpi=0, vci=100)
    pvc_run = make_run(network, name="pvc", src_host=None, dst_host=None, channel=vc)
    body = client.get(f"/runs/{pvc_run.id}/").content.decode()
    hops = body[body.index('id="hop-counts"'):]
    assert "fore-a" in hops and "fore-b" in hops and "24,000 – 24,000" in hops
    series_run = make_run(network, name="series", src_host=None, dst_host=None)
    series_run.series.set([Series.objects.get(switch=network["sa"], object_name="chanCells", index="0.0.100")])
    body = client.get(f"/runs/{series_run.id}/").content.decode()
    counted = body[body.index('id="series-counts"'):]
    assert "24,000 – 24,000" in counted and "consistent" in counted


def test_a_run_longer_than_raw_samples_are_read_for_says_so(client, network):
    run = make_run(network, start=network["now"] - timedelta(days=40))
    r = client.get(f"/runs/{run.id}/")
    assert r.status_code == 400 and "longer than the 31 days" in r.content.decode()
    assert client.get(f"/runs/{run.id}/accounting.csv").status_code == 400
    assert "longer than the 31 days" in client.get(f"/runs/api/{run.id}").json()["error"]


def test_a_script_posts_a_netspec_experiment_with_its_token(network):
    from tests.collector.runs.test_reports import FIGURE_9

    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(make_user('netspec', 'operator'), 'ns').plaintext}"}
    start = network["now"] - timedelta(minutes=10)
    made = Client(enforce_csrf_checks=True).post(
        "/runs/api", json.dumps({"name": "cbr", "src": "alpha.example", "dst": "gamma.example",
                                 "start": start.isoformat(), "report": FIGURE_9}),
        content_type="application/json", **auth)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["bytes_sent"] == 460_800_000 and body["message_size"] == 18432
    assert body["end"] is not None
