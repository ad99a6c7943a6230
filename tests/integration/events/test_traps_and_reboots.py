"""The trap receiver and the events of a real agent, end to end.

- A simulated FORE switch (snmpsim, simnet) is discovered and polled; the real receiver process
  (`manage.py trapd`) gets real traps from net-snmp's snmptrap: a v2c linkDown turns the port down
  on its status page (HTTP, live server) at once, with no poll or discovery in between, and fires
  a "port not up" alert rule (collector/alerts); a v2c
  inform is answered; an unknown
  OID is stored as an unknown trap; a wrong community and an unknown agent are stored as rejected
  with the reason; a v3 trap with the right user sets a port's state, a wrong user or a wrong key
  is rejected; nothing stops the receiver.
- The agent restarts (its uptime goes back): the next poll records a reboot event, drawn as a
  marker in the plot's JSON and listed on the switch page.
"""
from __future__ import annotations

import json
import shutil
import time
import urllib.request
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from collector.alerts import evaluate
from collector.alerts import rules as alert_rules
from collector.alerts.models import State
from collector.archive.models import PollLog, Series
from collector.events.models import Event
from collector.inventory.models import Port, Switch
from collector.poller import runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support import trap_lab as t
from tests.support.celery_procs import wait_for
from tests.support.simnet_lab import make_state_dir
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
V3 = ["-v3", "-u", "trapper", "-l", "authPriv", "-a", "SHA", "-A", "auth-secret-1", "-x", "AES", "-X",
      "priv-secret-1", "-e", "0x80001f8880c0ffee01"]


@pytest.fixture
def net():
    state = make_state_dir("events")
    network = SimNetwork(state, find_free_base_port(1), hosts=False, switches=["asx200bx"])
    network.start()
    yield network
    network.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def receiver(tmp_path):
    r = t.TrapReceiver(tmp_path)
    yield r
    assert r.stop() == 0, r.tail()


