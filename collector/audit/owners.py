"""Who owns a job asked from the web (an export, an analysis) and who may see it: its user, or for an
anonymous request (anonymous read can be turned on) its session, kept as the SHA-256 of the session
key (never the key itself); a staff user sees every job."""
from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models


class OwnedJob(models.Model):
    """What every job asked from the web has: its owner (a user, or for an anonymous request the
    SHA-256 of its session key; jobs.visible_to decides who sees it) and its times."""
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+", help_text="empty when asked anonymously (see session_hash)")
    session_hash = models.CharField(max_length=64, blank=True, default="",
                                    help_text="SHA-256 of the anonymous owner's session key (never the key)")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


def session_hash(session_key: str | None) -> str:
    return hashlib.sha256(session_key.encode()).hexdigest() if session_key else ""


def visible_to(job: OwnedJob, *, user_id: int | None, is_staff: bool, session_key: str | None) -> bool:
    """The owner (the same user, or for an anonymous job the same session) or a staff user."""
    if is_staff:
        return True
    if job.owner_id is not None:
        return user_id is not None and job.owner_id == user_id
    return bool(session_key) and job.session_hash == session_hash(session_key)
