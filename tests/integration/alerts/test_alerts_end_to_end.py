"""Alerts end to end, for real: a simulated switch (RateAgent over UDP) polled by a Celery worker that
beat drives, samples in TimescaleDB, cellar.evaluate_alerts from the archive, notifications on the
queue "notify" to a real local SMTP server (aiosmtpd) and a real local HTTP receiver.

Traffic pushed above the threshold fires exactly one mail and one webhook call within one poll
interval plus the evaluation interval; a rate oscillating around the threshold sends nothing more;
once it falls below the recovery value, exactly one "resolved" each. A destination that is down is
retried with backoff meanwhile, the others are not held up, and the alerts page shows it failing.
"""
from __future__ import annotations

import io
import socket
import time
from email import message_from_bytes

import pytest
from aiosmtpd.controller import Controller
from django.core.management import call_command

from collector.alerts import rules
from collector.alerts.models import Destination, Notification, State
from collector.archive.models import Series
from collector.inventory.models import Port
from tests.support import webhook as receiver
from tests.support.celery_procs import CeleryProcess, RedisServer, wait_for
from tests.support.rate_agent import RateAgent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
POLL_S = 3
ALERTS_S = 5
SITE = "http://cellar.test:8000"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mailbox:
    def __init__(self):
        self.messages: list = []
        self.times: list[float] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(message_from_bytes(envelope.content))
        self.times.append(time.time())
        return "250 OK"


@pytest.fixture
def smtp():
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller.port, box
    controller.stop()


@pytest.fixture
def webhook():
    yield from receiver.serve()


def text(message) -> str:
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    return part.get_payload(decode=True).decode()


def test_fire_once_no_flood_resolve_once_and_a_dead_destination(smtp, webhook, tmp_path, client):
    smtp_port, mailbox = smtp
    hook_port, calls = webhook
    redis_server = RedisServer(tmp_path).start()
    with RateAgent(rate_pct=10) as agent:
        call_command("add_switch", "--no-check", "rate-sw", "127.0.0.1", "--port", str(agent.port), "--community",
                     "public", "--profile", "if-mib", "--interval", str(POLL_S), "--timeout", "1", "--retries", "1",
                     stdout=io.StringIO())
        call_command("discover", "rate-sw", stdout=io.StringIO())
        port = Port.objects.get(switch__name="rate-sw", name="eth1")
        mail = Destination.objects.create(
            name="noc-mail", url=f"mailto://127.0.0.1:{smtp_port}?from=cellar@cellar.test&to=noc@cellar.test")
        hook = Destination.objects.create(name="noc-hook", url=f"json://127.0.0.1:{hook_port}/alerts")
        dead = Destination.objects.create(name="dead-hook", url=f"json://127.0.0.1:{free_port()}/x?cto=1&rto=1")
        rules.save({"name": "uplink above 50 %", "kind": "rate", "scope": "object", "object": f"port:{port.id}",
                    "direction": "in", "unit": "pct", "threshold": "50", "recovery": "30", "window_minutes": "0"},
                   [mail.id, hook.id, dead.id])
        env = {"REDIS_URL": redis_server.url, "CELLAR_ALERTS_INTERVAL": str(ALERTS_S), "CELLAR_SITE_URL": SITE}
        worker = CeleryProcess("worker", tmp_path, queues="polls,default,notify", **env)
        beat = CeleryProcess("beat", tmp_path, **env)
        try:
            worker.wait_for_log("ready.")
            # Quiet traffic first: polls come in, nothing fires.
            assert wait_for(lambda: State.objects.exists() or _drawn_samples(port) >= 3, 60), worker.tail()
            assert not mailbox.messages and not calls and not State.objects.exists()
            assert Series.objects.get(port=port, object_name="ifHCInOctets").capacity_per_s == 1_250_000

            agent.set_rate(80)
            pushed = time.time()
            assert wait_for(lambda: len(mailbox.messages) >= 1 and len(calls) >= 1, 60), worker.tail()
            delay = max(mailbox.times[0], calls[0][0]) - pushed
            print(f"\nfiring: mail and webhook {delay:.1f} s after the traffic rose "
                  f"(bound: poll {POLL_S} s + evaluation {ALERTS_S} s + delivery)")
            assert delay <= POLL_S + ALERTS_S + 10, delay
            first = mailbox.messages[0]
            assert first["Subject"].startswith("[Cellar] FIRING: uplink above 50 % on rate-sw eth1 in")
            body = text(first)
            assert f"Plot: {SITE}/traffic/?s=" in body and "above the threshold 50" in body
            assert "public" not in body and "community" not in body.lower()       # no SNMP secret
            assert calls[0][1]["title"].startswith("[Cellar] FIRING") and f"{SITE}/traffic/" in calls[0][1]["message"]

            # Oscillating around the threshold, above the recovery value: no flood, nothing resolves.
            for k in range(8):
                agent.set_rate(65 if k % 2 else 40)
                time.sleep(POLL_S)
            time.sleep(ALERTS_S)
            assert (len(mailbox.messages), len(calls)) == (1, 1)
            assert State.objects.get().state == "firing"

            # The dead destination is retried with backoff and shown failing; the others got theirs.
            row = Notification.objects.get(destination=dead, kind="firing")
            assert row.status == "retrying" and row.attempts >= 1 and row.next_try_at > row.created
            page = client.get("/alerts/").content.decode()
            assert "dead-hook" in page and 'class="note bad failing-destination"' in page and "retrying" in page

            agent.set_rate(5)
            assert wait_for(lambda: len(mailbox.messages) >= 2 and len(calls) >= 2, 60), worker.tail()
            time.sleep(ALERTS_S + POLL_S)
            assert (len(mailbox.messages), len(calls)) == (2, 2)
            assert mailbox.messages[1]["Subject"].startswith("[Cellar] RESOLVED: uplink above 50 %")
            assert "below the recovery value 30" in text(mailbox.messages[1])
            assert calls[1][1]["title"].startswith("[Cellar] RESOLVED")
            assert State.objects.get().state in ("resolved", "ok")
            assert Notification.objects.filter(destination__in=[mail, hook], status="sent").count() == 4
            # Meanwhile the dead destination's firing was tried again, later each time (10 s, then 20 s).
            row.refresh_from_db()
            assert row.status == "retrying" and row.attempts >= 2, (row.attempts, worker.tail())
            assert "dead-hook failed (attempt 2" in worker.tail(200_000)
        finally:
            beat.kill()
            worker.kill()
            redis_server.kill()


def _drawn_samples(port: Port) -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_sample WHERE switch_id = %s AND interval_ms IS NOT NULL",
                    [port.switch_id])
        return cur.fetchone()[0]

