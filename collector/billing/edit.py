"""Creating, changing and deleting bills, with the checks that keep a bill computable.

A bill is saved only when its group resolves to traffic series (cells or octets with a
direction), its billing day is 1 to 31 (beyond a month's end: the month's last day), its zone is
known (its own, or the one its switches agree on), and its first period is still held by the raw
samples (CELLAR_RETENTION_RAW_DAYS). Once a period is closed, the day, the zone and the start
no longer change (they cut the history's periods: make a new bill instead); the mode, direction,
sample interval, committed rate and quota apply from the open period on.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from collector.billing import compute, periods
from collector.billing.models import SAMPLE_INTERVALS, Bill
from collector.groups.models import Group

FROZEN_FIELDS = ("billing_day", "time_zone", "starts", "group_id")


@dataclass(frozen=True)
class BillSpec:
    name: str
    group: str                          # id or name
    billing_day: int = 1
    mode: str = "p95"
    direction: str = "max"
    sample_interval_s: int = 300
    committed_bps: int | None = None
    quota_bytes: int | None = None
    time_zone: str = ""
    starts: date | None = None
    notes: str = ""


def _group(ref: str) -> Group:
    ref = str(ref).strip()
    group = Group.objects.filter(pk=int(ref)).first() if ref.isdigit() else Group.objects.filter(name=ref).first()
    if group is None:
        raise compute.BillError(f"no group {ref!r}: a bill is a group (make it on /groups/new)")
    return group


def check(spec: BillSpec, bill: Bill | None = None) -> Bill:
    """The bill the spec describes, checked (not saved); BillError saying what is wrong."""
    group = _group(spec.group)
    if not 1 <= spec.billing_day <= 31:
        raise compute.BillError(f"billing day {spec.billing_day}: a day of the month, 1 to 31 (a day beyond a "
                                "month's last day, e.g. 31 in February, falls on that month's last day)")
    if spec.sample_interval_s not in SAMPLE_INTERVALS:
        raise compute.BillError(f"sample interval {spec.sample_interval_s} s: one of "
                                f"{', '.join(str(s) for s in SAMPLE_INTERVALS)} s (300: the carriers' 5 minutes)")
    today = datetime.now(UTC).date()
    starts = spec.starts or today
    raw_days = settings.CELLAR_RETENTION_RAW_DAYS
    if raw_days and starts < today - timedelta(days=raw_days - 31):
        raise compute.BillError(f"starts {starts}: a bill is computed from raw samples, kept "
                                f"{raw_days} days (CELLAR_RETENTION_RAW_DAYS): its first period must begin within "
                                f"them (start on or after {today - timedelta(days=raw_days - 31)})")
    target = bill or Bill()
    for name, value in (("name", spec.name.strip()), ("group", group), ("billing_day", spec.billing_day),
                        ("mode", spec.mode), ("direction", spec.direction),
                        ("sample_interval_s", spec.sample_interval_s), ("committed_bps", spec.committed_bps),
                        ("quota_bytes", spec.quota_bytes), ("time_zone", spec.time_zone.strip()),
                        ("starts", starts), ("notes", spec.notes)):
        setattr(target, name, value)
    try:
        target.full_clean(exclude=["created_by"], validate_unique=True)
    except ValidationError as exc:
        raise compute.BillError("; ".join(f"{k.replace('_', ' ')}: {' '.join(v)}"
                                          for k, v in exc.message_dict.items())) from None
    series = compute.billed_series(target, datetime.now(UTC))
    periods.zone(compute.zone_name(target, sorted({s.switch_id for s in series})))
    if bill is not None and bill.periods.filter(closed=True).exists():
        before = Bill.objects.get(pk=bill.pk)
        changed = [f for f in FROZEN_FIELDS if getattr(before, f) != getattr(target, f)]
        if changed:
            raise compute.BillError(f"bill {bill.name!r} has closed periods: its {', '.join(changed)} cut them "
                                    "and cannot change (make a new bill for the new terms)")
    return target


@transaction.atomic
def save(spec: BillSpec, bill: Bill | None = None, user=None) -> Bill:
    target = check(spec, bill)
    if bill is None and getattr(user, "is_authenticated", False):
        target.created_by = user
    target.save()
    return target


def delete(bill: Bill) -> None:
    """Delete a bill and its periods (its history goes with it: the audit trail keeps the bill's fields)."""
    bill.delete()
