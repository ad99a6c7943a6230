"""python manage.py restore DUMP [--force | --into NAME]: a backup made by `manage.py backup`.

Refuses a database that holds tables unless --force (which replaces it) or --into NAME (another
database, created if missing); refuses a dump from a newer schema; migrates an older one forward.
Stop web, worker and beat first. See collector/archive/restore.py and docs/operations.md.
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.archive.backup import BackupError
from collector.archive.restore import restore


class Command(BaseCommand):
    help = "Restore a Cellar backup (TimescaleDB pre/post restore around pg_restore), checked by its manifest."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dump", help="the .dump file; its .manifest.json must be beside it")
        parser.add_argument("--force", action="store_true", help="replace the database even if it holds tables")
        parser.add_argument("--into", metavar="NAME", help="restore into this database instead of the configured one")

    def handle(self, *args, **o) -> None:
        try:
            report = restore(Path(o["dump"]), into=o["into"], force=o["force"], say=self.stdout.write)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        what = "replaced" if report.replaced else "created" if report.created else "filled the empty"
        migrated = f", then applied {len(report.migrated)} newer migrations" if report.migrated else ""
        self.stdout.write(self.style.SUCCESS(
            f"restore done: {what} database {report.database!r} with {sum(report.row_counts.values()):,} rows "
            f"in {len(report.row_counts)} tables{migrated}"))
