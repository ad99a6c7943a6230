"""Issue, check and revoke API tokens (webapp.access.models.ApiToken).

Format: "cellar_" + 43 characters of urlsafe base64 (32 random bytes). Only its SHA-256 is kept;
the token itself is shown once, when it is made.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from webapp.access.models import ApiToken, digest

PREFIX = "cellar_"
MAX_DAYS = 366                      # a token that never expires is a password nobody rotates
DEFAULT_DAYS = 90


class TokenError(ValueError):
    """Why a token cannot be made or is not accepted (said to the caller as is)."""


@dataclass(frozen=True)
class Issued:
    token: ApiToken
    plaintext: str


def issue(user, name: str, days: int = DEFAULT_DAYS, now: datetime | None = None) -> Issued:
    name = name.strip()
    if not name:
        raise TokenError("a token needs a name (what it is for)")
    if not 1 <= days <= MAX_DAYS:
        raise TokenError(f"a token lives 1 to {MAX_DAYS} days, not {days}")
    if not user.is_active:
        raise TokenError(f"user {user} is not active")
    now = now or timezone.now()
    plaintext = PREFIX + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            tok = ApiToken.objects.create(user=user, name=name, prefix=plaintext[:len(PREFIX) + 6],
                                          digest=digest(plaintext), created=now,
                                          expires=now + timedelta(days=days))
    except IntegrityError:
        raise TokenError(f"{user} already has a token named {name!r}; revoke it or pick another name") from None
    return Issued(tok, plaintext)


def from_header(value: str) -> str | None:
    """The token of an Authorization header ("Bearer <token>"), None when it carries none."""
    scheme, _, rest = value.strip().partition(" ")
    return rest.strip() if scheme.lower() == "bearer" and rest.strip() else None


def check(plaintext: str, now: datetime | None = None) -> ApiToken:
    """The live token with this text (and its user), or TokenError saying why not."""
    now = now or timezone.now()
    if not plaintext.startswith(PREFIX):
        raise TokenError("not a Cellar API token")
    tok = ApiToken.objects.select_related("user").filter(digest=digest(plaintext)).first()
    if tok is None:
        raise TokenError("unknown API token")
    refusal = tok.refusal(tok.user, now)
    if refusal:
        raise TokenError(refusal)
    tok.touch(now)
    return tok


def revoke(token: ApiToken, now: datetime | None = None) -> bool:
    """Revoke (idempotent); False when it was revoked already."""
    return token.revoke(now)
