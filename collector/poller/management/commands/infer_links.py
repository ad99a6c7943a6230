"""python manage.py infer_links [--window MINUTES]: cross-connect continuity over the last polls, then
link inference over every claim (what beat's "infer-links" entry runs; docs/topology.md)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from collector.audit.context import command_actor
from collector.inventory.models import Link
from collector.poller import actions


class Command(BaseCommand):
    help = "Infer the links between switches from what the agents say and from the archive's cells."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--window", type=float, default=None,
                            help="minutes of polls the continuity test compares (default CELLAR_TOPOLOGY_WINDOW_MIN)")

    @command_actor
    def handle(self, *args, **o) -> None:
        report = actions.infer_links(o["window"])
        self.stdout.write(report.summary())
        for link in Link.objects.filter(b_port__isnull=False).exclude(state="rejected").select_related(
                "a_port__switch", "b_port__switch").order_by("a_port__switch__name", "a_port__name"):
            b_port = link.b_port
            if b_port is None:              # excluded by the query: links to a host
                continue
            how = link.state + (f" {link.confidence:.2f}" if link.confidence is not None else "")
            line = f"{link.a_port.switch.name} {link.a_port.name} - {b_port.switch.name} {b_port.name}: {how}"
            self.stdout.write(line + (f"; CONFLICT: {link.conflict}" if link.conflict else ""))
