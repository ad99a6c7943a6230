"""python manage.py grafana_role [--password-stdin] [--check]

Makes the database role cellar_grafana (created NOLOGIN by migration archive/0007 with SELECT on the
views of schema grafana only) a login for Grafana's PostgreSQL data source: LOGIN with the password of
CELLAR_GRAFANA_PASSWORD (or one line of stdin), and the statement timeout of a plot's data
(collector/reader/timelimits.py "traffic.data", scaled and capped as the pages' limits are), so a
dashboard over an unbounded range is stopped as the plot page would be. Without a password the role
is left (or put back) NOLOGIN and the command says so; it never fails for that, so the compose
migrate service may run it on every start. --check prints what the role may do and changes nothing.

The password goes to the server inside the statement (PostgreSQL has no parameter for ALTER ROLE);
it is quoted by psycopg and never printed or logged by this command.
"""
from __future__ import annotations

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from psycopg import sql

from collector.reader.timelimits import limit_ms

ROLE = "cellar_grafana"
BUDGET = "traffic.data"
MIN_PASSWORD = 12


class Command(BaseCommand):
    help = "Give the read-only role cellar_grafana its login (CELLAR_GRAFANA_PASSWORD) and statement timeout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
        parser.add_argument("--check", action="store_true", help="show the role's settings, change nothing")

    def handle(self, *args, **opts) -> None:
        with connection.cursor() as cur:
            cur.execute("SELECT rolcanlogin, coalesce(rolconfig, '{}') FROM pg_roles WHERE rolname = %s", [ROLE])
            row = cur.fetchone()
            if row is None:
                raise CommandError(f"role {ROLE} does not exist: run `manage.py migrate` first")
            if opts["check"]:
                self.stdout.write(f"{ROLE}: {'LOGIN' if row[0] else 'NOLOGIN'}; {', '.join(row[1]) or 'no settings'}")
                return
            password = sys.stdin.readline().rstrip("\n") if opts["password_stdin"] else settings.CELLAR_GRAFANA_PASSWORD
            ms = limit_ms(BUDGET)
            cur.execute(sql.SQL("ALTER ROLE {} SET statement_timeout = {}").format(
                sql.Identifier(ROLE), sql.Literal(int(ms))).as_string(connection.connection))
            # set by the migration too; again here for a role a restore made on another cluster
            cur.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(sql.Identifier(ROLE))
                        .as_string(connection.connection))
            if not password:
                cur.execute(sql.SQL("ALTER ROLE {} NOLOGIN PASSWORD NULL").format(sql.Identifier(ROLE))
                            .as_string(connection.connection))
                self.stdout.write(f"{ROLE}: NOLOGIN (CELLAR_GRAFANA_PASSWORD is empty); statement timeout {ms} ms")
                return
            if len(password) < MIN_PASSWORD:
                raise CommandError(f"the password of {ROLE} must have at least {MIN_PASSWORD} characters")
            cur.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(ROLE), sql.Literal(password)).as_string(connection.connection))
        self.stdout.write(f"{ROLE}: LOGIN with the password given; statement timeout {ms} ms "
                          f"(the budget of {BUDGET}), SELECT on schema grafana's views only")
