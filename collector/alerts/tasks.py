"""The alerts' thin tasks (found by the worker's autodiscovery; beat sends cellar.evaluate_alerts from
collector/poller/schedule.py)."""
from __future__ import annotations

from collector.poller.celery_app import app


@app.task(name="cellar.evaluate_alerts")
def evaluate_alerts() -> dict:
    """Evaluate every alert rule once (bounded; an overlapping run skips)."""
    from collector.alerts import evaluate

    return evaluate.run()


@app.task(name="cellar.send_notification")
def send_notification(notification_id: int) -> str:
    """Deliver one outbox row if it is due (idempotent; a failure sets its next try)."""
    from collector.alerts import notify

    return notify.send(int(notification_id))
