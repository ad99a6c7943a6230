"""python manage.py export (--switch NAME [--switch NAME ...] | --group ID|NAME | --series ID,ID,... | --all)
[--start ISO|24h] [--end ISO|now] [--resolution raw|1m|15m|1h|1d|auto] [--format csv|csv-wide|parquet]
[--output FILE]

A bulk export for analysis: every counter series of a switch, a group, a list of series or the whole
network over a window, as long CSV, wide CSV or Parquet (collector/exports/bulkfiles.py says the
columns), written batch by batch (memory bounded by one batch). CSV may go to stdout; Parquet needs
--output. A progress bar goes to stderr when it is a terminal. One port's traffic as the plot's CSV:
export_csv.
"""
from __future__ import annotations

import os
import sys
from typing import BinaryIO

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from collector.exports import bulkfiles
from collector.exports.management.commands.export_csv import Progress, binary_stdout
from collector.reader import bulk, bulkscope, resolution
from collector.reader.bulkscope import Scope
from collector.reader.selection import BadRequest


class Command(BaseCommand):
    help = ("Export a switch, a group, series or the whole network over a window as CSV (long or wide) or "
            "Parquet, at raw or tier resolution.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--switch", action="append", default=[], help="a switch name (repeat for more)")
        parser.add_argument("--group", default="", help="a group's id or name (its members at the window's start)")
        parser.add_argument("--series", default="", help="series ids, comma separated")
        parser.add_argument("--all", action="store_true", help="every counter series of the archive")
        parser.add_argument("--start", default="", help="ISO 8601 (UTC without an offset), or a span before "
                                                        "--end: 90m, 24h, 7d, 1y (default 24h)")
        parser.add_argument("--end", default="", help="ISO 8601 or a span before now (default now)")
        parser.add_argument("--resolution", default="raw", choices=list(resolution.CHOICES),
                            help="raw samples or a rollup tier (auto: what the plot page draws); default raw")
        parser.add_argument("--format", default="csv", choices=list(bulkfiles.FORMATS),
                            help="csv (long: a row per series and time), csv-wide (a column per series) or parquet")
        parser.add_argument("--output", "-o", default="", help="file to write (default stdout; Parquet needs a file)")

    def handle(self, *args, **o) -> None:
        if o["format"] == "parquet" and not o["output"]:
            raise CommandError("Parquet is a file: give --output FILE.parquet")
        try:
            ids = bulkscope.parse_ids(o["series"], "--series") if o["series"] else ()
            scope = Scope(tuple(o["switch"]), o["group"], ids, o["all"])
            start, end = bulk.window(o["start"], o["end"], timezone.now())
            series = bulkscope.series_of(scope, start, settings.CELLAR_BULK_EXPORT_MAX_SERIES)
            plan = bulk.plan(series, start, end, o["resolution"], max_rows=settings.CELLAR_BULK_EXPORT_MAX_ROWS)
            bulkfiles.check(plan, o["format"])
        except (BadRequest, ValueError) as exc:
            raise CommandError(str(exc)) from None
        for note in plan.notes:
            sys.stderr.write(f"note: {note}\n")
        progress = Progress(sys.stderr, plan.expected_rows, sys.stderr.isatty())
        target = o["output"]
        part = f"{target}.part" if target else ""
        out: BinaryIO = open(part, "wb") if target else binary_stdout(self.stdout)
        try:
            rows, size = bulkfiles.write(plan, o["format"], out, lambda r, _b: progress.update(r))
            progress.update(rows, final=True)
        except BaseException:
            if target:
                out.close()
                os.unlink(part)
            raise
        if target:
            out.close()
            os.replace(part, target)      # a file that exists is whole
        else:
            out.flush()
        unit = "lines" if o["format"] == "csv-wide" else "rows"
        sys.stderr.write(f"{rows:,} {unit} of {scope.text}, {len(series):,} series, {resolution.RES_LABEL[plan.res]} "
                         f"{plan.start:%Y-%m-%dT%H:%M:%SZ} .. {plan.end:%Y-%m-%dT%H:%M:%SZ}, {size:,} bytes"
                         + (f" written to {target}\n" if target else "\n"))