def get(live_server, token: str, path: str) -> str:
    req = urllib.request.Request(live_server.url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.read().decode()


def summary_state(html: str) -> str:
    """The port's state as its page's summary shows it."""
    part = html[html.index('id="port-summary"'):]
    part = part[part.index("<strong><span"):]
    return part[part.index(">", part.index("<span")) + 1:part.index("</span>")]


def events_of(kind: str, **kw) -> list[Event]:
    return list(Event.objects.filter(kind=kind, **kw).order_by("id"))


def test_traps_change_states_at_once_and_bad_ones_are_stored(net, receiver, live_server):
    entry = net.manifest["switches"][0]
    call_command("add_switch", "--no-check", "asx-trap", entry["address"], "--port", str(entry["port"]),
                 "--community", entry["community"], "--profile", "fore-asx", "--interval", "3600")
    sw = Switch.objects.get(name="asx-trap")
    call_command("discover", "asx-trap")
    assert runner.poll_once(sw.id).ok
    port = Port.objects.filter(switch=sw, oper_status="up", if_index__isnull=False).order_by("name").first()
    assert port is not None, list(Port.objects.filter(switch=sw).values_list("name", "oper_status", "if_index"))
    token = tokens.issue(make_user("trap-viewer", "viewer"), "t").plaintext
    page = f"/switches/asx-trap/ports/{port.name}/"
    assert summary_state(get(live_server, token, page)) == "up"
    sw.refresh_from_db()
    polls, discovered = PollLog.objects.filter(switch_id=sw.id).count(), sw.discovered_at

    # v2c linkDown, from the agent's address with its community: the page says down at once
    sent = time.monotonic()
    t.snmptrap(receiver.port, ["-v2c", "-c", entry["community"]], t.LINK_DOWN,
               [f"{t.IF_INDEX}.{port.if_index}", "i", str(port.if_index), f"{t.IF_ADMIN}.{port.if_index}", "i", "1",
                f"{t.IF_OPER}.{port.if_index}", "i", "2"])
    assert wait_for(lambda: summary_state(get(live_server, token, page)) == "down", 10), receiver.tail()
    latency = time.monotonic() - sent
    html = get(live_server, token, page)
    assert "state from a trap at" in html and "up -&gt; down (linkDown trap)" in html
    sw.refresh_from_db()
    assert PollLog.objects.filter(switch_id=sw.id).count() == polls and sw.discovered_at == discovered
    print(f"linkDown trap to 'down' on the port page: {latency:.2f} s")
    (ev,) = events_of("port_state", port=port)
    assert ev.source == "trap" and ev.data["from"] == "up" and ev.data["to"] == "down"
    # the trap's state fires a "port not up" alert (collector/alerts reads Port.oper_status)
    alert_rules.save({"name": "trap port down", "kind": "status", "scope": "object", "object": f"port:{port.id}",
                      "window_minutes": "1"}, [])
    now = timezone.now()
    evaluate.run(now=now)
    evaluate.run(now=now + timedelta(minutes=1))
    assert State.objects.get(rule__name="trap port down").state == "firing"
    assert events_of("alert_firing", port=port)

    # a v2c inform (coldStart): answered (snmptrap -Ci waits for the response, else fails), a reboot event
    t.snmptrap(receiver.port, ["-Ci", "-t", "3", "-r", "0", "-v2c", "-c", entry["community"]], t.COLD_START, [])
    assert wait_for(lambda: events_of("reboot", switch=sw, source="trap"), 10), receiver.tail()

    # an OID no MIB file defines: stored and shown, not dropped
    t.snmptrap(receiver.port, ["-v2c", "-c", entry["community"]], "1.3.6.1.4.1.99999.0.7",
               ["1.3.6.1.4.1.99999.1.1.0", "s", "fan tray 2 removed"])
    assert wait_for(lambda: events_of("unknown_trap", switch=sw), 10), receiver.tail()
    (unknown,) = events_of("unknown_trap", switch=sw)
    assert unknown.data["trap_oid"] == "1.3.6.1.4.1.99999.0.7"
    assert ["1.3.6.1.4.1.99999.1.1.0", "fan tray 2 removed"] in unknown.data["varbinds"]

    # a wrong community, and an agent Cellar does not know: rejected, with the reason
    t.snmptrap(receiver.port, ["-v2c", "-c", "guess"], t.LINK_UP, [])
    t.snmptrap(receiver.port, ["-v2c", "-c", entry["community"]], t.LINK_UP, [], source="127.0.0.99")
    assert wait_for(lambda: len(events_of("trap_rejected")) == 2, 10), receiver.tail()
    wrong, unknown_agent = events_of("trap_rejected")
    assert "wrong community for asx-trap" in wrong.message and "guess" not in json.dumps(wrong.data)
    assert "unknown agent 127.0.0.99" in unknown_agent.message and unknown_agent.data["agent"] == "127.0.0.99"

    # v3: a switch whose agent is 127.0.0.3 with a USM user; right, wrong user, wrong key
    v3 = Switch.objects.create(name="asx-v3", address="127.0.0.3", snmp_version="3", v3_user="trapper",
                               auth_proto="SHA", auth_key="auth-secret-1", priv_proto="AES", priv_key="priv-secret-1",
                               profile="if-mib", detected_profile="if-mib")
    p7 = Port.objects.create(switch=v3, key="7", if_index=7, name="Gi1/0/7", oper_status="up")
    link_down_7 = [f"{t.IF_INDEX}.7", "i", "7", f"{t.IF_OPER}.7", "i", "2"]
    t.snmptrap(receiver.port, V3, t.LINK_DOWN, link_down_7, source="127.0.0.3")
    assert wait_for(lambda: Port.objects.get(pk=p7.pk).oper_status == "down", 10), receiver.tail()
    wrong_user = [("intruder" if a == "trapper" else a) for a in V3]
    t.snmptrap(receiver.port, wrong_user, t.LINK_UP, link_down_7, source="127.0.0.3")
    wrong_key = [("not-the-key" if a == "auth-secret-1" else a) for a in V3]
    t.snmptrap(receiver.port, wrong_key, t.LINK_UP, link_down_7, source="127.0.0.3")
    assert wait_for(lambda: len(events_of("trap_rejected")) == 4, 10), receiver.tail()
    bad_user, bad_key = events_of("trap_rejected")[2:]
    assert "unknown USM user 'intruder'" in bad_user.message
    assert "wrong authentication key" in bad_key.message
    assert Port.objects.get(pk=p7.pk).oper_status == "down"        # the refused linkUps changed nothing
    text = get(live_server, token, "/events/?kind=trap_rejected")
    assert "unknown agent 127.0.0.99" in text and "wrong authentication key" in text
    log = receiver.tail()
    for secret in ("auth-secret-1", "priv-secret-1", entry["community"] + "\n"):
        assert secret not in log
    assert receiver.proc.poll() is None                            # still serving


def test_a_restarted_agent_is_a_reboot_marker_on_the_plot(net, live_server):
    entry = net.manifest["switches"][0]
    call_command("add_switch", "--no-check", "asx-boot", entry["address"], "--port", str(entry["port"]),
                 "--community", entry["community"], "--profile", "fore-asx", "--interval", "5")
    sw = Switch.objects.get(name="asx-boot")
    call_command("discover", "asx-boot")
    assert runner.poll_once(sw.id).ok
    time.sleep(2)
    assert runner.poll_once(sw.id).ok
    assert not events_of("reboot", switch=sw)
    net.restart_agent("asx200bx")
    assert runner.poll_once(sw.id).ok
    (reboot,) = events_of("reboot", switch=sw)
    assert reboot.source == "poll" and "uptime went back" in reboot.message
    token = tokens.issue(make_user("boot-viewer", "viewer"), "t").plaintext
    s = Series.objects.filter(switch=sw, kind="counter", port__isnull=False).order_by("id").first()
    body = json.loads(get(live_server, token, f"/traffic/api/data?s={s.id}&range=1h&figure=1"))
    assert reboot.id in [e["id"] for e in body["events"] if e["kind"] == "reboot"]
    (marks,) = [tr for tr in body["figure"]["data"] if (tr.get("meta") or {}).get("role") == "events"]
    assert reboot.id in marks["meta"]["ids"]
    assert any("agent restarted" in text for text in marks["text"])
    page = get(live_server, token, "/switches/asx-boot/")
    assert 'id="switch-events"' in page and "agent restarted: uptime went back" in page
