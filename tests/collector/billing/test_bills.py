"""collector/billing: saving bills with their checks (bad input says what and the limit), computing
a period to date from raw samples (cells as 53 bytes), closing what is due, the frozen history."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import DatabaseError, transaction

from collector.billing import closing, compute, edit
from collector.billing.models import Bill, Period
from collector.groups import edit as groups
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db
TODAY = datetime.now(UTC).date()


@pytest.fixture
def site():
    """An ATM port (cells, 2,000 cells/s in, 1,000 out) and an IP port (octets, 1 MB/s in) polled every 15 s
    for the last 3 hours, and a group of their traffic."""
    from collector.archive.rollup import db_now

    now = db_now()
    atm = f.switch("asx-1")
    a1 = f.port(atm, "A1")
    rx, tx = f.series(a1, "in"), f.series(a1, "out")
    ip = f.switch("rtr-1", profile="if-mib")
    eth = f.port(ip, "eth0", is_atm=False, capacity_cells=None, speed_bps=10**9)
    ip_in = f.series(eth, "in", metric="octets", unit="octets", width=64, capacity=125_000_000)
    err = f.series(eth, "in", metric="errors", unit="packets", object_name="ifInErrors", capacity=None)
    start = now - timedelta(hours=3)
    f.constant(atm, f.layout(atm, [rx, tx]), start, 720, 15, [2000, 1000])
    f.constant(ip, f.layout(ip, [ip_in, err]), start, 720, 15, [1_000_000, 1])
    group = groups.save(groups.spec_from("edge", f"{rx.id} {tx.id} {ip_in.id}", ""))
    return {"now": now, "start": start, "group": group, "err": err, "atm": atm, "ip": ip}


def spec(site, **kw) -> edit.BillSpec:
    return edit.BillSpec(**({"name": "acme", "group": site["group"].name, "starts": TODAY} | kw))


@pytest.mark.parametrize("change, message", [
    ({"billing_day": 0}, "billing day 0: a day of the month, 1 to 31"),
    ({"billing_day": 32}, "e.g. 31 in February, falls on that month's last day"),
    ({"sample_interval_s": 120}, "sample interval 120 s: one of 60, 300"),
    ({"group": "nope"}, "no group 'nope'"),
    ({"time_zone": "Mars/Olympus"}, "not an IANA time zone"),
    ({"starts": TODAY - timedelta(days=500)}, "kept 400 days .CELLAR_RETENTION_RAW_DAYS."),
    ({"name": ""}, "name"),
    ({"mode": "flat"}, "mode"),
])
def test_bad_bills_are_refused_with_what_is_accepted(site, change, message):
    with pytest.raises(compute.BillError, match=message):
        edit.save(spec(site, **change))
    assert not Bill.objects.exists()


def test_a_bill_with_no_ports_or_with_counters_it_cannot_bill(site):
    emptied = groups.save(groups.spec_from("soon-empty", str(site["err"].id), ""))
    site["err"].gone_at = site["now"] - timedelta(days=1)
    site["err"].save()
    with pytest.raises(compute.BillError, match="has no members"):
        edit.save(spec(site, group=emptied.name))
    site["err"].gone_at = None
    site["err"].save()
    errors = groups.save(groups.spec_from("errs", "", "switch=rtr-1 metric=errors"))
    with pytest.raises(compute.BillError, match="a bill counts traffic in cells or octets"):
        edit.save(spec(site, group=errors.name))


def test_a_billing_day_of_31_is_accepted_and_falls_on_february_28(site):
    bill = edit.save(spec(site, billing_day=31, time_zone="UTC"))
    (start, end), zone = compute.bounds_at(bill, datetime(2027, 2, 20, tzinfo=UTC))
    assert (start.date().isoformat(), end.date().isoformat(), zone) == ("2027-01-31", "2027-02-28", "UTC")


def test_switches_in_different_zones_need_the_bills_own(site):
    site["atm"].time_zone = "Europe/Paris"
    site["atm"].save()
    with pytest.raises(compute.BillError, match=r"different time zones \(asx-1: Europe/Paris, rtr-1: UTC\)"):
        edit.save(spec(site))
    assert edit.save(spec(site, time_zone="America/Chicago")).time_zone == "America/Chicago"


def test_the_estimate_to_date_sums_cells_as_53_bytes_and_octets(site):
    bill = edit.save(spec(site, direction="sum", sample_interval_s=60))
    c = compute.compute(bill, site["start"], site["now"] + timedelta(days=1))
    assert c.as_of < site["now"] and (site["now"] - c.as_of) < timedelta(minutes=2)
    f_ = c.figures
    assert f_.measured == f_.intervals > 170
    # the steady minutes: 2,000 cells/s x 53 B + 1 MB/s in, 1,000 x 53 out, in bits/s
    assert f_.p95_in == pytest.approx((2000 * 53 + 1_000_000) * 8, rel=1e-9)
    assert f_.p95_out == pytest.approx(1000 * 53 * 8, rel=1e-9)
    assert f_.p95_sum == pytest.approx((3000 * 53 + 1_000_000) * 8, rel=1e-9)
    # every second of [start, as_of) carried 1,000 cells out: the volume to the byte
    assert f_.volume_out == 1000 * 53 * int((c.as_of - site["start"]).total_seconds())
    period = compute.store(bill, c, closed=False)
    assert period.p95_bps == f_.p95_sum and not period.closed and len(period.bins_in) == f_.intervals


def test_closing_freezes_each_due_period_once_and_the_database_refuses_a_change(site, settings):
    settings.CELLAR_BILL_CLOSE_DELAY_S = 0
    bill = edit.save(spec(site, starts=(site["now"] - timedelta(days=40)).date(), time_zone="UTC", billing_day=1))
    report = closing.run(now=site["now"])
    assert not report["failed"] and report["closed"] >= 1 and report["refreshed"] == 1
    closed = list(Period.objects.filter(bill=bill, closed=True))
    assert closed and all(p.as_of == p.end for p in closed)
    again = closing.run(now=site["now"])
    assert again["closed"] == 0 and Period.objects.filter(bill=bill, closed=True).count() == len(closed)
    with pytest.raises(DatabaseError, match="never recomputed"), transaction.atomic():
        Period.objects.filter(pk=closed[0].pk).update(p95_bps=0)
    # the billing day, zone, start and group cut the history: they no longer change
    with pytest.raises(compute.BillError, match="has closed periods: its billing_day cut them"):
        edit.save(spec(site, starts=bill.starts, time_zone="UTC", billing_day=15), bill)
    changed = edit.save(spec(site, starts=bill.starts, time_zone="UTC", mode="quota", quota_bytes=10**9), bill)
    assert changed.mode == "quota"


def test_the_command_runs_what_the_beat_task_runs(site):
    import io

    from django.core.management import call_command

    edit.save(spec(site))
    out = io.StringIO()
    call_command("close_bills", stdout=out)
    assert "refreshed 1 estimate(s)" in out.getvalue() and Period.objects.filter(closed=False).count() == 1
