"""manage.py role USER [viewer|operator|admin|none] [--create]: show or set a user's role.

With --create the new user's password comes from --password-file FILE, --password-stdin, or a
prompt when standard input is a terminal; never from the command line. Without a terminal and
without either option the command stops with how to give it (a script: `--password-stdin`).
"""
from __future__ import annotations

import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from collector.inventory.cli import read_secrets
from webapp.access import roles


class Command(BaseCommand):
    help = "Show or set the role of a user (viewer, operator, admin, or none); --create makes the user."

    def add_arguments(self, parser) -> None:
        parser.add_argument("user")
        parser.add_argument("role", nargs="?", choices=[*roles.ROLES, "none"])
        parser.add_argument("--create", action="store_true",
                            help="create the user; the password from --password-file, --password-stdin or a prompt")
        parser.add_argument("--password-file", metavar="FILE", help="the new user's password: the file's first line")
        parser.add_argument("--password-stdin", action="store_true",
                            help="read the new user's password from standard input (for scripts)")

    def handle(self, *args, **opts) -> None:
        User = get_user_model()
        user = User.objects.filter(username=opts["user"]).first()
        if user is None and opts["create"]:
            password = self._password(opts)
            try:
                validate_password(password, User(username=opts["user"]))
            except ValidationError as exc:
                raise CommandError("password refused: " + " ".join(exc.messages)) from None
            user = User.objects.create_user(opts["user"], password=password)
        elif user is None:
            raise CommandError(f"no user {opts['user']!r} (use --create to make one)")
        if opts["role"]:
            roles.grant(user, None if opts["role"] == "none" else opts["role"])
        self.stdout.write(f"{user}: {roles.role_of(user) or 'no role'}"
                          f"{' (superuser)' if user.is_superuser else ''}")

    @staticmethod
    def _password(opts: dict) -> str:
        # A piped stdin without --password-stdin is read too (the way earlier versions took it).
        use_stdin = opts["password_stdin"] or (not opts["password_file"] and not sys.stdin.isatty())
        got = read_secrets(["password"], flags={}, file=opts["password_file"], use_stdin=use_stdin,
                           stdin=sys.stdin, warn=lambda m: None, options=("--password-stdin", "--password-file"))
        return got["password"].splitlines()[0]
