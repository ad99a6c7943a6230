"""manage.py role USER [viewer|operator|admin|none] [--create] : show or set a user's role."""
from __future__ import annotations

import getpass

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from webapp.access import roles


class Command(BaseCommand):
    help = "Show or set the role of a user (viewer, operator, admin, or none); --create makes the user."

    def add_arguments(self, parser) -> None:
        parser.add_argument("user")
        parser.add_argument("role", nargs="?", choices=[*roles.ROLES, "none"])
        parser.add_argument("--create", action="store_true",
                            help="create the user; the password is read from stdin (or asked)")

    def handle(self, *args, **opts) -> None:
        User = get_user_model()
        user = User.objects.filter(username=opts["user"]).first()
        if user is None and opts["create"]:
            password = getpass.getpass(f"password for {opts['user']}: ") if self.stdin_is_tty() else \
                input().rstrip("\n")
            if not password:
                raise CommandError("an empty password is refused")
            user = User.objects.create_user(opts["user"], password=password)
        elif user is None:
            raise CommandError(f"no user {opts['user']!r} (use --create to make one)")
        if opts["role"]:
            roles.grant(user, None if opts["role"] == "none" else opts["role"])
        self.stdout.write(f"{user}: {roles.role_of(user) or 'no role'}"
                          f"{' (superuser)' if user.is_superuser else ''}")

    @staticmethod
    def stdin_is_tty() -> bool:
        import sys

        return sys.stdin.isatty()
