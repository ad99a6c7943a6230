"""The bills' thin task, sent by beat (collector/poller/schedule.py) and by the bills page's "refresh"."""
from __future__ import annotations

from celery import shared_task

BILLING_S = 300.0        # beat refreshes bills this often: the open period's estimate is at most this old

@shared_task(name="cellar.close_bills")
def close_bills() -> dict:
    """Close (freeze) the billing periods that ended CELLAR_BILL_CLOSE_DELAY_S ago and refresh the
    estimate of every bill's current period, from the raw samples (bounded run)."""
    # Imported here, as the burst scan: numpy is not needed by a worker that only polls.
    from collector.billing import closing

    return closing.run(budget_s=0.8 * BILLING_S)
