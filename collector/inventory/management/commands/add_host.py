"""python manage.py add_host NAME ADDRESS: a host to check for the status pages."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.inventory.models import Host


class Command(BaseCommand):
    help = "Add a host whose reachability and delay the status pages show."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("address")
        parser.add_argument("--method", choices=[m for m, _ in Host.CHECK_METHODS], default="auto")
        parser.add_argument("--tcp-port", type=int, default=22)

    @command_actor
    def handle(self, *args, **o) -> None:
        if Host.objects.filter(name=o["name"]).exists():
            raise CommandError(f"host {o['name']!r} already exists")
        host = Host.objects.create(name=o["name"], address=o["address"], check_method=o["method"],
                                   tcp_port=o["tcp_port"])
        self.stdout.write(f"added host {host.name} at {host.address} (check: {host.check_method})")
