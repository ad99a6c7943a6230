"""Notifications: the outbox (models.Notification) and its delivery through apprise.

A transition that notifies (firing, resolved) becomes one outbox row per destination of its rule,
written in the evaluation's transaction; after commit each row is sent by its own task,
cellar.send_notification, on the queue "notify": a slow or dead destination holds up only its
own row, never the others, the evaluation or the polls. A failed attempt sets next_try_at by
exponential backoff (BACKOFF_S x 2^(attempts-1), at most BACKOFF_MAX_S) and records the error on
the row and on the destination (the alerts page shows both); each evaluation run sends the rows
that are due again (dispatch_due, every CELLAR_ALERTS_INTERVAL), so a retry survives a worker
restart. After MAX_ATTEMPTS the row is failed. Sending is idempotent: the row is locked and sent
only while queued or retrying.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

import apprise
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from collector.alerts.models import Destination, Notification, Transition
from collector.poller.celery_app import NOTIFY_QUEUE

log = logging.getLogger(__name__)
BACKOFF_S = 10.0
BACKOFF_MAX_S = 900.0
MAX_ATTEMPTS = 8            # about 40 minutes of retries
LOST_AFTER = timedelta(seconds=60)


def check_url(url: str) -> None:
    """AlertError unless apprise can use the URL (mailto://, json://, slack:// ...)."""
    from collector.alerts.rules import AlertError

    if not url:
        raise AlertError("a destination needs a URL (mailto://host:port?from=a@b.org&to=c@d.org, "
                         "json://host:port/path ...)")
    with apprise.LogCapture(level=logging.WARNING) as output:
        plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        why = " ".join(line.split(" - ", 2)[-1] for line in output.getvalue().splitlines() if line)[:300]
        shown = redacted(url)
        raise AlertError(f"the notification URL {shown!r} does not parse: {why or 'not an apprise URL'} "
                         "(see https://github.com/caronc/apprise/wiki)")


def redacted(url: str) -> str:
    """The URL with its passwords and tokens hidden (apprise's privacy form), for pages and logs."""
    plugin = apprise.Apprise.instantiate(url) if url else None
    if plugin is not None:
        return plugin.url(privacy=True).split("?", 1)[0]
    scheme, sep, _ = url.partition("://")
    return f"{scheme}://..." if sep else "(not a URL)"


def backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(BACKOFF_MAX_S, BACKOFF_S * 2 ** max(0, attempts - 1)))


def enqueue(transition: Transition, destinations: list[Destination], kind: str, title: str, body: str) -> list[int]:
    """Outbox rows for a transition (inside the caller's transaction); sent after commit."""
    now = timezone.now()
    ids = []
    for dest in destinations:
        row, created = Notification.objects.get_or_create(
            transition=transition, destination=dest,
            defaults={"kind": kind, "title": title, "body": body, "next_try_at": now, "destination_name": dest.name})
        if created:
            ids.append(row.id)
    transaction.on_commit(lambda: dispatch(ids))
    return ids


def enqueue_test(destination: Destination, user_name: str) -> int:
    """The "send test" button: one message to one destination, through the same outbox."""
    row = Notification.objects.create(
        destination=destination, destination_name=destination.name, kind="test", next_try_at=timezone.now(),
        title=f"[Cellar] test notification to {destination.name}",
        body=f"A test of the destination {destination.name}, sent by {user_name} from "
             f"{settings.CELLAR_SITE_URL}/alerts/.")
    transaction.on_commit(lambda: dispatch([row.id]))
    return row.id


def dispatch(ids: list[int]) -> None:
    """Hand rows to the notify queue."""
    from collector.alerts.tasks import send_notification  # the tasks module imports this one

    for nid in ids:
        try:
            send_notification.apply_async((nid,), queue=NOTIFY_QUEUE)
        except Exception as exc:      # broker away: the row stays due; the next evaluation sends it
            log.warning("notification %s not queued (%s): the next evaluation retries", nid, exc.__class__.__name__)
            return


def dispatch_due(now: datetime | None = None, limit: int = 200) -> int:
    """Send the rows whose next try is due: retries, and queued rows whose task was lost (a broker
    that was away): their first task had LOST_AFTER to run."""
    now = now or timezone.now()
    due = Q(status="retrying", next_try_at__lte=now) | Q(status="queued", next_try_at__lte=now - LOST_AFTER)
    ids = list(Notification.objects.filter(due).order_by("next_try_at").values_list("id", flat=True)[:limit])
    dispatch(ids)
    return len(ids)


def deliver(url: str, title: str, body: str) -> tuple[bool, str]:
    """One attempt through apprise: (ok, what went wrong).

    The worker sends on a thread pool, so the errors are read from this call's own result (apprise
    keeps each call's log entries apart, across its worker threads too), never from a handler on
    the shared "apprise" logger: that one hears every thread's messages, and two deliveries failing
    at the same moment would record each other's errors."""
    notifier = apprise.Apprise()
    if not notifier.add(url):
        return False, "the URL does not parse"
    with notifier.notify(body=body, title=title, body_format=apprise.NotifyFormat.TEXT,
                         log_level=logging.WARNING) as result:
        ok = bool(result)
        errors = " ".join(entry.message for entry in result.logs())
    return ok, errors[:1000] or ("" if ok else "the destination refused the message")


def send(notification_id: int) -> str:
    """Deliver one outbox row now if it is due; idempotent (a row is sent at most once)."""
    with transaction.atomic():
        row = Notification.objects.select_for_update(skip_locked=True).filter(pk=notification_id).first()
        # The destination row is locked too (its last error is written below): a message to a
        # destination that another task is sending to waits for the next evaluation.
        dest = (Destination.objects.select_for_update(skip_locked=True).filter(pk=row.destination_id).first()
                if row is not None and row.destination_id else None)
        if row is None or (row.destination_id and dest is None):
            return "busy or gone"
        if row.status not in ("queued", "retrying"):
            return row.status
        now = timezone.now()
        if row.next_try_at > now:
            return "not due"
        if dest is None or not dest.enabled:
            why = "deleted" if dest is None else "disabled"
            row.status, row.last_error = "failed", f"the destination {row.destination_name} is {why}"
            row.save(update_fields=["status", "last_error"])
            return "failed"
        ok, error = deliver(str(dest.url), row.title, row.body)
        row.attempts += 1
        if ok:
            row.status, row.sent_at, row.last_error = "sent", timezone.now(), ""
            dest.last_ok_at, dest.failing_since, dest.last_error = row.sent_at, None, ""
        else:
            row.last_error = error
            row.status = "failed" if row.attempts >= MAX_ATTEMPTS else "retrying"
            row.next_try_at = now + backoff(row.attempts)
            dest.last_error = f"{now:%Y-%m-%d %H:%M:%S} UTC: {error}"
            dest.failing_since = dest.failing_since or now
            log.warning("notification %s to %s failed (attempt %s, next %s): %s", row.id, dest.name,
                        row.attempts, "none" if row.status == "failed" else f"{row.next_try_at:%H:%M:%S}", error)
        row.save(update_fields=["attempts", "status", "sent_at", "last_error", "next_try_at"])
        dest.save(update_fields=["last_ok_at", "failing_since", "last_error"])
    return row.status
