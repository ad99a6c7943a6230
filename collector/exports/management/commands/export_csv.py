"""python manage.py export_csv --switch NAME --port PORT [--direction in|out] [--vpi N] [--vci N]
[--metric M] [--start ISO] [--end ISO] [--resolution raw|auto|1m|15m|1h|1d] [--unit U] [--output FILE]

The same CSV as the page's "Download CSV" (collector/reader/csvrows.py), streamed to a file or to
stdout; a progress bar goes to stderr when it is a terminal. A whole switch, a group, a list of
series or the network, as CSV or Parquet: manage.py export.
"""
from __future__ import annotations

import sys
import time
from typing import BinaryIO, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from collector.archive.models import Series
from collector.inventory.models import Switch
from collector.inventory.ports import PortLookupError, find_port
from collector.reader import catalog, csvrows, reading, resolution, selection, units
from collector.reader.catalog import UnknownSeries
from collector.reader.selection import BadRequest, PlotRequest
from collector.reader.units import UnitError


class Progress:
    """rows written / expected, rate, on one line of a terminal."""

    def __init__(self, stream: TextIO, expected: int, enabled: bool):
        self.stream, self.expected, self.enabled = stream, max(1, expected), enabled
        self.started = self.last = time.monotonic()

    def update(self, rows: int, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self.last < 0.2):
            return
        self.last = now
        frac = min(1.0, rows / self.expected) if not final else 1.0
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        rate = rows / max(1e-6, now - self.started)
        self.stream.write(f"\r[{bar}] {frac * 100:5.1f}% {rows:,} rows {rate:,.0f} rows/s")
        if final:
            self.stream.write("\n")
        self.stream.flush()


def binary_stdout(stream: OutputWrapper) -> BinaryIO:
    """The command's stdout as bytes: a real terminal or pipe has .buffer (the wrapper passes the
    attribute through); a StringIO given by call_command does not, and gets text."""
    if hasattr(stream, "buffer"):
        stream.flush()
        # OutputWrapper passes attributes through to its stream; django-stubs types them as callables.
        return cast(BinaryIO, stream.buffer)

    class _Text:
        def write(self, data: bytes) -> None:
            stream.write(data.decode(), ending="")

        def flush(self) -> None:
            pass

    return _Text()  # type: ignore[return-value]


class Command(BaseCommand):
    help = "Export the traffic of a port (or of a VP or VC) as CSV: plot resolution or raw samples."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--switch", required=True, help="switch name")
        parser.add_argument("--port", required=True,
                            help="port name (e.g. A1, Gi1/0/1, 'lo0 (ifIndex 16)') or ifindex:N")
        parser.add_argument("--direction", choices=["in", "out"], help="receive (in) or transmit (out); default both")
        parser.add_argument("--vpi", type=int, help="a virtual path of the port")
        parser.add_argument("--vci", type=int, help="a virtual channel (needs --vpi)")
        parser.add_argument("--metric", help="cells, octets, ucast_pkts, errors ... (default: the port's traffic)")
        parser.add_argument("--start", help="ISO 8601 (UTC if no offset); default 24 h before --end")
        parser.add_argument("--end", help="ISO 8601; default now")
        parser.add_argument("--resolution", default="auto", choices=list(resolution.CHOICES))
        parser.add_argument("--unit", default="auto", choices=list(units.CHOICES))
        parser.add_argument("--output", "-o", help="file to write (default stdout)")

    def handle(self, *args, **o) -> None:
        try:
            series = self._series(o)
            req = self._request(o, series)
            plan = reading.plan(req, series, for_csv=True)
        except (BadRequest, UnknownSeries, UnitError) as exc:
            raise CommandError(str(exc)) from None
        out: BinaryIO = open(o["output"], "wb") if o["output"] else binary_stdout(self.stdout)
        progress = Progress(sys.stderr, reading.estimated_rows(plan), sys.stderr.isatty())
        lines = 0
        try:
            for chunk in csvrows.stream(plan):
                out.write(chunk)
                lines += chunk.count(b"\n")
                progress.update(max(0, lines - 1))
            progress.update(max(0, lines - 1), final=True)
        finally:
            if o["output"]:
                out.close()
            else:
                out.flush()
        if o["output"]:
            # plain stderr: Django's styles it as an error on a terminal
            sys.stderr.write(f"{max(0, lines - 1):,} rows of {', '.join(s.label for s in series)} "
                             f"({resolution.RES_LABEL[plan.res]}) written to {o['output']}\n")

    def _series(self, o: dict) -> list[catalog.SeriesInfo]:
        switch = Switch.objects.filter(name=o["switch"]).first()
        if switch is None or not Series.objects.filter(switch=switch).exists():
            raise CommandError(f"unknown switch {o['switch']!r} (or nothing polled on it yet)")
        try:
            port = find_port(switch, o["port"])
        except PortLookupError as exc:
            raise CommandError(str(exc)) from None
        qs = catalog.counters().filter(port=port)
        if not qs.exists():
            raise CommandError(f"no series on port {o['port']!r} of {o['switch']}")
        if o["vci"] is not None and o["vpi"] is None:
            raise CommandError("--vci needs --vpi")
        if o["vci"] is not None:
            qs = qs.filter(vc__vpi=o["vpi"], vc__vci=o["vci"])
        elif o["vpi"] is not None:
            qs = qs.filter(vp__vpi=o["vpi"])
        else:
            qs = qs.filter(vp__isnull=True, vc__isnull=True)
        if o["direction"]:
            qs = qs.filter(direction=o["direction"])
        found = [catalog.info(s) for s in qs]
        if o["metric"]:
            found = [s for s in found if s.metric == o["metric"]]
        else:
            primary = [s for s in found if s.metric in ("cells", "octets")]
            cells = [s for s in primary if s.metric == "cells"]
            found = cells or primary or found
        if not found:
            raise CommandError("no series matches these options")
        return sorted(found, key=lambda s: (s.direction, s.metric, s.id))

    def _request(self, o: dict, series: list) -> PlotRequest:
        ids = tuple(s.id for s in series)
        if o["start"] or o["end"]:
            if not o["start"]:
                raise CommandError("--end needs --start")
            start = selection.parse_time("--start", o["start"])
            end = selection.parse_time("--end", o["end"]) if o["end"] else None
            return PlotRequest(ids, "custom", start, end, o["unit"], o["resolution"])
        return PlotRequest(ids, "24h", None, None, o["unit"], o["resolution"])
