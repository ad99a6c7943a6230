"""collector/poller/pollers.py: which poller group is late, and which workers took its slots."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.inventory.models import Switch
from collector.poller import locks, pollers
from collector.poller.models import SwitchHealth


@pytest.fixture
def fresh_redis(settings):
    locks.forget_client()
    client = locks.client()
    for key in client.scan_iter(pollers.SEEN_KEY + "*"):
        client.delete(key)
    yield client
    locks.forget_client()


@pytest.mark.django_db
def test_groups_say_which_poller_is_late_and_who_polled(fresh_redis):
    now = datetime.now(UTC)
    home = [Switch.objects.create(name=f"h{i}", address="192.0.2.1", poll_interval_s=15) for i in range(3)]
    far = [Switch.objects.create(name=f"f{i}", address="192.0.2.2", poll_interval_s=15, poller_group="far")
           for i in range(2)]
    new = Switch.objects.create(name="new", address="192.0.2.3", poll_interval_s=15)       # not polled yet
    Switch.objects.create(name="off", address="192.0.2.4", poller_group="gone", enabled=False)
    for s in home:
        SwitchHealth.objects.create(switch=s, last_poll_at=now - timedelta(seconds=10))
    SwitchHealth.objects.create(switch=far[0], last_poll_at=now - timedelta(seconds=20))
    SwitchHealth.objects.create(switch=far[1], last_poll_at=now - timedelta(seconds=75))  # 5 intervals
    pollers.record_seen("polls", "poller-default-a@host")
    pollers.record_seen("polls.far", "poller-far-b@site")

    groups = {g.group: g for g in pollers.groups(now)}
    assert set(groups) == {"default", "far"}                 # a disabled switch's group is not listed
    d, f = groups["default"], groups["far"]
    assert (d.queue, d.switches, d.never_polled, d.late_switches, d.state) == ("polls", 4, 1, 0, "ok")
    assert d.workers[0][0] == "poller-default-a@host" and d.worker_seen_s < 5
    assert (f.queue, f.switches, f.late_switches, f.state) == ("polls.far", 2, 1, "late")
    assert f.lateness_s == pytest.approx(60, abs=1)
    assert "poller group far (polls.far): late, 1 of 2 switches not polled for 2 intervals" in f.problem
    assert new.id not in [s.id for s in far]


@pytest.mark.django_db
def test_a_group_nobody_polls(fresh_redis):
    Switch.objects.create(name="x", address="192.0.2.1", poller_group="lonely")
    (g,) = pollers.groups()
    assert g.state == "late" and g.never_polled == 1 and g.workers == []
    assert g.problem.endswith("none of its switches polled yet")
    sw = Switch.objects.get(name="x")
    SwitchHealth.objects.create(switch=sw, last_poll_at=datetime.now(UTC))
    (g,) = pollers.groups()
    assert g.state == "no worker" and "no worker took its polls" in g.problem
