"""manage.py trapd [--host H] [--port P]: the SNMP trap receiver (docs/events.md)."""
from __future__ import annotations

import asyncio
import logging
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from collector.events import trapd


class Command(BaseCommand):
    help = "Receive SNMP traps (v2c, v3) on UDP: states at once, events, unknown and rejected traps stored."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=settings.CELLAR_TRAP_HOST, help="address to listen on")
        parser.add_argument("--port", type=int, default=settings.CELLAR_TRAP_PORT,
                            help="UDP port (default CELLAR_TRAP_PORT; 162 needs root or CAP_NET_BIND_SERVICE)")

    def handle(self, *args, host: str, port: int, **opts) -> None:
        if not 1 <= port <= 65535:
            raise CommandError(f"--port {port}: a UDP port is 1 to 65535")
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")

        def ready(sockname) -> None:
            self.stdout.write(f"listening on {sockname[0]}:{sockname[1]}/udp")
            self.stdout.flush()

        try:
            asyncio.run(trapd.serve(host, port, ready))
        except OSError as exc:
            raise CommandError(f"cannot listen on {host}:{port}/udp: {exc}") from None
