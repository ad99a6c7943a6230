"""Tables of the external app: imported series and their points, apart from polled series.

A point is the COUNT of units (cells, octets, packets, bits) in one interval of the series'
fixed length, stored at the interval's START (UTC), whatever the file's times labelled
(`stamp`); a rate is value / interval_s per second.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models

NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9._-]{0,99}$"
NAME_RULE = "1 to 100 characters: a letter first, then letters, digits, '.', '_' or '-'"
UNITS = ("cells", "octets", "packets", "bits")
MAX_INTERVAL_S = 7 * 86400


class ExternalSeries(models.Model):
    class Stamp(models.TextChoices):
        START = "start", "a row's time is the start of its interval"
        END = "end", "a row's time is the end of its interval"

    name = models.CharField(max_length=100, unique=True, validators=[RegexValidator(NAME_PATTERN, NAME_RULE)],
                            help_text=NAME_RULE)
    unit = models.CharField(max_length=10, choices=[(u, u) for u in UNITS],
                            help_text="what a value counts (a count per interval, not a rate)")
    interval_s = models.PositiveIntegerField(validators=[MinValueValidator(1)],
                                             help_text="the length of every interval, seconds")
    stamp = models.CharField(max_length=5, choices=Stamp.choices, default=Stamp.START,
                             help_text="what the imported file's times labelled (stored times are starts)")
    source = models.CharField(max_length=200, blank=True, default="", help_text="who provided the data")
    description = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # Cached from external_point by every import (imports.py), for the list page.
    first = models.DateTimeField(null=True, blank=True, help_text="start of the first stored interval")
    last = models.DateTimeField(null=True, blank=True, help_text="start of the last stored interval")
    n_points = models.BigIntegerField(default=0)

    class Meta:
        db_table = "external_series"
        verbose_name_plural = "external series"

    def __str__(self) -> str:
        return self.name

    @property
    def last_end(self) -> datetime | None:
        """The end of the last stored interval."""
        return self.last + timedelta(seconds=self.interval_s) if self.last else None


class ExternalPoint(models.Model):
    """One interval's count: a TimescaleDB hypertable on t (migrations/external/0002), its only
    index the primary key (series_id, t). Deleting a series deletes its points in the database
    (ON DELETE CASCADE), not through the ORM."""
    pk = models.CompositePrimaryKey("series_id", "t")
    series = models.ForeignKey(ExternalSeries, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
                               related_name="+")
    t = models.DateTimeField(help_text="start of the interval, UTC")
    value = models.FloatField(help_text="units counted in the interval (>= 0)")

    class Meta:
        db_table = "external_point"
