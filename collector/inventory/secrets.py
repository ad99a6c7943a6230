"""SNMP secrets at rest: encrypted in the database, decrypted only for the poller.

Community strings and v3 keys are credentials to network devices. They are stored encrypted
(Fernet) with CELLAR_SECRETS_KEY, or a key derived from SECRET_KEY when that is unset, so a
database dump alone does not hand them out. Forms never render them back (see admin.py) and
the Secret wrapper keeps them out of repr(), logs and templates.
"""
from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models


class Secret(str):
    """A str whose repr and template rendering never show the value."""

    def __repr__(self) -> str:
        return "Secret('***')" if self else "Secret('')"

    def __html__(self) -> str:  # Django templates call this instead of str()
        return "***" if self else ""


@lru_cache(maxsize=4)
def _fernet(key_material: str, secret_key: str) -> Fernet:
    if key_material:
        try:
            return Fernet(key_material.encode())
        except (ValueError, TypeError):
            raise ImproperlyConfigured(
                "CELLAR_SECRETS_KEY must be 32 bytes in urlsafe base64 "
                "(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')"
            ) from None
    digest = hashlib.sha256(b"cellar-snmp-secrets:" + secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def fernet() -> Fernet:
    return _fernet(settings.CELLAR_SECRETS_KEY, settings.SECRET_KEY)


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
            "a stored SNMP secret cannot be decrypted: CELLAR_SECRETS_KEY (or SECRET_KEY) changed; "
            "re-enter the switch's credentials"
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
