"""collector/events/traps.py: what a received datagram does, through the real schema."""
from __future__ import annotations

import pytest

from collector.core import snmp_codec as codec
from collector.core.traps import INFORM, SNMP_TRAP_OID, SYS_UPTIME, TRAP_V2
from collector.events import traps
from collector.events.models import Event
from collector.inventory.models import Port, Switch

pytestmark = pytest.mark.django_db


def message(community: bytes, trap_oid: str, varbinds: list[tuple[str, int, object]] = (), pdu=TRAP_V2) -> bytes:
    vbs = [(codec.oid_to_raw(".".join(map(str, SYS_UPTIME))), codec.encode_value(0x43, 4200)),
           (codec.oid_to_raw(".".join(map(str, SNMP_TRAP_OID))), codec.encode_value(0x06, trap_oid))]
    vbs += [(codec.oid_to_raw(o), codec.encode_value(tag, v)) for o, tag, v in varbinds]
    return codec.encode_message(1, community, pdu, 77, 0, 0, vbs)


@pytest.fixture
def sw():
    s = Switch.objects.create(name="ip-sw", address="127.0.0.5", community="sekret", profile="if-mib",
                              detected_profile="if-mib")
    Port.objects.create(switch=s, key="3", if_index=3, name="Gi0/3", oper_status="down", admin_status="up")
    return s


def test_link_up_sets_the_port_and_records_the_change(sw):
    out = traps.handle(message(b"sekret", "1.3.6.1.6.3.1.1.5.4", [("1.3.6.1.2.1.2.2.1.8.3", 0x02, 1)]), "127.0.0.5")
    assert out.kind == "port_state" and out.accepted and not out.inform
    port = Port.objects.get(switch=sw, key="3")
    assert port.oper_status == "up" and port.status_since is not None
    ev = Event.objects.get(kind="port_state")
    assert ev.message == "port Gi0/3 down -> up (linkUp trap)" and ev.data["trap"] == "linkUp"


def test_cold_start_unknown_port_and_informs(sw):
    assert traps.handle(message(b"sekret", "1.3.6.1.6.3.1.1.5.1"), "127.0.0.5").kind == "reboot"
    out = traps.handle(message(b"sekret", "1.3.6.1.6.3.1.1.5.3", [("1.3.6.1.2.1.2.2.1.8.99", 0x02, 2)]), "127.0.0.5")
    assert out.kind == "trap" and "no port with ifIndex 99" in out.message
    inform = traps.handle(message(b"sekret", "1.3.6.1.6.3.1.1.5.1", pdu=INFORM), "127.0.0.5")
    assert inform.inform and inform.accepted


def test_pvc_failures_record_on_the_port_and_rediscover(sw, monkeypatch):
    asked = []
    monkeypatch.setattr(traps, "refresh_soon", asked.append)
    out = traps.handle(message(b"sekret", "1.3.6.1.2.1.37.1.14.2.1.0.1", [
        ("1.3.6.1.2.1.2.2.1.1.3", 0x02, 3), ("1.3.6.1.2.1.37.1.14.1.14.1.22.3", 0x42, 2),
        ("1.3.6.1.2.1.37.1.14.1.14.1.21.3", 0x42, 0)]), "127.0.0.5")
    assert out.kind == "vc_state" and "currently failing: 2 VCs, 0 VPs" in out.message and asked == [sw.id]


@pytest.mark.parametrize("data, src, reason", [
    (b"\x00garbage", "127.0.0.5", "malformed message"),
    (message(b"wrong", "1.3.6.1.6.3.1.1.5.1"), "127.0.0.5", "wrong community for ip-sw"),
    (message(b"sekret", "1.3.6.1.6.3.1.1.5.1"), "127.0.0.66", "unknown agent 127.0.0.66"),
])
def test_rejected_datagrams_are_stored_with_the_reason(sw, data, src, reason):
    out = traps.handle(data, src)
    assert out.kind == "trap_rejected" and reason in out.message
    ev = Event.objects.get(kind="trap_rejected")
    assert reason in ev.data["reason"] and ev.data["agent"] == src and "sekret" not in str(ev.data)


def test_two_switches_accepting_the_same_trap_is_ambiguous(sw):
    Switch.objects.create(name="ip-sw-2", address="127.0.0.5", community="sekret", snmp_port=1161)
    out = traps.handle(message(b"sekret", "1.3.6.1.6.3.1.1.5.1"), "127.0.0.5")
    assert out.kind == "trap_rejected" and "ambiguous: 2 switches" in out.message


def test_a_flood_of_rejected_datagrams_is_counted_not_stored_one_by_one(sw, monkeypatch):
    monkeypatch.setattr(traps, "REJECT_MAX", 5)
    traps.flush_rejects(force=True)
    for _ in range(12):
        assert traps.handle(b"\x30\x00", "127.0.0.77").kind == "trap_rejected"
    assert Event.objects.filter(kind="trap_rejected").count() == 5
    traps.flush_rejects(force=True)
    summary = Event.objects.filter(kind="trap_rejected").order_by("-id").first()
    assert summary.data["suppressed"] == 7 and "7 more datagrams from 127.0.0.77" in summary.message
