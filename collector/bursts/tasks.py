"""The studies' thin task, sent by beat (collector/poller/schedule.py): the day-by-day burst scan."""
from __future__ import annotations

from celery import shared_task

BURST_SCAN_S = 900.0     # beat runs the scan every 15 minutes: a day's bursts are known within ~20 minutes

@shared_task(name="cellar.scan_bursts")
def scan_bursts() -> dict:
    """Find and store the significant bursts of the days the 1-minute tier holds (bounded run)."""
    # Imported here: it brings numpy, which the poll path never needs; a worker that polls only
    # (a poller group's) then starts without it.
    from collector.bursts import scan as studies_bursts

    return studies_bursts.run(budget_s=0.8 * BURST_SCAN_S)
