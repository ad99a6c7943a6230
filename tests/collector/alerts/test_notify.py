"""Delivery through apprise to a real local HTTP receiver; a destination that is down is retried
with backoff and does not hold up the other; two deliveries failing at the same moment on two
threads (the worker's pool) each record their own error."""
from __future__ import annotations

import socket
import threading
import time

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


@pytest.fixture
def silent_port():
    """A real TCP listener that takes connections and never answers: a delivery to it waits for its
    timeout, so another delivery's failure happens while it is still under way."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def at_once(slow: str, fast: str) -> tuple[str, str]:
    """The errors of two failing deliveries on two threads, the fast one failing while the slow one waits."""
    out: dict[str, str] = {}

    def one(key: str, url: str) -> None:
        out[key] = notify.deliver(url, "t", "b")[1]

    threads = [threading.Thread(target=one, args=("slow", slow)), threading.Thread(target=one, args=("fast", fast))]
    threads[0].start()
    time.sleep(0.3)
    threads[1].start()
    for t in threads:
        t.join(10)
    return out["slow"], out["fast"]


MAIL = "mailto://127.0.0.1:{port}?from=cellar@cellar.test&to=noc@cellar.test&cto=1"
HOOK = "json://127.0.0.1:{port}/hook?cto=1&rto=1"


@pytest.mark.parametrize("slow_url, fast_url, slow_word, fast_word", [
    (MAIL, HOOK, "mail", "JSON"),
    (HOOK, MAIL, "JSON", "mail"),
], ids=["mail-waits-hook-fails", "hook-waits-mail-fails"])
def test_two_deliveries_failing_at_once_keep_their_own_errors(silent_port, slow_url, fast_url, slow_word, fast_word):
    closed = free_udp_port()
    slow, fast = at_once(slow_url.format(port=silent_port), fast_url.format(port=closed))
    assert slow_word.lower() in slow.lower() and fast_word.lower() in fast.lower(), (slow, fast)
    assert fast_word.lower() not in slow.lower(), f"the slow delivery recorded the other's error: {slow}"
    assert slow_word.lower() not in fast.lower(), f"the fast delivery recorded the other's error: {fast}"
