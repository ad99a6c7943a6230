"""python manage.py import_csv FILE --name NAME --unit cells --interval 900 [--stamp start|end]
                                [--source TEXT] [--description TEXT] [--replace]

Counts per interval from another source (a carrier's 15-minute cell counts) into an external
series, created on its first import. FILE is a CSV of time,value lines ("-": standard input);
the format and the checks are collector/external/imports.py's. Prints one sentence; a refused
file stores nothing and exits non-zero with the reason.
"""
from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.external import imports
from collector.external.models import UNITS


class Command(BaseCommand):
    help = ("Import a CSV of time,value (counts per interval) into an external series (created when new); "
            "FILE '-' reads standard input.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="CSV of time,value lines, or - for standard input")
        parser.add_argument("--name", required=True, help="the series' name (a letter, then letters, digits, . _ -)")
        parser.add_argument("--unit", required=True, choices=UNITS, help="what a value counts, per interval")
        parser.add_argument("--interval", required=True, type=int, help="seconds per interval, e.g. 900")
        parser.add_argument("--stamp", choices=imports.STAMPS, default="start",
                            help="a row's time labels its interval's start (default) or end")
        parser.add_argument("--source", default="", help="who provided the data")
        parser.add_argument("--description", default="")
        parser.add_argument("--replace", action="store_true",
                            help="replace points already stored at the file's times (default: refuse)")

    @command_actor
    def handle(self, *args, **o) -> None:
        spec = imports.SeriesSpec(o["name"], o["unit"], o["interval"], o["stamp"], o["source"], o["description"])
        try:
            if o["file"] == "-":
                data: str | bytes = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
            else:
                with open(o["file"], "rb") as fh:
                    data = fh.read()
            result = imports.import_csv(data, spec, replace=o["replace"])
        except imports.ImportRefused as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{o['file']}: {exc.strerror or exc}") from None
        self.stdout.write(result.sentence)
