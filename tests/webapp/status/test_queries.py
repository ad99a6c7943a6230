"""webapp/status/queries.py against the real TimescaleDB: latest rows, totals over rollups, history."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from collector.inventory.models import Host
from collector.poller.models import HostCheck
from webapp.status import porttable
from webapp.status import queries as q

pytestmark = pytest.mark.django_db


def test_peak_concurrent():
    t = timezone.now()
    h = timedelta(hours=1)
    assert porttable.peak_concurrent([]) == 0
    assert porttable.peak_concurrent([(t, None), (t + h, None)]) == 2
    assert porttable.peak_concurrent([(t, t + h), (t + h, None)]) == 1          # one ends as the next begins
    assert porttable.peak_concurrent([(t, t + 3 * h), (t + h, t + 2 * h), (t + 4 * h, None)]) == 2


def test_host_history_buckets(db):
    h = Host.objects.create(name="hist", address="192.0.2.77")
    now = timezone.now()
    for i, (ok, rtt) in enumerate([(True, 2.0), (False, None), (True, 4.0)]):
        HostCheck.objects.create(host_id=h.id, time=now - timedelta(seconds=10 * i), reachable=ok, rtt_ms=rtt,
                                 method="icmp")
    HostCheck.objects.create(host_id=h.id, time=now - timedelta(hours=30), reachable=True, rtt_ms=1, method="icmp")
    hist, start, width = q.host_history([h.id], hours=24, buckets=48)
    assert width == 1800 and len(hist[h.id]) == 48
    filled = [b for b in hist[h.id] if b.checks]
    assert sum(b.checks for b in filled) == 3                       # the 30 h old check is outside
    assert {b.state for b in hist[h.id]} <= {"none", "mixed", "up", "down"}
    assert any(b.state in ("mixed", "down") for b in filled)
    assert start <= now - timedelta(hours=23)
