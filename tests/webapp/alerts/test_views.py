"""The alerts page and the operators' forms: states, history, failing destinations, the cost of the
evaluation; refusals shown with their reason; viewers read only."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from collector.alerts import evaluate, rules
from collector.alerts.models import Destination, Notification, Rule, State, Transition
from collector.inventory.models import Switch
from tests.support import traffic_factory as f
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def sw(db):
    sw = f.switch("asx-page")
    port = f.port(sw, "A1")
    port.oper_status = "down"
    port.save()
    f.series(port, "in")
    return sw


def test_page_shows_states_history_cost_and_a_failing_destination(client, sw):
    dest = Destination.objects.create(name="noc-hook", url="json://127.0.0.1:9/hook?token=abc",
                                      failing_since=timezone.now(), last_error="Connection refused")
    rules.save({"name": "ports down", "kind": "status", "scope": "switch", "switch": "asx-page",
                "window_minutes": "0"}, [dest.id])
    evaluate.run()
    page = client.get("/alerts/").content.decode()
    assert "ports down" in page and "asx-page A1" in page and 'class="badge bad">firing' in page
    assert "ok → <strong>firing</strong>" in page
    assert "Last evaluation" in page and " ms</strong> for 1 rules and 1 objects" in page
    assert 'id="failing-' in page and "Connection refused" in page and "1 message waiting" in page
    assert "token=abc" not in page
    assert Notification.objects.get().status == "queued"


def test_rule_form_refuses_with_the_reason_and_saves(client, sw):
    r = client.post("/alerts/rules/new", {"name": "hot", "kind": "rate", "scope": "switch", "switch": "asx-page",
                                          "threshold": "150", "unit": "pct"})
    assert r.status_code == 400 and "150 % is above 100 % of capacity" in r.content.decode()
    r = client.post("/alerts/rules/new", {"name": "hot", "kind": "rate", "scope": "pattern", "pattern": ""})
    assert r.status_code == 400 and "the pattern is empty" in r.content.decode()
    assert not Rule.objects.exists()
    r = client.post("/alerts/rules/new", {"name": "hot", "kind": "rate", "scope": "switch", "switch": "asx-page",
                                          "threshold": "80", "recovery": "70", "unit": "pct", "window_minutes": "5"})
    assert r.status_code == 302 and Rule.objects.get().recovery == 70
    rule = Rule.objects.get()
    assert client.get(f"/alerts/rules/{rule.id}/edit").status_code == 200
    r = client.post(f"/alerts/rules/{rule.id}/action", {"action": "mute", "hours": "2"}, follow=True)
    assert "muted until" in r.content.decode()
    port_id = sw.ports.get().id
    r = client.post(f"/alerts/rules/{rule.id}/action", {"action": "override", "object": f"port:{port_id}",
                                                        "threshold": "120"}, follow=True)
    assert "a threshold of 120 % is above 100 %" in r.content.decode()
    r = client.post(f"/alerts/rules/{rule.id}/action", {"action": "override", "object": f"port:{port_id}",
                                                        "threshold": "95", "recovery": "90"}, follow=True)
    assert f"override port:{port_id}: 95.0 %, recovery 90.0 %" in r.content.decode()


def test_destination_form_and_send_test(client):
    r = client.post("/alerts/destinations/new", {"name": "bad", "url": "nonsense://x"}, follow=True)
    assert "does not parse" in r.content.decode() and not Destination.objects.exists()
    client.post("/alerts/destinations/new", {"name": "hook", "url": "json://127.0.0.1:9/h"})
    dest = Destination.objects.get()
    r = client.post(f"/alerts/destinations/{dest.id}/action", {"action": "test"}, follow=True)
    assert "test notification to hook queued" in r.content.decode()
    assert Notification.objects.get().kind == "test"


def test_ack_with_expiry_and_viewers_read_only(client, sw):
    rules.save({"name": "down", "kind": "status", "scope": "switch", "switch": "asx-page", "window_minutes": "0"}, [])
    evaluate.run()
    state = State.objects.get()
    r = client.post(f"/alerts/states/{state.id}/ack", {"action": "ack", "hours": "9999"}, follow=True)
    assert "0.1 to 720 hours" in r.content.decode()
    client.post(f"/alerts/states/{state.id}/ack", {"action": "ack", "hours": "4", "note": "on it"})
    state.refresh_from_db()
    assert state.ack_until and state.ack_note == "on it"
    assert "acknowledged by tester" in client.get("/alerts/").content.decode()
    viewer = Client()
    viewer.force_login(make_user("v", "viewer"))
    assert viewer.get("/alerts/").status_code == 200
    assert viewer.post(f"/alerts/states/{state.id}/ack", {"action": "unack"}).status_code == 403
    assert "acknowledge</button>" not in viewer.get("/alerts/").content.decode()


def test_mute_an_object_or_its_rule_one_form_one_message(client, sw):
    rule = rules.save({"name": "down", "kind": "status", "scope": "switch", "switch": "asx-page",
                       "window_minutes": "0"}, [])
    evaluate.run()
    state = State.objects.get()

    def badge() -> bool:
        return '<span class="badge muted">muted</span>' in client.get("/alerts/").content.decode()

    assert not badge()
    r = client.post(f"/alerts/states/{state.id}/ack", {"action": "mute", "hours": "2"}, follow=True)
    state.refresh_from_db()
    assert f"asx-page A1: muted until {state.muted_until:%Y-%m-%d %H:%M} UTC" in r.content.decode() and badge()
    r = client.post(f"/alerts/states/{state.id}/ack", {"action": "mute", "hours": "0"}, follow=True)
    assert "asx-page A1: unmuted" in r.content.decode() and not badge()
    r = client.post(f"/alerts/states/{state.id}/ack", {"action": "mute", "hours": "9999"}, follow=True)
    assert "0.1 to 720 hours" in r.content.decode() and not badge()
    client.post(f"/alerts/rules/{rule.id}/action", {"action": "mute", "hours": "1"})
    assert badge()                                          # the rule's mute covers its objects
    r = client.post(f"/alerts/rules/{rule.id}/action", {"action": "mute", "hours": ""}, follow=True)
    assert "rule down: unmuted" in r.content.decode() and not badge()


def test_admin_rule_form_uses_the_same_checks(sw, settings):
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    url = f"/{settings.CELLAR_ADMIN_PATH}alerts/rule/add/"
    form = {"name": "hot", "kind": "rate", "scope": "switch", "switch": str(sw.id), "entity": "port",
            "direction": "both", "unit": "pct", "comparison": "above", "threshold": "101", "mode": "avg",
            "window_minutes": "5", "count": "3", "enabled": "on", "overrides-TOTAL_FORMS": "0",
            "overrides-INITIAL_FORMS": "0"}
    r = admin.post(url, form)
    assert r.status_code == 200 and "101 % is above 100 % of capacity" in r.content.decode()
    assert not Rule.objects.exists()
    r = admin.post(url, form | {"threshold": "90", "recovery": "80"})
    assert r.status_code == 302, r.content.decode()[:3000]
    assert Rule.objects.get().switch_id == sw.id
    r = admin.post(f"/{settings.CELLAR_ADMIN_PATH}alerts/destination/add/", {"name": "x", "url": "bogus"})
    assert "does not parse" in r.content.decode() and not Destination.objects.exists()


def section(page: str, table_id: str) -> str:
    return page.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]


def test_a_deleted_rule_is_retired_its_history_and_outbox_listed_under_its_name(client, sw, settings):
    """The page's delete, the admin's delete and its bulk delete all retire: the rule leaves the rules
    list, its transitions and notifications stay, listed with the rule's name at the time."""
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    dest = Destination.objects.create(name="noc-hook", url="json://127.0.0.1:9/hook")
    made = [rules.save({"name": f"ports down {k}", "kind": "status", "scope": "switch", "switch": "asx-page",
                        "window_minutes": "0"}, [dest.id]) for k in range(3)]
    evaluate.run()
    assert Transition.objects.count() == 3 and Notification.objects.count() == 3
    r = client.post(f"/alerts/rules/{made[0].id}/action", {"action": "delete"}, follow=True)
    assert "rule ports down 0 retired" in r.content.decode()
    base = f"/{settings.CELLAR_ADMIN_PATH}alerts/rule/"
    assert admin.post(f"{base}{made[1].id}/delete/", {"post": "yes"}).status_code == 302
    assert admin.post(base, {"action": "delete_selected", "_selected_action": [str(made[2].id)],
                             "post": "yes"}).status_code == 302
    assert Rule.objects.filter(retired_at__isnull=False).count() == 3
    assert Transition.objects.count() == 3 and Notification.objects.count() == 3
    page = client.get("/alerts/").content.decode()
    assert "ports down" not in section(page, "alert-rules") and "ports down" not in section(page, "alert-states")
    history = section(page, "alert-history")
    for k in range(3):
        assert f"ports down {k} <span class=\"badge muted\">retired</span>" in history
    assert "No transition yet" not in history and section(page, "alert-outbox").count("noc-hook") == 3
    assert client.get(f"/alerts/rules/{made[0].id}/edit").status_code == 404


