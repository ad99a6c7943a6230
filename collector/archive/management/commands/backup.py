"""python manage.py backup [PATH]: the whole database with pg_dump -Fc, and a manifest beside it.

PATH is a file name or a directory (default: state/backups/), where cellar-<db>-<UTC time>.dump is
written with cellar-<db>-<UTC time>.manifest.json. See collector/archive/backup.py and
docs/operations.md.
"""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.archive.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the whole Cellar database (pg_dump custom format) with a manifest for restore."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", help="dump file or directory (default: state/backups/)")

    def handle(self, *args, **o) -> None:
        path = Path(o["path"]) if o["path"] else Path(settings.BASE_DIR) / "state" / "backups"
        if not o["path"] or o["path"].endswith("/"):       # a directory, made if missing
            path.mkdir(parents=True, exist_ok=True)
        try:
            backup(path, say=self.stdout.write)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
