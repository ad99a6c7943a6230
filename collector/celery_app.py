"""The Celery application: `celery -A collector.celery_app worker|beat`.

Configuration comes from Django settings (CELERY_* names, see webapp/settings.py); the beat
schedule is built by collector.schedule.SwitchScheduler from the inventory.
"""
from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

app = Celery("cellar", include=["collector.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.beat_scheduler = "collector.schedule:SwitchScheduler"


@worker_init.connect
def _serve_metrics(**_: object) -> None:
    """Expose the poller's Prometheus metrics when CELLAR_METRICS_PORT is set."""
    from django.conf import settings
    from prometheus_client import start_http_server

    if settings.CELLAR_METRICS_PORT:
        start_http_server(settings.CELLAR_METRICS_PORT, addr="127.0.0.1")
