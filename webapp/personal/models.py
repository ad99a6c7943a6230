"""Tables a user writes: a time zone preference, saved views (short URLs), image links.

Page apps read them (webapp/traffic answers /v/<code> and /i/<secret>.png); this app owns them.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from webapp.access.models import Credential


class Preference(models.Model):
    """The viewer's time zone (IANA name); without a row, the site default CELLAR_TIME_ZONE."""
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="cellar_preference")
    time_zone = models.CharField(max_length=64, help_text="IANA time zone name, e.g. Europe/Berlin")

    class Meta:
        db_table = "personal_preference"


class SavedView(models.Model):
    """A plot's selection, range, units, resolution and comparison under a short code: /v/<code>.
    The same query saved twice gets the same code (digest is unique)."""
    code = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the query")
    query = models.TextField(help_text="the plot's query string, checked when saved")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="saved_views")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "personal_saved_view"
        ordering = ["-created"]


class ImageLink(Credential):
    """A read-only, expiring link to one plot image (/i/<secret>.png) for a wiki or a mail, where no
    login or Authorization header can be sent. Only the SHA-256 of the secret is kept."""
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="image_links")
    query = models.TextField(help_text="the plot's query string: the only selection the link shows")

    noun = "image link"

    class Meta:
        db_table = "personal_image_link"
        ordering = ["-created"]
