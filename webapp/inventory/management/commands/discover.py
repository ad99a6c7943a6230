"""python manage.py discover NAME: walk the switch, update ports, VPs, VCs, cross-connects."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector import discovery
from collector.profiles import ProfileError
from collector.runner import classify
from collector.snmp import SnmpError
from webapp.inventory.management.commands._switches import switch_named


class Command(BaseCommand):
    help = "Discover a switch's ports, virtual paths and channels and cross-connects."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args, **o) -> None:
        switch = switch_named(o["name"])
        try:
            report = discovery.discover(switch.id)
        except (SnmpError, ProfileError, OSError) as exc:
            raise CommandError(f"{switch.name}: {classify(exc)}: {exc}") from None
        self.stdout.write(report.summary())
