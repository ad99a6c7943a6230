"""collector/events/changes.py: discovery's differences become events (appeared, vanished, state)."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from collector.events import changes
from collector.events.models import Event
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_first_discovery_is_one_event():
    sw = f.switch("asx-ch0")
    before = changes.capture(sw.id)
    f.port(sw, "A1")
    f.port(sw, "A2")
    assert changes.record(before, AT) == 1
    (ev,) = Event.objects.all()
    assert ev.kind == "discovery_added" and "first discovery: 2 ports" in ev.message


def test_state_changes_appearing_and_vanishing():
    sw = f.switch("asx-ch1")
    a1, a2 = f.port(sw, "A1"), f.port(sw, "A2")
    a1.oper_status = "up"
    a1.save()
    vc = f.vc(a1, 0, 100)
    vc.status = "up"
    vc.save()
    before = changes.capture(sw.id)
    a1.oper_status, a1.admin_status = "down", "down"
    a1.save()
    a2.gone_at = AT
    a2.save()
    vc.status = "down"
    vc.save()
    f.port(sw, "B1")
    assert changes.record(before, AT) == 4
    got = {(e.kind, e.port.name if e.port else None): e for e in Event.objects.select_related("port")}
    assert got[("port_state", "A1")].message == "port A1 up -> down (admin down)"
    assert got[("discovery_removed", "A2")].message == "port A2 vanished from the agent"
    assert got[("discovery_added", "B1")].data == {"what": "port"}
    assert got[("vc_state", "A1")].vc_id == vc.id
    # the same discovery recorded again is the same events (idempotent)
    assert changes.record(before, AT) == 4 and Event.objects.count() == 4
    # nothing changed since: nothing recorded
    assert changes.record(changes.capture(sw.id), AT) == 0


def test_many_changes_at_once_are_one_summary_event():
    sw = f.switch("asx-ch2")
    ports = [f.port(sw, f"P{i}") for i in range(changes.BULK + 5)]
    before = changes.capture(sw.id)
    for p in ports:
        p.gone_at = AT
        p.save()
    assert changes.record(before, AT) == 1
    (ev,) = Event.objects.all()
    assert ev.kind == "discovery_removed" and ev.port_id is None and ev.data["count"] == changes.BULK + 5
