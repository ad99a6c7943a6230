"""The Celery application: `celery -A collector.poller.celery_app worker|beat`.

Configuration comes from Django settings (CELERY_* names, see webapp/settings.py); the beat
schedule is built by collector.poller.schedule.SwitchScheduler from the inventory.
"""
from __future__ import annotations

import gc
import os

from celery import Celery
from celery.signals import task_prerun, worker_init, worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

# The queues other than the poller groups' (polls, polls.<group>: inventory.models.Switch.queue_name):
# housekeeping and beat's periodic work, the web's background work (exports, analyses), notifications.
DEFAULT_QUEUE = "default"
BACKGROUND_QUEUE = "exports"
NOTIFY_QUEUE = "notify"

app = Celery("cellar")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Every installed app's tasks.py (each app owns its tasks; the beat schedule is collector/poller/schedule.py).
app.autodiscover_tasks()
app.conf.beat_scheduler = "collector.poller.schedule:SwitchScheduler"

# Celery's Django fixup closes every database connection before and after each task unless
# this is set: ~14 new PostgreSQL connections per second at 10,000 ports every 15 s, worth a
# quarter of the worker's CPU and half of PostgreSQL's (docs/benchmarks.md, "Scale"). With
# it, the fixup closes only every DB_REUSE_MAX tasks (counted per process, and it closes the
# connection of whichever pool thread runs that task), so the real limits on a connection's
# life are CONN_MAX_AGE and the health check, applied by _drop_unusable_connections below.
# A CELERY_DB_REUSE_MAX in Django settings wins (0 there restores a connection per task).
DB_REUSE_MAX = 1000
if app.conf.get("CELERY_DB_REUSE_MAX") is None:
    app.conf.CELERY_DB_REUSE_MAX = DB_REUSE_MAX


@task_prerun.connect
def _drop_unusable_connections(task=None, **_: object) -> None:
    """Before each task, what Django does before each request: close this thread's connection
    when it is older than CONN_MAX_AGE or had an error, and have its first query check it.

    The fixup does not: once it stops closing connections (DB_REUSE_MAX), a connection that a
    database restart or pg_terminate_backend broke would fail every task of its pool thread
    ("the connection is closed") until the fixup happened to close it, thousands of tasks on.
    Eager tasks (task.apply() in tests) run inside the caller's transaction: left alone.
    """
    if task is not None and getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_init.connect
def _serve_metrics(**_: object) -> None:
    """Expose the poller's Prometheus metrics when CELLAR_METRICS_PORT is set."""
    from django.conf import settings
    from prometheus_client import start_http_server

    if settings.CELLAR_METRICS_PORT:
        start_http_server(settings.CELLAR_METRICS_PORT, addr="127.0.0.1")


# The cyclic collector's thresholds in a worker (Python's default: 700, 10, 10). A slot's polls hold
# some 300,000 objects at once (readings, rows, futures) until they are stored, so most survive a
# young collection, and with the defaults every few seconds a full collection walked the whole
# heap (1.4 GB at 100,000 ports: each a fraction of a second): with these, a poll costs 45 % less
# CPU (1.83 against 3.1-3.4 ms, docs/benchmarks.md, figure 6). The young generation is still
# collected every 100,000 allocations (a tenth of a second of polling); a full collection
# follows every 5,000 of those, minutes apart, and still frees what cycles reached the old
# generation (a timed-out poll's exception and frames).
GC_THRESHOLDS = (100_000, 50, 100)


def freeze_startup_heap() -> None:
    """Put every object alive once the worker has started (Django, Celery, the modules: about
    100,000) out of the cyclic garbage collector's reach, as the gc.freeze docs advise for
    long-running servers, and set the worker's GC_THRESHOLDS. A poll of 1,000 interfaces
    allocates some 20,000 short-lived objects; the full collections they trigger scanned that
    whole startup heap each time, a fifth of the poll's CPU (docs/benchmarks.md, figure 1a).
    Objects created later are collected as usual."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@worker_ready.connect
def _freeze_after_start(**_: object) -> None:
    freeze_startup_heap()


@worker_process_init.connect
def _freeze_in_child(**_: object) -> None:      # prefork pool: each child, once it has started
    freeze_startup_heap()
