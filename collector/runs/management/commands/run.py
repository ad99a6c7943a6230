"""python manage.py run start|stop|add|list|show: experiment runs from the command line.

  run start NAME [--src HOST --dst HOST | --pvc 'SWITCH PORT VPI/VCI'] [--series REF ...] [--bytes N ...]
                                                                                 (starts now)
  run stop NAME                                                                  (ends now)
  run add NAME --start ISO --end ISO [...]                                       (a past window)
  run add NAME --report FILE [...]   (what it sent, from iperf3 -J, a NetSpec script or a JSON
                                      summary: collector/runs/reports.py)
  run list
  run show NAME|ID                   (every field, as /runs/api/<id> gives them)

The options are the fields of collector/runs/spec.py (--message-size for message_size);
--series takes a series id or its name ("ipsw Gi1/0/1 out"), once per series.
"""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from collector.audit.context import command_actor
from collector.core.isotime import iso
from collector.runs import edit, spec
from collector.runs.models import ExperimentRun

# Options the command spells its own way (older names kept working).
ALIASES = {"bytes_sent": ["--bytes"], "report": ["--iperf3"]}


def option(name: str) -> str:
    return "--" + name.replace("_", "-")


class Command(BaseCommand):
    help = "Create, end, list and show experiment runs (named time windows shown on every plot they overlap)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        for action in ("start", "add"):
            p = sub.add_parser(action)
            p.add_argument("name")
            for f in spec.FIELDS:
                if f.name == "name" or (f.name in ("start", "end") and action == "start"):
                    continue
                flags = [option(f.name), *ALIASES.get(f.name, [])]
                if f.kind == "series":
                    p.add_argument(*flags, dest=f.name, action="append", default=[], help=f.help)
                elif f.kind == "report":
                    p.add_argument(*flags, dest=f.name, help=f"a file: {f.help}")
                else:
                    p.add_argument(*flags, dest=f.name, help=f.help)
        sub.add_parser("stop").add_argument("name")
        sub.add_parser("list")
        sub.add_parser("show").add_argument("run", help="a run's name (its latest) or id")

    @command_actor
    def handle(self, *args, **o) -> None:
        now = timezone.now()
        try:
            if o["action"] == "list":
                self._list()
                return
            if o["action"] == "show":
                self._show(o["run"])
                return
            if o["action"] == "stop":
                run = edit.stop(o["name"], now)
                self.stdout.write(f"run {run.name}: {iso(run.start)} – {iso(now)}")   # stop() ended it now
                return
            values = {f.name: o.get(f.name) for f in spec.FIELDS}
            values["report"] = Path(o["report"]).read_text() if o.get("report") else ""
            if o["action"] == "start":
                values["start"] = now
            run = edit.create(spec.from_values(values, created_by="cli"), now)
        except (edit.RunError, OSError) as exc:
            raise CommandError(str(exc)) from None
        end = iso(run.end) if run.end else "going on (end it with `manage.py run stop NAME`)"
        names = [s["name"] for s in spec.as_json(run)["series"]]
        named = f"; series: {', '.join(names)}" if names else ""
        self.stdout.write(f"run {run.name} (id {run.id}): {iso(run.start)} – {end}{named}")

    def _list(self) -> None:
        for run in ExperimentRun.objects.select_related("src_host", "dst_host").order_by("start"):
            hosts = f" {run.src_host} -> {run.dst_host}" if run.src_host or run.dst_host else ""
            end = iso(run.end) if run.end else "going on"
            sent = f" {run.bytes_sent:,} bytes" if run.bytes_sent is not None else ""
            self.stdout.write(f"{run.id:5d} {run.name}: {iso(run.start)} – {end}{hosts}{sent}")

    def _show(self, ref: str) -> None:
        qs = ExperimentRun.objects.select_related("src_host", "dst_host", "channel__port__switch")
        run = (qs.filter(id=int(ref)).first() if ref.isdigit() else None) or \
            qs.filter(name=ref).order_by("-start").first()
        if run is None:
            raise CommandError(f"no run named {ref!r} (see `manage.py run list`)")
        self.stdout.write(json.dumps(spec.as_json(run), indent=2))
