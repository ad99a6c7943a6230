"""Group and tag pages: the operator's form (check, save, the parser's messages), a group's page and
JSON, deleting (refused while a bill uses it), tags."""
from __future__ import annotations

import pytest

from collector.groups.models import Group, Tag
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def inv():
    sw = f.switch("asx-1")
    a1, b2 = f.port(sw, "A1"), f.port(sw, "B2")
    return {"sw": sw, "a1_in": f.series(a1, "in"), "a1_out": f.series(a1, "out"), "b2_in": f.series(b2, "in"),
            "vc": f.series(a1, "in", channel=f.vc(a1, 0, 100))}


def test_check_then_save_a_group_and_read_it(client, inv):
    form = {"name": "a-ports", "description": "port A1", "series": str(inv["vc"].id),
            "rules": "switch=asx-1 port=A*\n# note\n"}
    r = client.post("/groups/new", form | {"action": "check"})
    assert r.status_code == 200 and "3 member series now: rule 1 matches 2" in r.content.decode()
    assert not Group.objects.exists()
    r = client.post("/groups/new", form | {"action": "save"})
    g = Group.objects.get()
    assert r.status_code == 302 and r.url == f"/groups/{g.id}/"
    page = client.get(r.url).content.decode()
    assert "Plot stacked, with the total" in page and f"/traffic/?g={g.id}" in page and "port=A*" in page
    body = client.get(f"/groups/api/{g.id}").json()
    assert {m["id"] for m in body["members"]} == {inv["a1_in"].id, inv["a1_out"].id, inv["vc"].id}
    assert body["rules"] == [{"text": "switch=asx-1 port=A*", "matches": 2}] and body["static"] == [inv["vc"].id]
    assert [o["kind"] for o in body["objects"]] == ["port", "vc"]
    assert client.get("/groups/api").json()["groups"][0]["name"] == "a-ports"


@pytest.mark.parametrize("form, message", [
    ({"name": "x", "rules": "port"}, "is not key=value"),
    ({"name": "x", "rules": "port=Z*"}, "rule 1 (&#x27;port=Z*&#x27;) matches no series"),
    ({"name": "x", "series": "12 abc"}, "is not a number"),
    ({"name": "x", "series": "999999"}, "unknown counter series id 999999"),
    ({"name": "", "rules": "port=A*"}, "name &#x27;&#x27;"),
    ({"name": "x"}, "choose series or write a rule"),
])
def test_bad_groups_are_refused_on_the_form_with_the_message(client, inv, form, message):
    r = client.post("/groups/new", {"series": "", "rules": "", "action": "save"} | form)
    assert r.status_code == 400 and message in r.content.decode()
    assert not Group.objects.exists()


def test_edit_and_delete(client, inv):
    client.post("/groups/new", {"name": "g", "series": str(inv["b2_in"].id), "rules": "", "action": "save"})
    g = Group.objects.get()
    r = client.post(f"/groups/{g.id}/edit", {"name": "g2", "series": "", "rules": "port=B2", "action": "save"})
    assert r.status_code == 302
    g.refresh_from_db()
    assert g.name == "g2" and list(g.rules.values_list("text", flat=True)) == ["port=B2"]
    from collector.billing.models import Bill

    bill = Bill.objects.create(name="acme", group=g, starts="2026-11-01")
    r = client.post(f"/groups/{g.id}/delete")
    assert r.status_code == 409 and "used by bill acme" in r.content.decode()
    bill.delete()
    assert client.post(f"/groups/{g.id}/delete").status_code == 302 and not Group.objects.exists()


def test_tags(client, inv):
    r = client.post("/groups/tags/add", {"name": "transit", "switch": "asx-1", "port": "A1"})
    assert r.status_code == 302 and Tag.objects.get().port.name == "A1"
    page = client.get("/groups/tags/").content.decode()
    assert "transit" in page and "asx-1 A1" in page
    r = client.post("/groups/tags/add", {"name": "bad tag", "switch": "asx-1"})
    assert r.status_code == 400 and "no spaces" in r.content.decode()
    r = client.post("/groups/tags/add", {"name": "t", "switch": "asx-1", "port": "Z9"})
    assert r.status_code == 400 and "Z9" in r.content.decode()
    assert client.post(f"/groups/tags/{Tag.objects.get().id}/delete").status_code == 302 and not Tag.objects.exists()
