"""Delivery through apprise to a real local HTTP receiver; a destination that is down is retried
with backoff and does not hold up the other."""
from __future__ import annotations

import pytest
from django.utils import timezone

from collector.alerts import notify
from collector.alerts.models import Destination, Notification
from tests.support import webhook
from tests.support.agents import free_udp_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    yield from webhook.serve()


def row(dest: Destination) -> Notification:
    return Notification.objects.create(destination=dest, kind="firing", title="t", body="b",
                                       next_try_at=timezone.now())


def test_delivery_and_backoff(receiver):
    port, got = receiver
    good = Destination.objects.create(name="good", url=f"json://127.0.0.1:{port}/hook")
    dead = Destination.objects.create(name="dead", url=f"json://127.0.0.1:{free_udp_port()}/hook?cto=1&rto=1")
    a, b = row(dead), row(good)
    assert notify.send(a.id) == "retrying"
    assert notify.send(b.id) == "sent"
    assert len(got) == 1 and got[0][1]["title"] == "t" and got[0][1]["message"] == "b"
    assert notify.send(b.id) == "sent" and len(got) == 1        # idempotent: sent once
    a.refresh_from_db()
    dead.refresh_from_db()
    assert a.attempts == 1 and a.last_error and dead.failing_since and dead.last_error
    first_wait = (a.next_try_at - timezone.now()).total_seconds()
    assert 5 < first_wait <= notify.BACKOFF_S
    assert notify.send(a.id) == "not due"
    Notification.objects.filter(pk=a.id).update(next_try_at=timezone.now())
    assert notify.send(a.id) == "retrying"
    a.refresh_from_db()
    assert a.attempts == 2 and (a.next_try_at - timezone.now()).total_seconds() > first_wait
    assert [notify.backoff(n).total_seconds() for n in (1, 2, 3, 8, 20)] == [10, 20, 40, 900, 900]
    Notification.objects.filter(pk=a.id).update(attempts=notify.MAX_ATTEMPTS - 1, next_try_at=timezone.now())
    assert notify.send(a.id) == "failed"
