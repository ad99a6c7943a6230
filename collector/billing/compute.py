"""A bill's figures for a period (or its part to date), and storing them as a Period row.

members -> samples.read (raw deltas per switch) -> numerics.billing.spread (sample intervals)
-> numerics.billing.figures (percentiles, volumes) -> Period. What a bill counts: the traffic
counters (cells as 53-byte cells, octets) of its group's member series with a direction, as the
group resolves at the period's start (series gone during the period still count until then).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

import numpy as np
from django.db import connection

from collector.archive.rollup import retention_days
from collector.billing import periods
from collector.billing.models import Bill, Period
from collector.billing.samples import BYTES_PER_UNIT, Billed, read
from collector.groups.resolve import GroupError, Members, resolve
from collector.inventory.models import Switch
from numerics import billing


class BillError(ValueError):
    """A bill that cannot be computed as defined; str() says why (for its page and the log)."""


@dataclass
class Computed:
    start: datetime
    end: datetime
    as_of: datetime
    zone: str
    members: list[Billed]
    bins: billing.Bins
    figures: billing.Figures
    notes: list[str] = field(default_factory=list)


def billed_series(bill: Bill, at: datetime) -> list[Billed]:
    """The bill's member series that it counts; BillError for an empty group or a member that is
    not traffic (a bill counts cells or octets, in or out)."""
    try:
        members: Members = resolve(bill.group, at=at)
    except GroupError as exc:
        raise BillError(f"bill {bill.name!r}: {exc}") from None
    wrong = [s for s in members.series if s.unit not in BYTES_PER_UNIT or s.direction not in ("in", "out")]
    if wrong:
        s = wrong[0]
        raise BillError(f"bill {bill.name!r}: group {bill.group.name!r} holds {len(wrong)} series a bill cannot "
                        f"count, e.g. {s.switch} {s.port} {s.metric} ({s.unit}, direction {s.direction or 'none'}): "
                        "a bill counts traffic in cells or octets, in or out (rule metric=traffic)")
    return [Billed(s.id, s.switch_id, s.direction, BYTES_PER_UNIT[s.unit]) for s in members.series]


def zone_name(bill: Bill, switch_ids: list[int]) -> str:
    """The bill's own zone, else the one its switches carry (they must agree), else UTC."""
    if bill.time_zone:
        return bill.time_zone
    zones = dict(Switch.objects.filter(id__in=switch_ids).values_list("name", "time_zone"))
    distinct = sorted({z or "UTC" for z in zones.values()})
    if len(distinct) > 1:
        listed = ", ".join(f"{name}: {z or 'UTC'}" for name, z in sorted(zones.items())[:6])
        raise BillError(f"bill {bill.name!r}: its switches are in different time zones ({listed}): give the bill "
                        "its own time zone")
    return distinct[0] if distinct else "UTC"


def lag(switch_ids: list[int]) -> timedelta:
    """How far behind the clock a bill's data is complete: its slowest poll interval, plus 30 s."""
    longest = max(Switch.objects.filter(id__in=switch_ids).values_list("poll_interval_s", flat=True), default=15)
    return timedelta(seconds=longest + 30)


def db_now() -> datetime:
    with connection.cursor() as cur:
        cur.execute("SELECT now()")
        return cur.fetchone()[0].astimezone(UTC)


def bounds_at(bill: Bill, t: datetime) -> tuple[periods.Bounds, str]:
    """The period holding t, and the zone it was cut in."""
    series = billed_series(bill, t)
    name = zone_name(bill, sorted({s.switch_id for s in series}))
    return periods.containing(t, bill.billing_day, periods.zone(name)), name


def first_bounds(bill: Bill) -> tuple[periods.Bounds, str]:
    """The bill's first period: the one holding midnight of the day `starts` in the bill's zone."""
    series = billed_series(bill, datetime.now(UTC))
    name = zone_name(bill, sorted({s.switch_id for s in series}))
    tz = periods.zone(name)
    return periods.containing(datetime.combine(bill.starts, time(0), tz), bill.billing_day, tz), name


