"""Events on plots (api/data and the figure), on switch and port pages, the events list and its
filters, notes from the form and the JSON API (operator only, token or session), bad input."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from collector.archive import rollup
from collector.events.models import Event
from collector.events.record import record_event
from tests.support import traffic_factory as f
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def plotted(transactional_db):
    now = rollup.db_now()
    sw, other = f.switch("asx-ev"), f.switch("asx-other")
    a1, a2 = f.port(sw, "A1"), f.port(sw, "A2")
    a1.oper_status = "down"
    a1.save()
    rx, rx2 = f.series(a1, "in"), f.series(a2, "in")
    f.generate(sw, f.layout(sw, [rx, rx2]), now - timedelta(hours=1), now, 15, [40_000, 30_000])
    t = now - timedelta(minutes=30)
    ev = {"reboot": record_event("reboot", at=t, switch_id=sw.id, message="agent restarted", source="poll"),
          "a1": record_event("port_state", at=t + timedelta(minutes=1), switch_id=sw.id, port_id=a1.id,
                             message="port A1 up -> down", source="trap", data={"from": "up", "to": "down"}),
          "a2": record_event("port_state", at=t + timedelta(minutes=2), switch_id=sw.id, port_id=a2.id,
                             message="port A2 up -> down", source="trap"),
          "wrap_rx2": record_event("wrap", at=t, switch_id=sw.id, message="1 counter wrapped", source="poll",
                                   data={"series": [rx2.id], "counters": 1}),
          "other": record_event("reboot", at=t, switch_id=other.id, message="other restarted", source="poll"),
          "global": record_event("note", at=t, message="network maintenance", source="user"),
          "old": record_event("reboot", at=now - timedelta(days=3), switch_id=sw.id, message="long ago", source="poll")}
    return {"sw": sw, "a1": a1, "rx": rx, "ev": ev}


def test_the_plot_marks_the_events_that_touch_its_series(client, plotted):
    client.force_login(make_user("viewer-ev", "viewer"))
    body = client.get(f"/traffic/api/data?s={plotted['rx'].id}&range=3h&figure=1").json()
    got = {e["id"] for e in body["events"]}
    ev = plotted["ev"]
    assert got == {ev["reboot"].id, ev["a1"].id, ev["global"].id}, body["events"]
    (trace,) = [t for t in body["figure"]["data"] if (t.get("meta") or {}).get("role") == "events"]
    assert sorted(trace["meta"]["ids"]) == sorted(got)
    assert any("agent restarted" in text and "reboot" in text for text in trace["text"])
    lines = [s for s in body["figure"]["layout"]["shapes"] if s.get("name", "").startswith("event ")]
    assert len(lines) == 3


def test_switch_and_port_pages_list_their_events(client, plotted):
    client.force_login(make_user("viewer-ev2", "viewer"))
    page = client.get("/switches/asx-ev/").content.decode()
    assert 'id="switch-events"' in page and "agent restarted" in page and "port A2 up -&gt; down" in page
    assert "other restarted" not in page
    assert 'id="note-form"' not in page                      # a viewer posts no note
    port = client.get("/switches/asx-ev/ports/A1/").content.decode()
    assert "port A1 up -&gt; down" in port and "port A2" not in port
    assert "state from a trap at" in port


def test_the_events_list_filters_and_pages(client, plotted):
    client.force_login(make_user("viewer-ev3", "viewer"))
    page = client.get("/events/?kind=reboot&switch=asx-ev").content.decode()
    assert "agent restarted" in page and "long ago" in page and "port A1" not in page
    assert "2 events · page 1 of 1" in page
    bad = client.get("/events/?start=yesterday")
    assert bad.status_code == 400 and "is not an ISO 8601 time" in bad.content.decode()
    assert client.get("/events/?page=0").status_code == 400
    api = client.get("/events/api?kind=port_state&limit=1").json()
    assert len(api["events"]) == 1 and api["events"][0]["kind"] == "port_state"
    assert client.get("/events/api?limit=100000").status_code == 400


def test_notes_from_the_form_and_the_api(client, plotted):
    op = make_user("op-ev", "operator")
    client.force_login(op)
    page = client.get("/switches/asx-ev/ports/A1/").content.decode()
    assert 'id="note-form"' in page
    r = client.post("/events/note", {"text": "fibre swapped", "switch": "asx-ev", "port": "A1",
                                     "next": "/switches/asx-ev/ports/A1/"})
    assert r.status_code == 302 and r["Location"] == "/switches/asx-ev/ports/A1/"
    note = Event.objects.get(kind="note", message="fibre swapped")
    assert (note.port_id, note.actor_id, note.source) == (plotted["a1"].id, op.id, "user")
    client.logout()
    plain = tokens.issue(op, "notes").plaintext
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    r = client.post("/events/api", json.dumps({"text": "test run 3 started", "switch": "asx-ev"}),
                    content_type="application/json", **auth)
    assert r.status_code == 201 and r.json()["source"] == "api" and r.json()["user"] == "op-ev"
    r = client.post("/events/api", json.dumps({"text": "x", "switch": "asx-ev", "port": "Z9"}),
                    content_type="application/json", **auth)
    assert r.status_code == 400 and "Z9" in r.json()["error"]
    r = client.post("/events/api", json.dumps({"text": "  "}), content_type="application/json", **auth)
    assert r.status_code == 400 and "needs text" in r.json()["error"]
    viewer = make_user("viewer-ev4", "viewer")
    vplain = tokens.issue(viewer, "read").plaintext
    r = client.post("/events/api", json.dumps({"text": "hi"}), content_type="application/json",
                    HTTP_AUTHORIZATION=f"Bearer {vplain}")
    assert r.status_code == 403 and "operator" in r.json()["error"]


def _plan_rows(node: dict) -> int:
    """The most rows any node of an EXPLAIN ANALYZE plan produced."""
    return max([int(node["Actual Rows"])] + [_plan_rows(n) for n in node.get("Plans", [])])


def test_the_list_counts_a_large_archive_only_up_to_its_bound(client, plotted):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from collector.events import read

    table, extra = Event._meta.db_table, read.COUNT_MAX + 50 - Event.objects.count()
    with connection.cursor() as cur:
        cur.execute(f"INSERT INTO {table} (at, kind, message, source, data, dedupe, recorded_at) "
                    "SELECT now() - g * interval '1 second', 'note', 'bulk ' || g, 'user', '{}', md5('bulk' || g), "
                    "now() FROM generate_series(1, %s) g", [extra])
    assert Event.objects.count() == read.COUNT_MAX + 50
    client.force_login(make_user("viewer-ev5", "viewer"))
    with CaptureQueriesContext(connection) as seen:
        page = client.get("/events/").content.decode()
    assert f"more than {read.COUNT_MAX:,} events · page 1 of {read.MAX_PAGES}" in page and 'id="events-bound"' in page
    mine = [q["sql"] for q in seen.captured_queries if table in q["sql"]]
    assert len(mine) == 2, mine                            # the bounded count and the page's rows
    with connection.cursor() as cur:                       # no node of the count read past the bound
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + mine[0])
        assert _plan_rows(cur.fetchone()[0][0]["Plan"]) == read.COUNT_MAX + 1
    last = client.get(f"/events/?page={read.MAX_PAGES}").content.decode()
    assert ">newer</a>" in last and ">older</a>" not in last and last.count('class="event-') == read.PER_PAGE
    beyond = client.get(f"/events/?page={read.MAX_PAGES + 1}")
    assert beyond.status_code == 400 and "narrow the filters" in beyond.content.decode()
    exact = client.get("/events/?kind=reboot&switch=asx-ev&page=7").content.decode()
    assert "2 events · page 1 of 1" in exact and 'id="events-bound"' not in exact    # past the last: the last


def test_the_plot_reads_its_events_with_its_series_and_narrows_them_to_its_range(client, plotted):
    """The series statement reads the events over a window a day wider than the plot's range on
    each side: one just before the range is read, and must not be drawn."""
    from django.http import QueryDict

    from collector.reader import reading, selection

    sw, rx = plotted["sw"], plotted["rx"]
    before = record_event("reboot", at=rollup.db_now() - timedelta(hours=3, minutes=10), switch_id=sw.id,
                          message="just before the range", source="poll")
    plan, _ = reading.resolve(selection.parse(QueryDict(f"s={rx.id}&range=3h")), with_events=True)
    assert plan.events_read and before.id not in {m.id for m in plan.events}
    assert {m.id for m in plan.events} == {plotted["ev"][k].id for k in ("reboot", "a1", "global")}


def test_a_full_wider_read_of_events_is_read_again_for_the_range(client, plotted):
    """When the wider read holds MAX_MARKS events and some lie outside the range, older events of
    the range may be missing from it: the plot reads them again, exactly."""
    from collector.events.read import MAX_MARKS

    sw, rx = plotted["sw"], plotted["rx"]
    later = rollup.db_now() + timedelta(hours=2)
    Event.objects.bulk_create([Event(kind="reboot", at=later + timedelta(seconds=i), switch_id=sw.id,
                                     message=f"later {i}", source="poll", data={}, dedupe=f"later-{i}")
                                for i in range(MAX_MARKS)])
    client.force_login(make_user("viewer-ev2", "viewer"))
    body = client.get(f"/traffic/api/data?s={rx.id}&range=3h").json()
    ev = plotted["ev"]
    assert {e["id"] for e in body["events"]} == {ev["reboot"].id, ev["a1"].id, ev["global"].id}
