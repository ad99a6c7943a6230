"""manage.py token create USER NAME [--days N] | list [USER] | revoke ID"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from webapp.access import tokens
from webapp.access.models import ApiToken


class Command(BaseCommand):
    help = "API tokens for scripts: make one (printed once), list them, revoke one."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        c = sub.add_parser("create", help="make a token and print it (only this once)")
        c.add_argument("user")
        c.add_argument("name")
        c.add_argument("--days", type=int, default=tokens.DEFAULT_DAYS)
        ls = sub.add_parser("list", help="tokens (never their text) of a user or everyone")
        ls.add_argument("user", nargs="?")
        r = sub.add_parser("revoke", help="revoke a token by id (from list)")
        r.add_argument("id", type=int)

    def handle(self, *args, **opts) -> None:
        action = opts["action"]
        if action == "create":
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"no user {opts['user']!r}")
            try:
                issued = tokens.issue(user, opts["name"], opts["days"])
            except tokens.TokenError as exc:
                raise CommandError(str(exc)) from None
            self.stderr.write(f"token {issued.token.name} of {user} (id {issued.token.id}), expires "
                              f"{issued.token.expires:%Y-%m-%d %H:%M} UTC; shown once:")
            self.stdout.write(issued.plaintext)
        elif action == "list":
            qs = ApiToken.objects.select_related("user")
            if opts["user"]:
                qs = qs.filter(user__username=opts["user"])
            for t in qs:
                used = f"{t.last_used:%Y-%m-%d %H:%M}" if t.last_used else "never"
                self.stdout.write(f"{t.id}\t{t.user}\t{t.name}\t{t.prefix}…\texpires {t.expires:%Y-%m-%d}"
                                  f"\tlast used {used}\t{t.state()}")
        else:
            tok = ApiToken.objects.filter(pk=opts["id"]).first()
            if tok is None:
                raise CommandError(f"no token {opts['id']}")
            self.stdout.write(f"token {tok.id} ({tok.user} / {tok.name}) "
                              f"{'revoked' if tokens.revoke(tok) else 'was already revoked'}")
