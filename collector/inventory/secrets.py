"""SNMP secrets at rest: encrypted in the database, decrypted only for the poller.

Community strings and v3 keys are credentials to network devices. They are stored encrypted
(Fernet) with CELLAR_SECRETS_KEY, or a key derived from SECRET_KEY when that is unset, so a
database dump alone does not hand them out. Forms never render them back (see admin.py) and
the Secret wrapper keeps them out of repr(), logs and templates.

Key rotation: CELLAR_SECRETS_OLD_KEYS lists the keys used before. Values are read with a
MultiFernet (the current key first, then the old ones) and always written with the current key;
rotate() (`manage.py rotate_secrets`) re-encrypts every stored value under the current key, after
which the old keys can be removed (docs/operations.md).
"""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, models, transaction


class Secret(str):
    """A str whose repr and template rendering never show the value."""

    def __repr__(self) -> str:
        return "Secret('***')" if self else "Secret('')"

    def __html__(self) -> str:  # Django templates call this instead of str()
        return "***" if self else ""


def _key(material: str, setting: str) -> Fernet:
    try:
        return Fernet(material.encode())
    except (ValueError, TypeError):
        raise ImproperlyConfigured(
            f"{setting} must be 32 bytes in urlsafe base64 "
            "(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')"
        ) from None


def derived_key(secret_key: str) -> bytes:
    """The key used when CELLAR_SECRETS_KEY is unset (put it in CELLAR_SECRETS_OLD_KEYS to move off it)."""
    return base64.urlsafe_b64encode(hashlib.sha256(b"cellar-snmp-secrets:" + secret_key.encode()).digest())


@lru_cache(maxsize=4)
def _keys(current: str, old: tuple[str, ...], secret_key: str) -> tuple[Fernet, MultiFernet]:
    first = _key(current, "CELLAR_SECRETS_KEY") if current else Fernet(derived_key(secret_key))
    olds = [_key(k, f"CELLAR_SECRETS_OLD_KEYS (entry {i + 1})") for i, k in enumerate(old)]
    return first, MultiFernet([first, *olds])


def current_key() -> Fernet:
    return _keys(settings.CELLAR_SECRETS_KEY, tuple(settings.CELLAR_SECRETS_OLD_KEYS), settings.SECRET_KEY)[0]


def fernet() -> MultiFernet:
    """Encrypts with the current key; decrypts with the current key or any old one."""
    return _keys(settings.CELLAR_SECRETS_KEY, tuple(settings.CELLAR_SECRETS_OLD_KEYS), settings.SECRET_KEY)[1]


def encrypt(value: str) -> str:
    return fernet().encrypt(value.encode()).decode() if value else ""


def decrypt(token: str) -> Secret:
    if not token:
        return Secret("")
    try:
        return Secret(fernet().decrypt(token.encode()).decode())
    except InvalidToken:
        # The key changed since this secret was stored: polling then fails with an auth or
        # timeout error naming the switch, which is what an operator can act on.
        raise ImproperlyConfigured(
            "a stored SNMP secret cannot be decrypted: CELLAR_SECRETS_KEY (or SECRET_KEY) changed; put the "
            "key it was written with in CELLAR_SECRETS_OLD_KEYS, or re-enter the switch's credentials"
        ) from None


class SecretField(models.TextField):
    """Stores ciphertext, hands out Secret values."""

    def from_db_value(self, value, expression, connection):
        return decrypt(value) if value is not None else Secret("")

    def to_python(self, value):
        if isinstance(value, Secret) or value is None:
            return value
        return Secret(value)

    def get_prep_value(self, value):
        return encrypt(str(value or ""))


@dataclass(frozen=True)
class Rotation:
    """What rotate() did: counts only, never a value."""

    switches: int
    rotated: int           # values re-encrypted under the current key
    current: int           # values already under the current key (left as they were)
    empty: int             # fields with no secret


class Undecryptable(Exception):
    """Some stored values decrypt under no configured key; `switches` names their switches."""

    def __init__(self, switches: list[str]):
        super().__init__(", ".join(switches))
        self.switches = switches


def secret_columns(model: type[models.Model]) -> list[str]:
    return [f.column for f in model._meta.concrete_fields if isinstance(f, SecretField)]


def rotate() -> Rotation:
    """Re-encrypt every stored secret under the current key, in one transaction.

    Every model with a SecretField is covered: switches' SNMP credentials and any other app's
    (alert destinations' URLs), found through the app registry (this module imports no app).
    Idempotent: a value the current key already opens is left as it is, so a second run rotates
    nothing. If any value decrypts under no key, nothing is written and Undecryptable names the
    switches (other rows: "<model> <name>"). The ciphertext is read with SQL: the model field
    would decrypt it on the way.
    """
    from django.apps import apps

    from collector.inventory.models import Switch

    current, keys = current_key(), fernet()
    models_with_secrets = [Switch] + [m for m in apps.get_models() if m is not Switch and secret_columns(m)]
    rotated = already = empty = switches = 0
    bad: list[str] = []
    with transaction.atomic(), connection.cursor() as cur:
        updates: list[tuple[str, int, dict[str, str]]] = []
        for model in models_with_secrets:
            cols = secret_columns(model)
            table = connection.ops.quote_name(model._meta.db_table)
            label = "name" if any(f.column == "name" for f in model._meta.concrete_fields) else "id"
            prefix = "" if model is Switch else f"{model._meta.verbose_name} "
            cur.execute(f"SELECT id, {label}, {', '.join(map(connection.ops.quote_name, cols))} FROM {table} "
                        f"ORDER BY {label} FOR UPDATE")
            rows = cur.fetchall()
            if model is Switch:
                switches = len(rows)
            for row_id, name, *tokens in rows:
                changed: dict[str, str] = {}
                for col, token in zip(cols, tokens):
                    if not token:
                        empty += 1
                        continue
                    try:
                        current.decrypt(token.encode())
                        already += 1
                        continue
                    except InvalidToken:
                        pass
                    try:
                        changed[col] = keys.rotate(token.encode()).decode()
                    except InvalidToken:
                        bad.append(f"{prefix}{name}")
                        break
                if changed:
                    updates.append((table, row_id, changed))
        if bad:
            raise Undecryptable(sorted(set(bad)))
        for table, row_id, changed in updates:
            sets = ", ".join(f"{connection.ops.quote_name(c)} = %s" for c in changed)
            cur.execute(f"UPDATE {table} SET {sets} WHERE id = %s", [*changed.values(), row_id])
            rotated += len(changed)
    return Rotation(switches, rotated, already, empty)
