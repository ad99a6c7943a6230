"""Celery tasks of the rollup tiers and of retention (thin wrappers around collector/rollup.py).

Registered with the worker through `include` in collector/celery_app.py; scheduled by
collector/schedule.py static_entries() ("rollup" every CELLAR_ROLLUP_INTERVAL s, "retention"
hourly). Both take a PostgreSQL advisory lock, so overlapping runs skip instead of racing.
"""
from __future__ import annotations

from django.conf import settings

from collector.celery_app import app


@app.task(name="cellar.rollup")
def rollup() -> dict:
    """Roll late samples and new ones up into the 1m/15m/1h/1d tiers, within one interval."""
    from collector import rollup as rollup_module

    budget = max(5.0, settings.CELLAR_ROLLUP_INTERVAL * 0.8)
    return rollup_module.run(budget_s=budget).summary()


@app.task(name="cellar.retention")
def retention() -> dict:
    """Drop raw, tier and poll-log chunks older than their configured retention."""
    from collector import rollup as rollup_module

    return rollup_module.retention()
