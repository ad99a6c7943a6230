"""python manage.py rotate_secrets: re-encrypt every stored secret (SNMP credentials, alert destinations'
URLs) under CELLAR_SECRETS_KEY.

Values written under a key listed in CELLAR_SECRETS_OLD_KEYS are re-encrypted (MultiFernet.rotate)
in one transaction; values already under the current key are left alone (a second run rotates
nothing). Prints counts only. See collector/inventory/secrets.py and docs/operations.md.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from collector.inventory import secrets


class Command(BaseCommand):
    help = "Re-encrypt every stored SNMP secret under the current key (CELLAR_SECRETS_KEY)."

    def handle(self, *args, **o) -> None:
        try:
            r = secrets.rotate()
        except secrets.Undecryptable as exc:
            raise CommandError(
                f"the stored secrets of {len(exc.switches)} switches (or other rows) decrypt under no configured key: "
                f"{', '.join(exc.switches)}. Put the key they were written with in CELLAR_SECRETS_OLD_KEYS, or "
                "re-enter their credentials (admin). Nothing was changed") from None
        self.stdout.write(f"rotate_secrets: {r.rotated} secrets re-encrypted under the current key, "
                          f"{r.current} already under it, {r.empty} empty fields, {r.switches} switches")
