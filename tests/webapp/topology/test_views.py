"""The map's JSON (webapp/topology): utilisation per direction now and from the rollups, the
bounds of `at`, a link's VCs, the path to highlight, stored positions and their checks."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from collector.archive.tiers import floor_time
from collector.inventory.models import CrossConnect, Host, Link, MapPosition, Port, Switch
from tests.support.status_network import add_samples, series
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
CAP = 353207.0


@pytest.fixture
def lab():
    now = timezone.now()
    a = Switch.objects.create(name="sw-a", address="192.0.2.1", community="x", detected_profile="fore-asx")
    b = Switch.objects.create(name="sw-b", address="192.0.2.2", community="x", detected_profile="fore-asx")
    pa = Port.objects.create(switch=a, key="3", name="A4", agent_name="A4", port_type="OC3", oper_status="up")
    pb = Port.objects.create(switch=b, key="3", name="A4", agent_name="A4", port_type="OC3", oper_status="up")
    h1 = Port.objects.create(switch=a, key="0", name="A1", agent_name="A1", oper_status="up")
    h2 = Port.objects.create(switch=b, key="0", name="A1", agent_name="A1", oper_status="up")
    link = Link.objects.create(a_port=pa, b_port=pb, source="inferred", state="inferred", confidence=0.9,
                               evidence=[{"kind": "lldp", "side": "sw-a", "says": "LLDP", "weight": 0.8}])
    alpha, beta = Host.objects.create(name="alpha", address="192.0.2.11"), Host.objects.create(name="beta",
                                                                                              address="192.0.2.12")
    Link.objects.create(a_port=h1, b_host=alpha)
    Link.objects.create(a_port=h2, b_host=beta)
    CrossConnect.objects.create(switch=a, kind="vc", in_port=h1, in_vpi=0, in_vci=42, out_port=pa, out_vpi=0,
                                out_vci=42, status="up")
    CrossConnect.objects.create(switch=b, kind="vc", in_port=pb, in_vpi=0, in_vci=42, out_port=h2, out_vpi=0,
                                out_vci=42, status="up")
    s_out = series(a, "portTransmittedCells", "3", "out", port=pa)
    s_in = series(a, "portReceivedCells", "3", "in", port=pa)
    for s in (s_out, s_in):
        s.capacity_per_s = CAP
        s.save()
    # two polls 15 s apart: out 88,301.75 cells/s (25 % of OC-3), in 3,532.07 cells/s (1 %)
    add_samples(a, [(now - timedelta(seconds=20), 15000, [1, 1], [1, 1], [0, 0]),
                    (now - timedelta(seconds=5), 15000, [2, 2], [round(CAP * 0.25 * 15), round(CAP * 0.01 * 15)],
                     [0, 0])], [s_out, s_in])
    return {"a": a, "b": b, "link": link, "out": s_out, "in": s_in, "now": now}


@pytest.fixture
def viewer(client):
    client.force_login(make_user("v", "viewer"))
    return client


def test_graph_now_has_the_utilisation_of_each_direction(lab, viewer):
    g = viewer.get("/map/api/graph").json()
    [edge] = [e for e in g["edges"] if e["kind"] == "switch"]
    assert (edge["a_port"], edge["b_port"], edge["known"], edge["confidence"]) == ("A4", "A4", "inferred", 0.9)
    assert edge["ab"]["util"] == pytest.approx(0.25, abs=1e-4) and edge["ba"]["util"] == pytest.approx(0.01, abs=1e-4)
    assert edge["ab"]["unit"] == "cells" and edge["evidence"] == ["lldp"]
    assert {n["name"] for n in g["nodes"]} == {"sw-a", "sw-b", "alpha", "beta"}
    assert all(40 <= n["x"] <= 960 and 40 <= n["y"] <= 660 for n in g["nodes"])
    assert g["source"]["kind"] == "now" and g == viewer.get("/map/api/graph").json() | {"source": g["source"]}


def test_graph_queries_do_not_grow_with_the_network(lab, viewer):
    from django.test.utils import CaptureQueriesContext

    def count() -> int:
        viewer.get("/map/api/graph")            # the layout of this network computed and cached
        with CaptureQueriesContext(connection) as ctx:
            g = viewer.get("/map/api/graph").json()
        assert len(g["edges"]) == edges
        return len(ctx.captured_queries)

    edges = 3
    small = count()
    # ten more switches, each cabled to sw-a and polled, and a host each attached by its port label
    a, now = lab["a"], lab["now"]
    for i in range(10):
        sw = Switch.objects.create(name=f"sw-x{i}", address=f"192.0.2.{50 + i}", community="x")
        far = Port.objects.create(switch=sw, key="1", name="A1", oper_status="up")
        near = Port.objects.create(switch=a, key=str(10 + i), name=f"B{i}", oper_status="up")
        Link.objects.create(a_port=near, b_port=far)
        Port.objects.create(switch=sw, key="2", name="A2", label=f"host-x{i}", oper_status="up")
        Host.objects.create(name=f"host-x{i}", address=f"192.0.2.{100 + i}")
        s_out = series(sw, "portTransmittedCells", "1", "out", port=far)
        add_samples(sw, [(now - timedelta(seconds=5), 15000, [1], [15000], [0])], [s_out])
    edges = 23
    assert count() == small <= 17


def test_graph_at_a_past_time_reads_the_rollup_that_holds_it(lab, viewer):
    at = lab["now"] - timedelta(days=3)
    bucket = floor_time(at, 900)
    with connection.cursor() as cur:       # the 15-minute tier: 900 s of 50 % out, 900 s of 75 % in
        for sid, share in ((lab["out"].id, 0.5), (lab["in"].id, 0.75)):
            cur.execute("INSERT INTO traffic_rollup_15m (series_id, bucket, sum_delta, sum_interval_ms, max_rate, "
                        "min_rate, samples, flagged) VALUES (%s, %s, %s, 900000, 0, 0, 60, 0)",
                        [sid, bucket, round(CAP * share * 900)])
    g = viewer.get(f"/map/api/graph?at={at.isoformat().replace('+00:00', 'Z')}").json()
    [edge] = [e for e in g["edges"] if e["kind"] == "switch"]
    assert edge["ab"]["util"] == pytest.approx(0.5, abs=1e-4) and edge["ba"]["util"] == pytest.approx(0.75, abs=1e-4)
    assert g["source"]["tier"] == "15m" and g["retained"]["oldest"] == bucket.isoformat()
    # a time no tier holds: drawn as unknown, said so
    g = viewer.get(f"/map/api/graph?at={(at - timedelta(days=30)).isoformat().replace('+00:00', 'Z')}").json()
    assert g["source"]["tier"] == "" and all(e["ab"]["util"] is None for e in g["edges"])


@pytest.mark.parametrize("query, message", [
    ("at=yesterday", "at='yesterday' is not an ISO 8601 time"),
    ("at=1980-01-01T00:00:00Z", "is outside the archive"),
    ("at=2999-01-01T00:00:00Z", "is outside the archive"),
    ("around=nosuch", "around=nosuch: no switch of that name"),
    ("hops=0", "hops=0: a number of links from 1 to 6"),
    ("hops=x", "hops=x: a number of links from 1 to 6"),
])
def test_bad_times_centres_and_hops_are_refused_with_the_reason(lab, viewer, query, message):
    r = viewer.get(f"/map/api/graph?{query}")
    assert r.status_code == 400 and message in r.json()["error"]


def test_a_link_lists_its_evidence_and_the_vcs_that_cross_it(lab, viewer):
    d = viewer.get(f"/map/api/links/{lab['link'].id}").json()
    assert d["state"] == "inferred" and d["evidence"][0]["kind"] == "lldp" and d["admin"] is None
    assert [(v["direction"], v["in"], v["out"]) for v in d["vcs"]] == [("sw-a -> sw-b", "A1 0/42", "A4 0/42")]
    assert viewer.get("/map/api/links/999999").status_code == 404


def test_the_path_to_highlight(lab, viewer):
    d = viewer.get("/map/api/path?src=alpha&dst=beta").json()
    assert f"l{lab['link'].id}" in d["edges"] and {f"host:{Host.objects.get(name='alpha').id}"} <= set(d["nodes"])
    assert d["traces"][0]["links"] == "1 link between switches: 1 inferred (confidence 0.90)"
    r = viewer.get("/map/api/path?src=alpha&dst=nobody")
    assert r.status_code == 404 and "no host 'nobody'" in r.json()["error"]


def test_positions_are_checked_and_kept(lab, client):
    client.force_login(make_user("o", "operator"))
    node = f"switch:{lab['a'].id}"
    post = lambda body: client.post("/map/api/positions", json.dumps(body), content_type="application/json")  # noqa: E731
    assert post({"positions": {node: [120, 130]}}).json() == {"saved": 1}
    assert MapPosition.objects.get(node=node).moved_by == "o"
    g = client.get("/map/api/graph").json()
    assert next(n for n in g["nodes"] if n["id"] == node)["x"] == 120
    for body, message in (({"positions": {node: [5000, 1]}}, "outside the map"),
                          ({"positions": {"switch:999999": [1, 1]}}, "no such node: switch:999999"),
                          ({"positions": {"router:1": [1, 1]}}, "a node is switch:<id> or host:<id>"),
                          ({"positions": {node: ["a", 1]}}, "x and y are numbers"),
                          ({"nothing": 1}, "a mapping of node to [x, y]")):
        r = post(body)
        assert r.status_code == 400 and message in r.json()["error"], (body, r.content)


def test_a_network_larger_than_the_map_limit_is_drawn_around_one_switch_and_says_so(lab, viewer, monkeypatch):
    from webapp.topology import graph

    whole = json.loads(viewer.get("/map/api/graph").content)
    assert whole["view"] == {"whole": True, "nodes_total": 4, "shown": 4, "limit": graph.MAP_NODES_MAX}
    monkeypatch.setattr(graph, "MAP_NODES_MAX", 3)            # the test network (4 nodes) is now too large
    g = json.loads(viewer.get("/map/api/graph").content)
    # drawn around the best-connected switch (both have 2 links: the first by name), cut at 3 nodes
    assert g["view"] == {"whole": False, "nodes_total": 4, "shown": 3, "limit": 3, "around": "sw-a", "hops": 2,
                         "cut": True}
    names = {n["name"] for n in g["nodes"]}
    assert len(g["nodes"]) == 3 and {"sw-a", "sw-b", "alpha"} == names   # nearest first, by name within a ring
    drawn = {n["id"] for n in g["nodes"]}
    assert all(e["a"] in drawn and e["b"] in drawn for e in g["edges"]) and len(g["edges"]) == 2
    one = json.loads(viewer.get("/map/api/graph?around=sw-b&hops=1").content)
    assert {n["name"] for n in one["nodes"]} == {"sw-a", "sw-b", "beta"} and one["view"]["around"] == "sw-b"
    assert one["view"]["cut"] is False


def test_the_neighbourhood_is_nearest_first_and_cut_at_the_limit():
    from webapp.topology.graph import neighbourhood

    edges = [("c", "b"), ("c", "a"), ("a", "x"), ("b", "y"), ("y", "z")]
    assert neighbourhood("c", edges, 1, 10) == (["c", "a", "b"], False)
    assert neighbourhood("c", edges, 2, 10) == (["c", "a", "b", "x", "y"], False)
    assert neighbourhood("c", edges, 3, 4) == (["c", "a", "b", "x"], True)
