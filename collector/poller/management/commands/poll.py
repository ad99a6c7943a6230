"""python manage.py poll NAME [--count N]: poll now, store, print a line per series."""
from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.archive.models import Layout, Sample, Series
from collector.core.facts import flag_names, stored_to_u64
from collector.inventory.cli import switch_named
from collector.poller import runner


class Command(BaseCommand):
    help = "Poll a switch now, synchronously, N times one interval apart, storing the samples."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--count", type=int, default=1)

    def handle(self, *args, **o) -> None:
        switch = switch_named(o["name"])
        if not 1 <= o["count"] <= 10_000:
            raise CommandError("--count must be between 1 and 10000")
        for i in range(o["count"]):
            if i:
                time.sleep(switch.poll_interval_s)
            outcome = runner.poll_once(switch.id)
            if not outcome.ok:
                raise CommandError(f"{switch.name}: {outcome.status}: {outcome.error}")
            self._print(switch, outcome)

    def _print(self, switch, outcome: runner.PollOutcome) -> None:
        result = outcome.result
        if result is None:                  # an ok poll always has its result (runner._judge)
            raise CommandError(f"{switch.name}: {outcome.status} poll without a result")
        self.stdout.write(f"# {switch.name} poll at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(result.at))} "
                          f"{outcome.status} {result.varbinds} varbinds in {result.duration_s * 1000:.0f} ms, "
                          f"{len(result.readings)} counters, {outcome.stored}")
        row = Sample.objects.filter(switch_id=switch.id).order_by("-time").first()
        if row is None or outcome.stored == "spooled":
            return
        ids = Layout.objects.get(pk=row.layout_id).series_ids
        series = Series.objects.in_bulk(ids)
        interval = (row.interval_ms or 0) / 1000
        for sid, raw, delta, flags in zip(ids, row.raw, row.delta, row.flags):
            s = series[sid]
            if s.kind != "counter":
                continue
            where = s.port.name if s.port else s.index
            if s.vc:
                where += f" {s.vc.vpi}/{s.vc.vci}"
            elif s.vp:
                where += f" VP {s.vp.vpi}"
            rate = f"{delta / interval:.1f} {s.unit}/s" if delta is not None and interval else "-"
            counter = stored_to_u64(raw) if raw is not None else "-"   # Counter64 is stored two's complement
            self.stdout.write(f"{where:<16} {s.object_name:<28} {s.direction or '-':<3} raw={counter} "
                              f"delta={delta if delta is not None else '-'} rate={rate} "
                              f"flags={'|'.join(flag_names(flags)) or '-'}")
