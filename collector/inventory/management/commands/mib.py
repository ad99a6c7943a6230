"""manage.py mib add|rebuild|check|list: compile MIB modules into mibs/compiled/ (collector/mibc/cli.py
says what each does; mibs/README.md is the manual). The extra profile directories are the settings'
CELLAR_PROFILE_DIRS: a module that would leave one of their profiles unloadable is refused."""
from __future__ import annotations

from typing import TextIO, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.mibc import cli


class Command(BaseCommand):
    help = "Compile MIB modules (pysmi) into mibs/compiled/: add FILE|MODULE..., rebuild, check, list."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args, **options) -> None:
        # Django's OutputWrapper passes write() through to the stream: a text stream to the compiler.
        if cli.run(options, settings.CELLAR_PROFILE_DIRS, cast(TextIO, self.stdout), cast(TextIO, self.stderr)):
            raise CommandError(f"mib {options['action']}: refused (see above)")
