"""python manage.py discover NAME: walk the switch, update ports, VPs, VCs, cross-connects."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.inventory.cli import switch_named
from collector.poller import actions
from collector.poller.runner import classify


class Command(BaseCommand):
    help = "Discover a switch's ports, virtual paths and channels and cross-connects."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    @command_actor
    def handle(self, *args, **o) -> None:
        switch = switch_named(o["name"])
        try:
            report = actions.discover(switch.id)
        except actions.DiscoveryFailed as exc:
            raise CommandError(str(exc)) from None
        except actions.DISCOVERY_ERRORS as exc:
            raise CommandError(f"{switch.name}: {classify(exc)}: {exc}") from None
        self.stdout.write(report.summary())
        if not report.complete:
            raise CommandError(f"{switch.name}: discovery incomplete, kept what was read: "
                               + "; ".join(report.failures))
