"""manage.py close_bills: what the beat entry "bills" does, now (close due periods, refresh estimates)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from collector.billing import closing


class Command(BaseCommand):
    help = ("Close and freeze the billing periods that ended CELLAR_BILL_CLOSE_DELAY_S ago and refresh every "
            "bill's estimate of its current period (the beat task cellar.close_bills, run now).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--budget", type=float, default=3600.0, help="seconds the run may take")

    def handle(self, *args, **o) -> None:
        report = closing.run(budget_s=o["budget"])
        self.stdout.write(f"closed {report['closed']} period(s), refreshed {report['refreshed']} estimate(s) in "
                          f"{report['seconds']} s")
        for name, why in report["failed"].items():
            self.stderr.write(f"bill {name}: {why}")
