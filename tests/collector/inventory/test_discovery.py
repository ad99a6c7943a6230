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
