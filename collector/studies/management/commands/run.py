"""python manage.py run start|stop|add|list: experiment runs from the command line.

  run start NAME [--src HOST --dst HOST | --pvc 'SWITCH PORT VPI/VCI'] [--bytes N ...]   (starts now)
  run stop NAME                                                                          (ends now)
  run add NAME --start ISO --end ISO [...]                                         (a past window)
  run add NAME --report FILE [...]          (what it sent, from iperf3 -J, a NetSpec script or a
                                             JSON summary: collector/studies/reports.py)
  run list
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from collector.audit.context import command_actor
from collector.core.isotime import iso, parse_optional
from collector.studies import runs
from collector.studies.models import ExperimentRun


def _time(name: str, text: str | None):
    try:
        return parse_optional(name, text)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


class Command(BaseCommand):
    help = "Create, end and list experiment runs (named time windows shown on every plot they overlap)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        for action in ("start", "add"):
            p = sub.add_parser(action)
            p.add_argument("name")
            p.add_argument("--description", default="")
            p.add_argument("--src", default="", help="source host (name or address)")
            p.add_argument("--dst", default="", help="destination host")
            p.add_argument("--pvc", default="", help="'switch port vpi/vci'")
            p.add_argument("--bytes", type=int, dest="bytes_sent", help="bytes the application sent")
            p.add_argument("--messages", type=int)
            p.add_argument("--message-size", type=int, help="bytes per message (AAL5 CPCS-SDU)")
            p.add_argument("--overhead", type=int, default=0, help="header bytes per message not in --bytes")
            p.add_argument("--report", "--iperf3", dest="report",
                           help="file with iperf3 -J output, a NetSpec experiment script or a JSON summary")
            if action == "add":
                p.add_argument("--start", help="ISO 8601 (default: from --report)")
                p.add_argument("--end", help="ISO 8601 (default: from --report)")
        stop = sub.add_parser("stop")
        stop.add_argument("name")
        sub.add_parser("list")

    @command_actor
    def handle(self, *args, **o) -> None:
        now = timezone.now()
        try:
            if o["action"] == "list":
                self._list()
                return
            if o["action"] == "stop":
                run = runs.stop(o["name"], now)
                self.stdout.write(f"run {run.name}: {iso(run.start)} – {iso(run.end)}")
                return
            report = Path(o["report"]).read_text() if o.get("report") else ""
            start = _time("--start", o.get("start")) or (now if o["action"] == "start" else None)
            spec = runs.RunSpec(o["name"], start, _time("--end", o.get("end")), o["description"], o["src"], o["dst"],
                                o["pvc"], o["bytes_sent"], o["messages"], o["message_size"], o["overhead"], report,
                                created_by="cli")
            run = runs.create(spec, now)
        except (runs.RunError, OSError) as exc:
            raise CommandError(str(exc)) from None
        end = iso(run.end) if run.end else "going on (end it with `manage.py run stop NAME`)"
        self.stdout.write(f"run {run.name} (id {run.id}): {iso(run.start)} – {end}")

    def _list(self) -> None:
        for run in ExperimentRun.objects.select_related("src_host", "dst_host").order_by("start"):
            hosts = f" {run.src_host} -> {run.dst_host}" if run.src_host or run.dst_host else ""
            end = iso(run.end) if run.end else "going on"
            sent = f" {run.bytes_sent:,} bytes" if run.bytes_sent is not None else ""
            self.stdout.write(f"{run.id:5d} {run.name}: {iso(run.start)} – {end}{hosts}{sent}")
