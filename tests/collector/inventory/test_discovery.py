"""collector/inventory/discovery.py keeps history: what vanishes from the agent is marked gone, never deleted."""
from __future__ import annotations

import pytest

from collector.core.snapshot import (
    ChannelInfo,
    CrossConnectInfo,
    PathInfo,
    PortInfo,
    Snapshot,
)
from collector.inventory.discovery import apply_snapshot
from collector.inventory.models import CrossConnect, Port, Switch, VirtualChannel, VirtualPath

pytestmark = pytest.mark.django_db


def _snapshot(ports=("0", "1"), vcs=((0, 0, 100), (1, 0, 100))) -> Snapshot:
    return Snapshot(
        ports=[PortInfo(key=k, name=f"A{int(k) + 1}", oper_status="up", capacity_cells=353_207) for k in ports],
        paths=[PathInfo(port_key=str(p), vpi=v) for p, v, _ in vcs],
        channels=[ChannelInfo(port_key=str(p), vpi=v, vci=c) for p, v, c in vcs],
        cross_connects=[CrossConnectInfo("vc", "0", 0, 100, "1", 0, 100)] if len(ports) > 1 else [])


def test_vanished_entities_are_marked_gone_and_come_back():
    switch = Switch.objects.create(name="gone-test", address="127.0.0.1", detected_profile="fore-asx")
    first = apply_snapshot(switch, _snapshot())
    assert first.counts == {"ports": 2, "VPs": 2, "VCs": 2, "cross-connects": 1}
    # Port A2 (key 1) and its VC disappear from the agent.
    second = apply_snapshot(switch, _snapshot(ports=("0",), vcs=((0, 0, 100),)))
    assert second.gone == {"ports": 1, "VPs": 1, "VCs": 1, "cross-connects": 1}
    a2 = Port.objects.get(switch=switch, key="1")
    assert a2.gone_at is not None                        # kept, with its history
    assert Port.objects.filter(switch=switch).present().count() == 1
    assert CrossConnect.objects.get(switch=switch).gone_at is not None
    # It comes back: the same rows, no longer gone.
    apply_snapshot(switch, _snapshot())
    a2.refresh_from_db()
    assert a2.gone_at is None and Port.objects.filter(switch=switch).count() == 2
    assert VirtualChannel.objects.filter(switch=switch, gone_at__isnull=True).count() == 2
    assert VirtualPath.objects.filter(switch=switch).count() == 2


def test_a_table_that_failed_keeps_what_it_would_have_told_and_marks_nothing_gone():
    switch = Switch.objects.create(name="part", address="127.0.0.1", detected_profile="if-mib")
    snap = Snapshot(ports=[PortInfo(key="1", name="eth0", label="uplink", speed_bps=10**9, oper_status="up"),
                           PortInfo(key="2", name="eth1", label="spare", speed_bps=10**9, oper_status="up")])
    apply_snapshot(switch, snap)
    # ifXTable times out: names, aliases and high speeds would come back blank; port 2 is not listed.
    blank = Snapshot(ports=[PortInfo(key="1", name="eth0 descr", label="", speed_bps=None, oper_status="down")])
    report = apply_snapshot(switch, blank, failed={"ifName", "ifAlias", "ifHighSpeed"},
                            failures=["ifName ... (1.3.6.1.2.1.31.1.1.1): no response"])
    assert not report.complete and "NOT WALKED: ifName" in report.summary()
    p1 = Port.objects.get(switch=switch, key="1")
    assert (p1.name, p1.label, p1.oper_status) == ("eth0", "uplink", "down")   # ifTable's own fields updated
    assert p1.speed_bps == 10**9                     # comes from ifSpeed/ifHighSpeed: kept
    assert Port.objects.get(switch=switch, key="2").gone_at is not None      # the port table itself answered
    # The port table itself failing: nothing is touched.
    report = apply_snapshot(switch, Snapshot(), failed={"ifDescr", "ifType"}, failures=["ifDescr ...: timeout"])
    assert report.counts == {} and Port.objects.get(switch=switch, key="1").gone_at is None


