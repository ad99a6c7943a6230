"""Who gets what, for every URL Cellar serves: anonymous, viewer, operator, admin.

TABLE has one row per route of the URL map (the admin site aside: it is one row, its own
checks are Django's). A route added without a row fails test_every_route_has_a_row, so no
view is ever published without its access being decided and tested.
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from collector.archive.models import Series
from collector.groups import edit
from tests.support.users import make_user

ROLES = ("anonymous", "viewer", "operator", "admin")


@dataclass(frozen=True)
class Row:
    route: str                         # the route as the URL map spells it (admin: the prefix)
    url: Callable[[dict], str]         # a real URL of it, from the network fixture
    expect: tuple[int, int, int, int]  # status for anonymous, viewer, operator, admin
    method: str = "get"
    data: Callable[[dict], dict] | None = None


def sid(net) -> int:
    return Series.objects.filter(switch=net["sa"]).order_by("id").values_list("id", flat=True)[0]


RUN_NAMES = itertools.count()


def network_job(net) -> int:
    from collector.poller.models import NetworkJob

    return NetworkJob.objects.create(kind="check_switch", target="fore-a", params={"switch_id": net["sa"].id}).id
READ_PAGE = (302, 200, 200, 200)       # anonymous: to the login page
READ_API = (401, 200, 200, 200)        # anonymous: 401 with WWW-Authenticate
OPERATE = (302, 403, 302, 302)         # checks: done, then back to the page
TABLE = [
    Row("healthz", lambda n: "/healthz", (200, 200, 200, 200)),
    Row("accounts/login/", lambda n: "/accounts/login/", (200, 302, 302, 302)),
    Row("accounts/logout/", lambda n: "/accounts/logout/", (302, 302, 302, 302), "post"),
    Row("accounts/tokens/", lambda n: "/accounts/tokens/", READ_PAGE),
    Row("accounts/tokens/<int:token_id>/revoke", lambda n: "/accounts/tokens/999999/revoke", (302, 404, 404, 404),
        "post"),
    Row("traffic/", lambda n: f"/traffic/?s={sid(n)}", READ_PAGE),
    Row("traffic/export.csv", lambda n: f"/traffic/export.csv?s={sid(n)}&range=1h", READ_API),
    Row("traffic/port/<str:switch>/<str:port>/", lambda n: "/traffic/port/fore-a/A1/", (302, 302, 302, 302)),
    Row("traffic/api/data", lambda n: f"/traffic/api/data?s={sid(n)}&range=1h", READ_API),
    Row("traffic/api/p95", lambda n: f"/traffic/api/p95?s={sid(n)}&range=1h", READ_API),
    Row("traffic/api/series", lambda n: "/traffic/api/series", READ_API),
    Row("traffic/api/inventory", lambda n: "/traffic/api/inventory", READ_API),
    Row("traffic/api/inventory/<int:switch_id>", lambda n: f"/traffic/api/inventory/{n['sa'].id}", READ_API),
    Row("api/openapi.json", lambda n: "/api/openapi.json", READ_API),
    Row("traffic/api/openapi.json", lambda n: "/traffic/api/openapi.json", READ_API),
    # A plot's forms: like the page; saving views and making image links: operators.
    Row("traffic/plot.png", lambda n: f"/traffic/plot.png?s={sid(n)}&range=1h", READ_API),
    Row("traffic/plot.svg", lambda n: f"/traffic/plot.svg?s={sid(n)}&range=1h", READ_API),
    Row("traffic/plot.csv", lambda n: f"/traffic/plot.csv?s={sid(n)}&range=1h", READ_API),
    Row("traffic/plot.json", lambda n: f"/traffic/plot.json?s={sid(n)}&range=1h", READ_API),
    Row("traffic/api/views", lambda n: "/traffic/api/views", (401, 403, 201, 201), "post",
        lambda n: {"query": f"s={sid(n)}&range=1h"}),
    Row("traffic/api/image-links", lambda n: "/traffic/api/image-links", (401, 403, 201, 201), "post",
        lambda n: {"query": f"s={sid(n)}&range=1h"}),
    Row("v/<str:code>", lambda n: f"/v/{n['view'].code}", (302, 302, 302, 302)),
    Row("v/<str:code>.<str:fmt>", lambda n: f"/v/{n['view'].code}.csv", (401, 302, 302, 302)),
    # An image link needs no login (a wiki, a mail): whoever holds it sees that one image.
    Row("i/<str:secret>.<str:fmt>", lambda n: f"/i/{n['image_link']}.png", (200, 200, 200, 200)),
    Row("me/", lambda n: "/me/", READ_PAGE),
    Row("me/image-links/<int:link_id>/revoke", lambda n: "/me/image-links/999999/revoke", (302, 404, 404, 404),
        "post"),
    Row("datasets/", lambda n: "/datasets/", READ_PAGE),
    Row("datasets/api", lambda n: "/datasets/api", READ_API),
    Row("datasets/export.csv", lambda n: "/datasets/export.csv", READ_API),
    Row("", lambda n: "/", READ_PAGE),
    Row("hosts/", lambda n: "/hosts/", READ_PAGE),
    Row("events/", lambda n: "/events/", READ_PAGE),
    Row("events/api", lambda n: "/events/api", READ_API),
    Row("events/note", lambda n: "/events/note", (302, 403, 302, 302), "post",
        lambda n: {"text": f"note {next(RUN_NAMES)}", "switch": "fore-a"}),
    # Adding switches: the page reads; adding and sweeping make network jobs (operators). The jobs are
    # stored here, never run: their task is sent only when the test's transaction would commit.
    Row("onboard/", lambda n: "/onboard/", READ_PAGE),
    Row("onboard/add", lambda n: "/onboard/add", (302, 403, 302, 302), "post",
        lambda n: {"address": "192.0.2.50", "port": 161, "credentials": "typed", "snmp_version": "2c",
                   "community": "x", "poller_group": "default", "profile": "auto"}),
    Row("onboard/sweep", lambda n: "/onboard/sweep", (302, 403, 302, 302), "post",
        lambda n: {"network": "192.0.2.0/28", "poller_group": "default"}),
    Row("onboard/jobs/<int:job_id>/", lambda n: f"/onboard/jobs/{network_job(n)}/", READ_PAGE),
    Row("onboard/jobs/<int:job_id>.json", lambda n: f"/onboard/jobs/{network_job(n)}.json", READ_API),
    Row("runs/", lambda n: "/runs/", READ_PAGE),
    Row("runs/new", lambda n: "/runs/new", (302, 403, 302, 302), "post",
        lambda n: {"name": f"t{next(RUN_NAMES)}", "src": "alpha.example", "dst": "gamma.example"}),
    Row("runs/api", lambda n: "/runs/api", READ_API),
    Row("runs/api/<int:run_id>", lambda n: f"/runs/api/{n['run'].id}", READ_API),
    Row("runs/<int:run_id>/", lambda n: f"/runs/{n['run'].id}/", READ_PAGE),
    Row("runs/<int:run_id>/accounting.csv", lambda n: f"/runs/{n['run'].id}/accounting.csv", READ_API),
    Row("hosts/<path:name>/check", lambda n: "/hosts/alpha.example/check", OPERATE, "post"),
    Row("hosts/<path:name>/", lambda n: "/hosts/alpha.example/", READ_PAGE),
    Row("switches/", lambda n: "/switches/", READ_PAGE),
    Row("switches/<path:name>/ports/<path:port>/", lambda n: "/switches/fore-a/ports/A1/", READ_PAGE),
    Row("switches/<path:name>/check", lambda n: "/switches/fore-a/check", OPERATE, "post"),
    Row("switches/<path:name>/pvcs/", lambda n: "/switches/fore-a/pvcs/", READ_PAGE),
    Row("switches/<path:name>/vccs/", lambda n: "/switches/fore-a/vccs/", READ_PAGE),
    Row("switches/<path:name>/", lambda n: "/switches/fore-a/", READ_PAGE),
    Row("pvcs/", lambda n: "/pvcs/", READ_PAGE),
    Row("vccs/", lambda n: "/vccs/", READ_PAGE),
    Row("path/", lambda n: "/path/?src=alpha.example&dst=gamma.example", READ_PAGE),
    Row("path/vc/", lambda n: "/path/vc/?switch=fore-a&port=A1&vpi=0&vci=100", READ_PAGE),
    Row("search/", lambda n: "/search/?q=fore", READ_PAGE),
    # Background exports: the job belongs to the viewer; others see it only as staff (the admin).
    Row("exports/", lambda n: "/exports/", READ_PAGE),
    # Bulk exports: a viewer exports whatever they may read (the form, the API: small ones at once).
    Row("exports/new", lambda n: "/exports/new", READ_PAGE),
    Row("exports/api/bulk", lambda n: f"/exports/api/bulk?s={sid(n)}&start=1h&format=csv", READ_API),
    Row("exports/<int:job_id>/", lambda n: f"/exports/{n['job'].id}/", (302, 200, 403, 200)),
    Row("exports/<int:job_id>.json", lambda n: f"/exports/{n['job'].id}.json", (401, 200, 403, 200)),
    Row("exports/<int:job_id>/download", lambda n: f"/exports/{n['job'].id}/download", (302, 200, 403, 200)),
    # External series: read like every page; the upload form (GET and POST) needs the operator role.
    Row("external/", lambda n: "/external/", READ_PAGE),
    Row("external/upload", lambda n: "/external/upload", (302, 403, 200, 200)),
    Row("external/<int:series_id>/", lambda n: f"/external/{n['ext'].id}/", READ_PAGE),
    Row("external/<int:series_id>.json", lambda n: f"/external/{n['ext'].id}.json", READ_API),
    Row("external/<int:series_id>.csv", lambda n: f"/external/{n['ext'].id}.csv", READ_API),
    # Analyses: reading is enough to start one; the job (failed, here) belongs to the viewer.
    Row("analysis/", lambda n: f"/analysis/?s={sid(n)}", READ_PAGE),
    Row("analysis/run", lambda n: "/analysis/run", (302, 303, 303, 303), "post", lambda n: {"s": sid(n)}),
    Row("analysis/api/jobs", lambda n: "/analysis/api/jobs", (401, 202, 202, 202), "post", lambda n: {"s": sid(n)}),
    Row("analysis/jobs/<int:job_id>/", lambda n: f"/analysis/jobs/{n['analysis'].id}/", (302, 200, 403, 200)),
    Row("analysis/api/jobs/<int:job_id>", lambda n: f"/analysis/api/jobs/{n['analysis'].id}", (401, 200, 403, 200)),
    Row("analysis/jobs/<int:job_id>/results.csv", lambda n: f"/analysis/jobs/{n['analysis'].id}/results.csv",
        (401, 409, 403, 409)),
    # Top talkers: read like every page; the page, JSON and CSV are rate-limited as expensive.
    Row("talkers/", lambda n: "/talkers/?range=1h", READ_PAGE),
    Row("talkers/api", lambda n: "/talkers/api?range=1h", READ_API),
    Row("talkers/export.csv", lambda n: "/talkers/export.csv?range=1h", READ_API),
    # Groups and tags: read like every page; operators make, change and delete them (a bill's group: admins).
    Row("groups/", lambda n: "/groups/", READ_PAGE),
    Row("groups/new", lambda n: "/groups/new", (302, 403, 200, 200)),
    Row("groups/<int:group_id>/", lambda n: f"/groups/{n['group'].id}/", READ_PAGE),
    Row("groups/<int:group_id>/edit", lambda n: f"/groups/{n['free_group'].id}/edit", (302, 403, 200, 200)),
    Row("groups/<int:group_id>/delete", lambda n: "/groups/999999/delete", (302, 403, 404, 404), "post"),
    Row("groups/tags/", lambda n: "/groups/tags/", READ_PAGE),
    Row("groups/tags/add", lambda n: "/groups/tags/add", (302, 403, 400, 400), "post",
        lambda n: {"name": "transit", "switch": "no-such-switch"}),
    Row("groups/tags/<int:tag_id>/delete", lambda n: "/groups/tags/999999/delete", (302, 403, 404, 404), "post"),
    Row("groups/api", lambda n: "/groups/api", READ_API),
    Row("groups/api/<int:group_id>", lambda n: f"/groups/api/{n['group'].id}", READ_API),
    # Bills: read like every page; making, changing and deleting one needs the admin role (money);
    # operators may ask the worker to compute the estimates now.
    # Alerts: viewers read; operators acknowledge, mute, edit rules and destinations.
    Row("alerts/", lambda n: "/alerts/", READ_PAGE),
    Row("alerts/states/<int:state_id>/ack", lambda n: "/alerts/states/999999/ack", (302, 403, 404, 404), "post"),
    Row("alerts/rules/new", lambda n: "/alerts/rules/new", (302, 403, 200, 200)),
    Row("alerts/rules/<int:rule_id>/edit", lambda n: "/alerts/rules/999999/edit", (302, 403, 404, 404)),
    Row("alerts/rules/<int:rule_id>/action", lambda n: "/alerts/rules/999999/action", (302, 403, 404, 404), "post"),
    Row("alerts/destinations/new", lambda n: "/alerts/destinations/new", (302, 403, 302, 302), "post",
        lambda n: {"name": f"d{next(RUN_NAMES)}", "url": "json://127.0.0.1:9/hook"}),
    Row("alerts/destinations/<int:destination_id>/save", lambda n: "/alerts/destinations/999999/save",
        (302, 403, 404, 404), "post"),
    Row("alerts/destinations/<int:destination_id>/action", lambda n: "/alerts/destinations/999999/action",
        (302, 403, 404, 404), "post"),
    Row("bills/", lambda n: "/bills/", READ_PAGE),
    Row("bills/new", lambda n: "/bills/new", (302, 403, 403, 200)),
    Row("bills/<int:bill_id>/", lambda n: f"/bills/{n['bill'].id}/", READ_PAGE),
    Row("bills/<int:bill_id>/edit", lambda n: f"/bills/{n['bill'].id}/edit", (302, 403, 403, 200)),
    Row("bills/<int:bill_id>/delete", lambda n: "/bills/999999/delete", (302, 403, 403, 404), "post"),
    Row("bills/<int:bill_id>/refresh", lambda n: f"/bills/{n['bill'].id}/refresh", (302, 403, 302, 302), "post"),
    Row("bills/<int:bill_id>/periods.csv", lambda n: f"/bills/{n['bill'].id}/periods.csv", READ_API),
    Row("bills/<int:bill_id>/periods/<int:period_id>.csv",
        lambda n: f"/bills/{n['bill'].id}/periods/{n['period'].id}.csv", READ_API),
    Row("bills/api", lambda n: "/bills/api", READ_API),
    Row("bills/api/<int:bill_id>", lambda n: f"/bills/api/{n['bill'].id}", READ_API),
    # The network map: read like every page; moving nodes needs the operator role.
    Row("map/", lambda n: "/map/", READ_PAGE),
    Row("map/api/graph", lambda n: "/map/api/graph", READ_API),
    Row("map/api/links/<int:link_id>", lambda n: f"/map/api/links/{n['trunk'].id}", READ_API),
    Row("map/api/path", lambda n: "/map/api/path?src=alpha.example&dst=gamma.example", READ_API),
    Row("map/api/positions", lambda n: "/map/api/positions", (401, 403, 200, 200), "post",
        lambda n: {"positions": json.dumps({f"switch:{n['sa'].id}": [100, 120]})}),
    # Prometheus scrapes (webapp/metrics): off by default, so a reader gets 404; an anonymous caller from an
    # address outside CELLAR_PROMETHEUS_SCRAPERS gets 401 first (tests/webapp/metrics/test_views.py: switched on).
    Row("metrics/counters", lambda n: "/metrics/counters", (401, 404, 404, 404)),
    # The admin site: staff only (admins); everyone else is sent to its login.
    Row("admin/", lambda n: "/admin/", (302, 302, 302, 200)),
]


def routes(resolver: URLResolver | None = None, prefix: str = "") -> list[str]:
    """Every route of the URL map, the admin site as its prefix only."""
    resolver = resolver or get_resolver()
    found: list[str] = []
    for p in resolver.url_patterns:
        here = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            if getattr(p, "app_name", None) == "admin" or getattr(p, "namespace", None) == "admin":
                found.append(here)
            else:
                found += routes(p, here)
        elif isinstance(p, URLPattern):
            found.append(here)
    return found


def test_every_route_has_a_row():
    missing = sorted(set(routes()) - {r.route for r in TABLE})
    stale = sorted({r.route for r in TABLE} - set(routes()))
    assert not missing, f"routes without an access row in {__file__}: {missing}"
    assert not stale, f"rows for routes that no longer exist: {stale}"


@pytest.fixture
def world(network, monkeypatch, tmp_path):
    from collector.poller import actions
    from collector.runs.models import ExperimentRun

    # "Check now" of a switch would send SNMP to the fixture's documentation addresses (off this
    # machine): the check itself is replaced here, the access decision before it is what is tested.
    monkeypatch.setattr(actions, "check_switch", lambda switch_id: actions.SwitchCheck(
        discovered=True, discovery="(not run in this test)", poll_status="ok"))
    network["run"] = ExperimentRun.objects.create(name="r", start=network["now"], created_by="t")
    users = {"anonymous": None, "viewer": make_user("v", "viewer"), "operator": make_user("o", "operator"),
             "admin": make_user("a", "admin")}
    network["job"] = finished_export(users["viewer"], tmp_path)
    network["ext"] = external_series()
    network["analysis"] = failed_analysis(users["viewer"])
    network["group"], network["bill"], network["period"] = billed_group(network)
    network["free_group"] = edit.save(edit.spec_from("fore-a-free", [sid(network)], []))
    from webapp.personal import links

    network["view"] = links.save_view(f"s={sid(network)}&range=1h", users["operator"])
    network["image_link"] = links.mint(users["operator"], f"s={sid(network)}&range=1h").secret
    return network, users


def external_series():
    from collector.external import imports

    spec = imports.SeriesSpec("sprint-cells", "cells", 900, source="Sprint")
    return imports.import_csv("2026-11-20T00:00:00Z,900\n2026-11-20T00:15:00Z,1800\n", spec).series


def finished_export(owner, tmp_path):
    from collector.exports.models import ExportJob

    path = tmp_path / "export.csv"
    path.write_text("time,x\n")
    return ExportJob.objects.create(owner=owner, selection="s=1", filename="export.csv", header="time,x",
                                    copy_sql="SELECT 1", copy_params={}, expected_rows=1, rows_written=1,
                                    status=ExportJob.Status.DONE, path=str(path))


def billed_group(network):
    """A group of one series of the fixture, a bill on it and one stored (open) period."""
    from collector.billing.models import Bill, Period

    group = edit.save(edit.spec_from("fore-a-one", [sid(network)], []))
    bill = Bill.objects.create(name="acme", group=group, starts=network["now"].date())
    period = Period.objects.create(
        bill=bill, start=network["now"], end=network["now"], zone="UTC", computed_at=network["now"],
        as_of=network["now"], mode="p95", direction="max", sample_interval_s=300, series_ids=[sid(network)],
        intervals=1, measured=1, measured_in=1, measured_out=0, p95_in_bps=8.0, p95_bps=8.0, volume_in_bytes=300,
        volume_out_bytes=0, volume_bytes=300, bins_in=[300.0], bins_out=[0.0], measured_in_s=[300.0],
        measured_out_s=[0.0])
    return group, bill, period


def failed_analysis(owner):
    from collector.analysis.models import AnalysisJob

    return AnalysisJob.objects.create(owner=owner, selection="s=1", status=AnalysisJob.Status.FAILED,
                                      error="the longest usable stretch has 12 points")


@pytest.mark.parametrize("row", TABLE, ids=[r.route or "/" for r in TABLE])
def test_who_gets_what(world, row):
    network, users = world
    url = row.url(network)
    for role, expected in zip(ROLES, row.expect):
        client = Client()
        if users[role] is not None:
            client.force_login(users[role])
        data = row.data(network) if row.data else {}
        r = getattr(client, row.method)(url, data)
        if r.streaming:     # a CSV stream holds its query (and this thread's connection) until read
            b"".join(r.streaming_content)
        assert r.status_code == expected, f"{role} {row.method.upper()} {url}: {r.status_code}, expected {expected}"
        if role == "anonymous" and expected == 302 and row.route not in ("accounts/logout/",):
            assert "login" in r.url, f"anonymous {url} is sent to {r.url}, not to a login page"
        if expected == 401:
            assert r["WWW-Authenticate"].startswith("Bearer") and "log in" in r.json()["error"]


def test_a_group_that_a_bill_uses_is_changed_by_admins_only(world):
    network, users = world
    url = f"/groups/{network['group'].id}/edit"
    for role, expected in (("operator", 403), ("admin", 200)):
        client = Client()
        client.force_login(users[role])
        r = client.get(url)
        assert r.status_code == expected, role
    client = Client()
    client.force_login(users["operator"])
    assert "changing it changes what is billed" in client.post(url, {"name": "x"}).content.decode()


def test_a_user_without_a_role_reads_nothing(network):
    client = Client()
    client.force_login(make_user("nobody", None))
    assert client.get("/").status_code == 403
    assert client.get("/traffic/api/series").status_code == 403


def test_anonymous_read_when_the_setting_is_on(network, settings):
    settings.CELLAR_ANONYMOUS_READ = True
    client = Client()
    assert client.get("/switches/").status_code == 200
    assert client.get("/traffic/api/series").status_code == 200
    r = client.post("/hosts/alpha.example/check")      # reading only: checks still need a login
    assert r.status_code == 302 and "login" in r.url
