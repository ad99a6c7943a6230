"""Tables of the billing app: bills and their periods.

A Bill bills a group (collector/groups) per period from one billing day to the next. A Period
row holds what was billed: the figures, the definition they were computed with (copied, so a
later change of the bill does not rewrite history), the member series, and the volume and
measured time of every sample interval (the numbers the percentile was taken over). A closed
period is never recomputed: a trigger (migration 0001) refuses any UPDATE of a closed row.
"""
from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from collector.groups.models import Group
from collector.inventory.models import validate_time_zone
from numerics.billing import DIRECTION_RULES, MODES

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$"
NAME_RULE = "1 to 100 characters: letters, digits, spaces, '.', '_', '/' or '-', not starting with a sign"
SAMPLE_INTERVALS = (60, 300, 600, 900, 1800, 3600)
MODE_WORDS = {"p95": "95th percentile", "quota": "quota (volume)"}
DIRECTION_WORDS = {"in": "in (received by the switch ports)", "out": "out (sent by the switch ports)",
                   "max": "the larger of in and out", "sum": "in + out"}
assert set(MODE_WORDS) == set(MODES) and set(DIRECTION_WORDS) == set(DIRECTION_RULES)


class Bill(models.Model):
    name = models.CharField(max_length=100, unique=True, validators=[RegexValidator(NAME_PATTERN, NAME_RULE)],
                            help_text=NAME_RULE)
    group = models.ForeignKey(Group, on_delete=models.PROTECT, related_name="bills",
                              help_text="the series billed (their traffic counters: cells or octets)")
    billing_day = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(31)],
        help_text="day of the month a period starts, at midnight in the bill's zone; beyond a month's last day: "
                  "its last day")
    mode = models.CharField(max_length=8, choices=MODE_WORDS.items(), default="p95")
    direction = models.CharField(max_length=4, choices=DIRECTION_WORDS.items(), default="max")
    sample_interval_s = models.PositiveIntegerField(choices=[(s, f"{s // 60} min") for s in SAMPLE_INTERVALS],
                                                    default=300)
    committed_bps = models.BigIntegerField(null=True, blank=True, validators=[MinValueValidator(0)],
                                           help_text="95th percentile bills: the committed rate, bits/s")
    quota_bytes = models.BigIntegerField(null=True, blank=True, validators=[MinValueValidator(0)],
                                         help_text="quota bills: the volume included per period, bytes")
    time_zone = models.CharField(max_length=64, blank=True, default="", validators=[validate_time_zone],
                                 help_text="IANA zone of the billing day's midnight; empty: the zone of the "
                                           "group's switches (they must agree), else UTC")
    starts = models.DateField(help_text="the first period billed is the one holding this day")
    notes = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "billing_bill"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Period(models.Model):
    bill = models.ForeignKey(Bill, on_delete=models.CASCADE, related_name="periods")
    start = models.DateTimeField()
    end = models.DateTimeField()
    zone = models.CharField(max_length=64)
    closed = models.BooleanField(default=False, help_text="frozen: never recomputed")
    computed_at = models.DateTimeField()
    as_of = models.DateTimeField(help_text="the figures cover [start, as_of): the end once closed")
    # The definition the figures were computed with.
    mode = models.CharField(max_length=8)
    direction = models.CharField(max_length=4)
    sample_interval_s = models.PositiveIntegerField()
    committed_bps = models.BigIntegerField(null=True)
    quota_bytes = models.BigIntegerField(null=True)
    series_ids = ArrayField(models.IntegerField())
    # The figures (numerics/billing.py Figures).
    intervals = models.IntegerField()
    measured = models.IntegerField()
    measured_in = models.IntegerField()
    measured_out = models.IntegerField()
    p95_in_bps = models.FloatField(null=True)
    p95_out_bps = models.FloatField(null=True)
    p95_sum_bps = models.FloatField(null=True)
    p95_bps = models.FloatField(null=True, help_text="the billed rate by the direction rule")
    p95_at = models.DateTimeField(null=True, help_text="start of the sample interval that set the billed rate")
    volume_in_bytes = models.BigIntegerField()
    volume_out_bytes = models.BigIntegerField()
    volume_bytes = models.BigIntegerField(help_text="the billed volume by the direction rule")
    over = models.FloatField(null=True, help_text="above the committed rate (bits/s) or the quota (bytes)")
    # Every sample interval: bytes and measured seconds, in and out.
    bins_in = ArrayField(models.FloatField())
    bins_out = ArrayField(models.FloatField())
    measured_in_s = ArrayField(models.FloatField())
    measured_out_s = ArrayField(models.FloatField())
    notes = models.TextField(blank=True, default="")

    class Meta:
        db_table = "billing_period"
        ordering = ["bill", "-start"]
        constraints = [models.UniqueConstraint(fields=["bill", "start"], name="billing_period_unique")]

    def __str__(self) -> str:
        return f"{self.bill} {self.local_start}"

    def _local(self, t) -> str:
        return t.astimezone(ZoneInfo(self.zone)).strftime("%Y-%m-%d %H:%M")

    @property
    def local_start(self) -> str:
        """The period's start on the wall clock of its zone (where its billing day begins)."""
        return self._local(self.start)

    @property
    def local_end(self) -> str:
        """Its end (exclusive: the next period's start), on the same clock."""
        return self._local(self.end)