def compute(bill: Bill, start: datetime, end: datetime, now: datetime | None = None) -> Computed:
    """The figures of [start, end), or of its part before the data is complete when it is not over."""
    series = billed_series(bill, start)
    switch_ids = sorted({s.switch_id for s in series})
    zone = zone_name(bill, switch_ids)
    now = now or db_now()
    width = bill.sample_interval_s
    complete = now - lag(switch_ids)
    as_of = end if complete >= end else start + timedelta(seconds=width * ((complete - start).total_seconds()
                                                                           // width))
    notes: list[str] = []
    if as_of <= start:
        as_of = start
        empty = billing.Bins(np.array([start.timestamp()]), *(np.zeros(0) for _ in range(4)))
        return Computed(start, end, as_of, zone, series, empty, billing.figures(empty, (0, 0)),
                        ["no complete sample interval yet"])
    streams = read(series, start, as_of)
    e = billing.edges(start.timestamp(), as_of.timestamp(), width)
    bins = billing.spread(streams, e)
    figures = billing.figures(bins, billing.volume(streams, start.timestamp(), as_of.timestamp()))
    if figures.measured < figures.intervals:
        notes.append(f"{figures.intervals - figures.measured} of {figures.intervals} sample intervals have no "
                     "measured traffic (no drawn delta covers them) and are left out of the percentile")
    kept = retention_days()["raw"]
    if kept and start < now - timedelta(days=kept):
        notes.append(f"raw samples older than {kept} days are not kept (CELLAR_RETENTION_RAW_DAYS): the part of "
                     "the period before that is computed from what remains")
    return Computed(start, end, as_of, zone, series, bins, figures, notes)


def _at(c: Computed, index: int | None) -> datetime | None:
    if index is None:
        return None
    return datetime.fromtimestamp(float(c.bins.edges[index]), UTC)


def period_values(bill: Bill, c: Computed, closed: bool, now: datetime) -> dict:
    """The Period columns of a computation (the bill's definition copied in)."""
    f = c.figures
    rule = bill.direction
    p95 = f.p95(rule)
    at_index = {"in": f.p95_at_in, "out": f.p95_at_out, "sum": f.p95_at_sum}.get(rule)
    if rule == "max":
        at_index = f.p95_at_in if (f.p95_in or 0) >= (f.p95_out or 0) else f.p95_at_out
    volume = f.volume(rule)
    if bill.mode == "p95":
        over = max(0.0, p95 - bill.committed_bps) if p95 is not None and bill.committed_bps is not None else None
    else:
        over = float(max(0, volume - bill.quota_bytes)) if bill.quota_bytes is not None else None
    return {
        "end": c.end, "zone": c.zone, "closed": closed, "computed_at": now, "as_of": c.as_of, "mode": bill.mode,
        "direction": rule, "sample_interval_s": bill.sample_interval_s, "committed_bps": bill.committed_bps,
        "quota_bytes": bill.quota_bytes, "series_ids": [s.id for s in c.members], "intervals": f.intervals,
        "measured": f.measured, "measured_in": f.measured_in, "measured_out": f.measured_out,
        "p95_in_bps": f.p95_in, "p95_out_bps": f.p95_out, "p95_sum_bps": f.p95_sum, "p95_bps": p95,
        "p95_at": _at(c, at_index), "volume_in_bytes": f.volume_in, "volume_out_bytes": f.volume_out,
        "volume_bytes": volume, "over": over, "bins_in": c.bins.vol_in.tolist(), "bins_out": c.bins.vol_out.tolist(),
        "measured_in_s": c.bins.measured_in.tolist(), "measured_out_s": c.bins.measured_out.tolist(),
        "notes": "\n".join(c.notes)}


def store(bill: Bill, c: Computed, closed: bool, now: datetime | None = None) -> Period:
    """Write the period: an open one is replaced by each new estimate, a closed one never again
    (the database refuses: migration billing/0001's trigger)."""
    values = period_values(bill, c, closed, now or db_now())
    period, _ = Period.objects.update_or_create(bill=bill, start=c.start, defaults=values)
    return period
