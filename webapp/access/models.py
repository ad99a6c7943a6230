"""Bearer credentials kept at rest as a SHA-256 digest (shown once), revocable, expiring: API
tokens here, image links in webapp/personal (both are a Credential).

A credential is 24-32 random bytes, so a fast digest is enough at rest (nothing to brute-force,
unlike a password); its first characters (prefix) are kept in clear so a user can tell them apart.
"""
from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import ClassVar, Self

from django.conf import settings
from django.db import models
from django.utils import timezone

LAST_USED_EVERY = timedelta(minutes=1)   # last_used is written at most this often (no write per request)


def digest(secret: str) -> str:
    """What is stored of a credential's secret: SHA-256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Credential(models.Model):
    """What every bearer credential has. Subclasses name what it is (`noun`) for the messages."""
    prefix = models.CharField(max_length=16, help_text="the secret's first characters, to recognise it")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the secret (hex)")
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    noun = "credential"
    # The manager Django gives every concrete subclass (an abstract model has none of its own).
    objects: ClassVar[models.Manager[Self]]

    class Meta:
        abstract = True

    def state(self, now: datetime | None = None) -> str:
        now = now or timezone.now()
        if self.revoked:
            return "revoked"
        return "expired" if self.expires <= now else "active"

    def refusal(self, holder, now: datetime) -> str | None:
        """Why this credential is not accepted now (None: it is); holder is its user."""
        if self.revoked:
            return f"{self.noun} {self.prefix}… was revoked"
        if self.expires <= now:
            return f"{self.noun} {self.prefix}… expired at {self.expires:%Y-%m-%d %H:%M} UTC"
        if not holder.is_active:
            return f"the user of {self.noun} {self.prefix}… is not active"
        return None

    def touch(self, now: datetime) -> None:
        """Record a use, at most once per LAST_USED_EVERY."""
        if self.last_used is None or now - self.last_used >= LAST_USED_EVERY:
            type(self).objects.filter(pk=self.pk).update(last_used=now)
            self.last_used = now

    def revoke(self, now: datetime | None = None) -> bool:
        """Revoke (idempotent); False when it was revoked already."""
        if self.revoked:
            return False
        self.revoked = now or timezone.now()
        self.save(update_fields=["revoked"])
        return True


class ApiToken(Credential):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="what the token is for (a script, a wiki)")

    noun = "API token"

    class Meta:
        db_table = "access_api_token"
        ordering = ["-created"]
        constraints = [models.UniqueConstraint(fields=["user", "name"], name="access_token_user_name")]
        # The permissions the roles are made of (webapp/access/roles.py) that belong to no model.
        permissions = [
            ("read_archive", "Read pages, plots, CSV and the JSON API"),
            ("run_checks", "Check a switch or a host now"),
        ]

    def __str__(self) -> str:
        return f"{self.user} / {self.name} ({self.prefix}…)"
