"""python manage.py add_switch NAME ADDRESS [options]: put a switch under polling."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.core.profiles import profile_names
from collector.core.snmp_types import AUTH_PROTOCOLS, PRIV_PROTOCOLS, SNMP_VERSIONS
from collector.inventory.models import Switch


class Command(BaseCommand):
    help = "Add a switch to the inventory (credentials are stored encrypted and never printed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("address")
        parser.add_argument("--port", type=int, default=161)
        parser.add_argument("--snmp-version", choices=list(SNMP_VERSIONS), default="2c")
        parser.add_argument("--community", default="public")
        parser.add_argument("--v3-user", default="")
        parser.add_argument("--auth-proto", choices=list(AUTH_PROTOCOLS), default="")
        parser.add_argument("--auth-key", default="")
        parser.add_argument("--priv-proto", choices=list(PRIV_PROTOCOLS), default="")
        parser.add_argument("--priv-key", default="")
        parser.add_argument("--profile", choices=profile_names(), default="auto")
        parser.add_argument("--interval", type=int, default=settings.CELLAR_DEFAULT_POLL_INTERVAL,
                            help="seconds between polls (default CELLAR_DEFAULT_POLL_INTERVAL)")
        parser.add_argument("--poller-group", default="default")
        parser.add_argument("--time-zone", default="", help="IANA zone of the switch's site (Europe/Paris): bill "
                                                             "days start at midnight there; default UTC")
        parser.add_argument("--timeout", type=float, default=settings.CELLAR_SNMP_TIMEOUT,
                            help="seconds per SNMP request attempt (default CELLAR_SNMP_TIMEOUT)")
        parser.add_argument("--retries", type=int, default=settings.CELLAR_SNMP_RETRIES,
                            help="SNMP retries (default CELLAR_SNMP_RETRIES)")

    @command_actor
    def handle(self, *args, **o) -> None:
        if Switch.objects.filter(name=o["name"]).exists():
            raise CommandError(f"switch {o['name']!r} already exists (change it in the admin)")
        if o["snmp_version"] == "3":
            if not o["v3_user"]:
                raise CommandError("--snmp-version 3 needs --v3-user")
            if o["auth_proto"] and len(o["auth_key"]) < 8:
                raise CommandError("--auth-key must be at least 8 characters (RFC 3414)")
            if o["priv_proto"] and (not o["auth_proto"] or len(o["priv_key"]) < 8):
                raise CommandError("--priv-proto needs --auth-proto and a --priv-key of at least 8 characters")
        switch = Switch(
            name=o["name"], address=o["address"], snmp_port=o["port"], snmp_version=o["snmp_version"],
            community=o["community"] if o["snmp_version"] != "3" else "", v3_user=o["v3_user"],
            auth_proto=o["auth_proto"], auth_key=o["auth_key"], priv_proto=o["priv_proto"], priv_key=o["priv_key"],
            profile=o["profile"], poll_interval_s=o["interval"], poller_group=o["poller_group"],
            time_zone=o["time_zone"], timeout_s=o["timeout"], retries=o["retries"])
        try:
            switch.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        switch.save()
        self.stdout.write(f"added switch {switch.name} at {switch.address}:{switch.snmp_port} "
                          f"(SNMPv{switch.snmp_version}, profile {switch.profile}, every {switch.poll_interval_s} s, "
                          f"queue {switch.queue}); next: manage.py discover {switch.name}")
