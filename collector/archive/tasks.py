"""The archive's thin tasks, sent by beat (collector/poller/schedule.py): the rollup into the 1m/15m/1h/1d
tiers, settling raw samples into compressed blocks, and retention. The three share a PostgreSQL
advisory lock: an overlapping run skips."""
from __future__ import annotations

from celery import shared_task
from django.conf import settings

from collector.archive import rollup as archive_rollup
from collector.archive import settle as archive_settle


@shared_task(name="cellar.rollup")
def rollup() -> dict:
    """Roll late samples and new ones up into the 1m/15m/1h/1d tiers, within one interval.
    Rollup and retention share a PostgreSQL advisory lock: an overlapping run skips."""
    budget = max(5.0, settings.CELLAR_ROLLUP_INTERVAL * 0.8)
    return archive_rollup.run(budget_s=budget).summary()


@shared_task(name="cellar.retention")
def retention() -> dict:
    """Drop raw, tier and poll-log chunks older than their configured retention."""
    return archive_rollup.retention()


@shared_task(name="cellar.settle")
def settle() -> dict:
    """Settle raw samples past the late-data window into compressed blocks, within one interval
    (one switch-day per transaction: a run cut short loses nothing, the next goes on)."""
    budget = max(5.0, settings.CELLAR_SETTLE_INTERVAL * 0.8)
    return archive_settle.run(budget_s=budget).summary()