def test_values_and_thresholds_carry_their_units_with_three_digits(client, sw):
    """1,000,000,000 and 8,000,000 bits/s against 5,000,000: '1.00 Gb/s', '8.00 Mb/s', '5.00 Mb/s'."""
    ip = f.switch("ip-page", profile="if-mib")
    gi = f.port(ip, "Gi1/0/1", is_atm=False, capacity_cells=None, speed_bps=10_000_000_000)
    s_in, s_out = (f.series(gi, d, metric="octets", unit="octets") for d in ("in", "out"))
    now = timezone.now()
    f.insert(ip, f.layout(ip, [s_in, s_out]), [(15, 15_000, [1_875_000_000, 15_000_000], [0, 0])],
             t0=now - timedelta(seconds=30))
    rules.save({"name": "uplinks", "kind": "rate", "scope": "switch", "switch": "ip-page", "unit": "bps",
                "threshold": "5000000", "recovery": "4000000", "window_minutes": "0"}, [])
    Switch.objects.filter(pk=sw.pk).update(created_at=now - timedelta(minutes=10))     # never polled since
    rules.save({"name": "late", "kind": "not_polled", "scope": "switch", "switch": "asx-page", "count": "2"}, [])
    evaluate.run()
    page = client.get("/alerts/").content.decode()
    states, history = section(page, "alert-states"), section(page, "alert-history")
    for table in (states, history):
        assert ">1.00 Gb/s<" in table and ">8.00 Mb/s<" in table and table.count(">5.00 Mb/s<") == 2
        assert ">30 s<" in table and ">600 s<" in table
        assert "1000000000" not in table and "5000000.00" not in table
    assert "latest 1.00 Gb/s" in states
    assert "above 5.00 Mb/s, recovery 4.00 Mb/s" in section(page, "alert-rules")