def test_values_are_fitted_to_their_columns_not_refused():
    switch = Switch.objects.create(name="fit", address="127.0.0.1", detected_profile="if-mib")
    snap = Snapshot(ports=[PortInfo(key="1", name="x" * 300, label="y" * 400, if_index=1, max_vpcs=2**40,
                                    speed_bps=10**9)])
    report = apply_snapshot(switch, snap)
    p = Port.objects.get(switch=switch, key="1")
    assert len(p.name) == 255 and len(p.label) == 255 and p.max_vpcs is None and report.fitted == 3


def test_duplicate_agent_names_are_named_with_their_ifindex_and_a_rediscovery_keeps_them():
    switch = Switch.objects.create(name="dup", address="127.0.0.1", detected_profile="if-mib")
    snap = Snapshot(ports=[PortInfo(key=str(i), name=n, if_index=i) for i, n in ((1, "lo0"), (2, "em0"), (16, "lo0"))])
    apply_snapshot(switch, snap)
    names = dict(Port.objects.filter(switch=switch).values_list("key", "name"))
    assert names == {"1": "lo0 (ifIndex 1)", "2": "em0", "16": "lo0 (ifIndex 16)"}
    ids = dict(Port.objects.filter(switch=switch).values_list("key", "id"))
    apply_snapshot(switch, Snapshot(ports=list(reversed(snap.ports))))
    assert dict(Port.objects.filter(switch=switch).values_list("key", "name")) == names
    assert dict(Port.objects.filter(switch=switch).values_list("key", "id")) == ids


def _atm_snapshot(n_vcs: int, status: str = "up", age_cs: int = 360_000, label: str = "") -> Snapshot:
    return Snapshot(
        ports=[PortInfo(key=k, name=f"A{int(k) + 1}", oper_status="up", label=label, state_age_cs=age_cs)
               for k in ("0", "1")],
        paths=[PathInfo(port_key="0", vpi=0, status="up", age_cs=age_cs)],
        channels=[ChannelInfo(port_key="0", vpi=0, vci=32 + i, status=status, age_cs=age_cs) for i in range(n_vcs)],
        cross_connects=[CrossConnectInfo("vc", "0", 0, 32 + i, "1", 0, 32 + i, age_cs=age_cs) for i in range(n_vcs)])


def test_a_rediscovery_of_an_unchanged_switch_writes_only_last_seen_in_a_bounded_number_of_queries(
        django_assert_max_num_queries):
    """The cost of rediscovery does not grow with the VCs when nothing changed: before, two statements
    and a save per VC and cross-connect (update_or_create), and a link inference every time."""
    switch = Switch.objects.create(name="steady", address="127.0.0.1", detected_profile="fore-asx")
    first = apply_snapshot(switch, _atm_snapshot(300))
    assert first.topology_changed and first.counts == {"ports": 2, "VPs": 1, "VCs": 600, "cross-connects": 300}
    vc = VirtualChannel.objects.get(switch=switch, port__key="0", vci=40)
    stamp = (vc.up_since, vc.last_seen)
    # The same answers a little later: "now - age" moves by the run's length, not a change.
    with django_assert_max_num_queries(20):
        again = apply_snapshot(switch, _atm_snapshot(300, age_cs=360_050))
    assert not again.topology_changed and again.counts == first.counts and not any(again.gone.values())
    vc.refresh_from_db()
    assert vc.up_since == stamp[0] and vc.last_seen > stamp[1]       # seen again, not rewritten


def test_a_rediscovery_writes_what_changed_and_says_whether_link_inference_needs_to_run():
    switch = Switch.objects.create(name="moving", address="127.0.0.1", detected_profile="fore-asx")
    apply_snapshot(switch, _atm_snapshot(3))
    # A VC goes down (its state and its age): that row is rewritten; inference reads no VC.
    report = apply_snapshot(switch, _atm_snapshot(3, status="down", age_cs=100))
    assert not report.topology_changed
    assert set(VirtualChannel.objects.filter(switch=switch, port__key="0").values_list("status", flat=True)) == {"down"}
    # A port label (inference reads labels: "to sw2 A1"): the next inference is needed.
    report = apply_snapshot(switch, _atm_snapshot(3, status="down", age_cs=100, label="to sw2 A1"))
    assert report.topology_changed
    assert Port.objects.get(switch=switch, key="0").label == "to sw2 A1"
    # A port vanishing is a change as well.
    report = apply_snapshot(switch, Snapshot(ports=[PortInfo(key="0", name="A1", label="to sw2 A1")]))
    assert report.topology_changed and report.gone["ports"] == 1
