"""python manage.py rollup [--recompute --start ISO --end ISO [--switch NAME]] [--retention]

Run the rollup now (what the beat entry "rollup" does), recompute a range of every tier
(idempotent: the buckets are replaced), or apply retention (beat entry "retention").
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.archive import rollup
from collector.core.isotime import parse_iso
from collector.inventory.models import Switch


class Command(BaseCommand):
    help = "Roll raw samples up into the 1m/15m/1h/1d tiers; recompute a range; apply retention."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--recompute", action="store_true", help="replace the buckets of --start..--end")
        parser.add_argument("--start")
        parser.add_argument("--end")
        parser.add_argument("--switch", help="recompute only this switch's series")
        parser.add_argument("--retention", action="store_true", help="drop chunks past their retention")
        parser.add_argument("--budget", type=float, default=3600.0, help="seconds a run may take")

    def handle(self, *args, **o) -> None:
        if o["retention"]:
            self.stdout.write(f"retention: chunks dropped {rollup.retention()}")
            return
        if o["recompute"]:
            if not (o["start"] and o["end"]):
                raise CommandError("--recompute needs --start and --end")
            try:
                lo, hi = parse_iso(o["start"]), parse_iso(o["end"])
            except ValueError:
                raise CommandError("--start and --end are ISO 8601 times (e.g. 2026-11-22T10:00:00Z)") from None
            switch_id = None
            if o["switch"]:
                sw = Switch.objects.filter(name=o["switch"]).first()
                if sw is None:
                    raise CommandError(f"unknown switch {o['switch']!r}")
                switch_id = sw.id
            steps = rollup.recompute(lo, hi, switch_id)
            self.stdout.write(f"recomputed {len(steps)} ranges")
            return
        report = rollup.run(budget_s=o["budget"])
        self.stdout.write(f"rollup: {report.summary()}")
