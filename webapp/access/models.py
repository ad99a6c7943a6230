"""API tokens: per user, stored as a SHA-256 digest (shown once), revocable, expiring.

A token is 32 random bytes, so a fast digest is enough at rest (nothing to brute-force, unlike
a password); its first characters (prefix) are kept in clear so a user can tell tokens apart.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="what the token is for (a script, a wiki)")
    prefix = models.CharField(max_length=16, help_text="the token's first characters, to recognise it")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token (hex)")
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

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

    def state(self, now=None) -> str:
        now = now or timezone.now()
        if self.revoked:
            return "revoked"
        return "expired" if self.expires <= now else "active"
