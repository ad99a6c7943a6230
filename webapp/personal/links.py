"""Saved views (short URLs) and image links: made, found, revoked. The query strings are checked
by the page app before they come here (webapp/traffic/permalinks.py).

An image link is a capability: whoever holds its URL sees that one image, without a login,
until it expires or is revoked. That is what embedding in a wiki or a mail needs (neither sends
a session cookie or an Authorization header); the risk is a forwarded mail or a public wiki
page showing that plot to people without an account. So a link: shows one selection only
(stored here, not taken from the URL), is read-only, lives at most IMAGE_LINK_MAX_DAYS, is
revocable at /me/, stops when its owner loses the viewer role or is deactivated, and only its
SHA-256 is stored (the URL is shown once, when it is made).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from webapp.access.models import digest
from webapp.personal.models import ImageLink, SavedView

CODE_BYTES = 6                  # 8 url-safe characters: 2^48 codes
IMAGE_LINK_PREFIX = "img_"
IMAGE_LINK_MAX_DAYS = 366
IMAGE_LINK_DEFAULT_DAYS = 90


class LinkError(ValueError):
    """Why a link cannot be made or is not accepted (said to the caller as is)."""


def save_view(query: str, owner) -> SavedView:
    """The saved view of this query: the existing one, or a new one with a fresh short code."""
    d = digest(query)
    found = SavedView.objects.filter(digest=d).first()
    if found is not None:
        return found
    for _ in range(5):
        try:
            with transaction.atomic():
                return SavedView.objects.create(code=secrets.token_urlsafe(CODE_BYTES), digest=d, query=query,
                                                owner=owner if getattr(owner, "is_authenticated", False) else None)
        except IntegrityError:          # the same query saved at the same moment, or a code collision
            found = SavedView.objects.filter(digest=d).first()
            if found is not None:
                return found
    raise LinkError("could not find a free short code; try again")


def find_view(code: str) -> SavedView | None:
    return SavedView.objects.filter(code=code).first()


@dataclass(frozen=True)
class Minted:
    link: ImageLink
    secret: str


def mint(owner, query: str, days: int = IMAGE_LINK_DEFAULT_DAYS, now: datetime | None = None) -> Minted:
    if not 1 <= days <= IMAGE_LINK_MAX_DAYS:
        raise LinkError(f"an image link lives 1 to {IMAGE_LINK_MAX_DAYS} days, not {days}")
    now = now or timezone.now()
    secret = IMAGE_LINK_PREFIX + secrets.token_urlsafe(24)
    link = ImageLink.objects.create(owner=owner, digest=digest(secret), prefix=secret[:len(IMAGE_LINK_PREFIX) + 6],
                                    query=query, created=now, expires=now + timedelta(days=days))
    return Minted(link, secret)


def check(secret: str, now: datetime | None = None) -> ImageLink:
    """The live link of this secret, or LinkError saying why not (the owner's role is checked by
    the caller, with the same rule as every page)."""
    now = now or timezone.now()
    link = ImageLink.objects.select_related("owner").filter(digest=digest(secret)).first()
    if link is None or not secret.startswith(IMAGE_LINK_PREFIX):
        raise LinkError("unknown image link")
    refusal = link.refusal(link.owner, now)
    if refusal:
        raise LinkError(refusal)
    link.touch(now)
    return link


def revoke(link: ImageLink, now: datetime | None = None) -> bool:
    return link.revoke(now)
