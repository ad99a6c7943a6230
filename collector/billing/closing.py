"""The beat task's work (cellar.close_bills, every BILLING_S of collector/poller/schedule.py):
close every period that ended CELLAR_BILL_CLOSE_DELAY_S ago and is not closed yet, oldest first
(frozen from then on), and refresh the estimate of each bill's current period. Idempotent: a
closed period is skipped, an open estimate is replaced. Bounded by a time budget per run.
"""
from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max

from collector.billing import compute, periods
from collector.billing.models import Bill, Period

log = logging.getLogger(__name__)


def due(bill: Bill, now: datetime) -> list[periods.Bounds]:
    """Periods of the bill that ended long enough ago to close and are not closed yet."""
    (first, _), zone = compute.first_bounds(bill)
    tz = periods.zone(zone)
    delay = timedelta(seconds=settings.CELLAR_BILL_CLOSE_DELAY_S)
    closed = set(bill.periods.filter(closed=True).values_list("start", flat=True))
    return [b for b in periods.between(first, now, bill.billing_day, tz)
            if b[1] + delay <= now and b[0] not in closed]


def run(budget_s: float = 240.0, now: datetime | None = None) -> dict:
    """Close what is due and refresh the open estimates of every bill, within budget_s."""
    started = time.monotonic()
    now = now or compute.db_now()
    closed, refreshed, failed = 0, 0, {}
    # The stalest estimate first: a run cut short by its budget never starves the same bills.
    fresh = dict(Period.objects.filter(closed=False).values_list("bill_id").annotate(at=Max("computed_at")))
    bills = sorted(Bill.objects.select_related("group"), key=lambda b: (b.id in fresh, fresh.get(b.id), b.id))
    for bill in bills:
        if time.monotonic() - started > budget_s:
            break
        try:
            for start, end in due(bill, now):
                compute.store(bill, compute.compute(bill, start, end, now), closed=True, now=now)
                closed += 1
                if time.monotonic() - started > budget_s:
                    break
            (start, end), _ = compute.bounds_at(bill, now)
            if start >= compute.first_bounds(bill)[0][0] and not Period.objects.filter(bill=bill, start=start,
                                                                           closed=True).exists():
                compute.store(bill, compute.compute(bill, start, end, now), closed=False, now=now)
                refreshed += 1
        except compute.BillError as exc:
            failed[bill.name] = str(exc)
            log.warning("billing: %s", exc)
    return {"closed": closed, "refreshed": refreshed, "failed": failed,
            "seconds": round(time.monotonic() - started, 3)}
