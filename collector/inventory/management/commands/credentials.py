"""python manage.py credentials list|add|delete: the site's SNMP credential sets.

Sets are tried in turn (by position) when a switch is added by address or a range is swept; the
first that answers is copied into the switch. Secrets come from --secrets-file, --secrets-stdin or a
prompt, never the command line, and are never printed.
"""
from __future__ import annotations

import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.core.snmp_types import AUTH_PROTOCOLS, PRIV_PROTOCOLS, SNMP_VERSIONS
from collector.inventory.cli import add_secret_arguments, read_secrets
from collector.inventory.models import CredentialSet


class Command(BaseCommand):
    help = "List, add or delete site SNMP credential sets (secrets never on the command line, never printed)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="the sets, in the order they are tried")
        add = sub.add_parser("add", help="add (or replace) a set")
        add.add_argument("name")
        add.add_argument("--snmp-version", choices=list(SNMP_VERSIONS), default="2c")
        add.add_argument("--v3-user", default="")
        add.add_argument("--auth-proto", choices=list(AUTH_PROTOCOLS), default="")
        add.add_argument("--priv-proto", choices=list(PRIV_PROTOCOLS), default="")
        add.add_argument("--position", type=int, default=100, help="sets are tried lowest first (default 100)")
        add.add_argument("--note", default="")
        add_secret_arguments(add, ("community", "auth-key", "priv-key"))
        delete = sub.add_parser("delete", help="delete a set (switches keep the credentials copied from it)")
        delete.add_argument("name")

    @command_actor
    def handle(self, *args, **o) -> None:
        getattr(self, f"_{o['action']}")(o)

    def _list(self, o: dict) -> None:
        for s in CredentialSet.objects.all():
            who = f"user {s.v3_user} ({s.auth_proto or 'noAuth'}/{s.priv_proto or 'noPriv'})" if s.snmp_version == "3" \
                else "community ***"
            self.stdout.write(f"{s.position:>4}  {s.name}  SNMPv{s.snmp_version}  {who}  {s.note}")

    def _add(self, o: dict) -> None:
        v3 = o["snmp_version"] == "3"
        if v3 and not o["v3_user"]:
            raise CommandError("--snmp-version 3 needs --v3-user")
        needed = (["auth-key"] if o["auth_proto"] else []) + (["priv-key"] if o["priv_proto"] else []) if v3 \
            else ["community"]
        secrets = read_secrets(needed, flags={"community": o["community"], "auth-key": o["auth_key"],
                                              "priv-key": o["priv_key"]},
                               file=o["secrets_file"], use_stdin=o["secrets_stdin"], stdin=sys.stdin,
                               warn=lambda m: self.stderr.write(f"warning: {m}"))
        for key in ("auth-key", "priv-key"):
            if key in needed and len(secrets[key]) < 8:
                raise CommandError(f"the {key} must be at least 8 characters (RFC 3414)")
        cs = CredentialSet.objects.filter(name=o["name"]).first() or CredentialSet(name=o["name"])
        cs.position, cs.snmp_version, cs.note = o["position"], o["snmp_version"], o["note"]
        cs.community = "" if v3 else secrets["community"]
        cs.v3_user, cs.auth_proto, cs.priv_proto = ((o["v3_user"], o["auth_proto"], o["priv_proto"]) if v3
                                                    else ("", "", ""))
        cs.auth_key, cs.priv_key = secrets.get("auth-key", ""), secrets.get("priv-key", "")
        try:
            cs.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        cs.save()
        self.stdout.write(f"credential set {cs.name}: SNMPv{cs.snmp_version}, tried at position {cs.position}")

    def _delete(self, o: dict) -> None:
        deleted, _ = CredentialSet.objects.filter(name=o["name"]).delete()
        if not deleted:
            raise CommandError(f"no credential set {o['name']!r}")
        self.stdout.write(f"deleted credential set {o['name']}")
