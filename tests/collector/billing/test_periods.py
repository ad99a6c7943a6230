"""Billing periods: the billing day of each month at midnight in the bill's zone; a day beyond a
month's last day falls on its last day."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.billing import periods

PARIS = periods.zone("Europe/Paris")


def local(bounds, tz=PARIS):
    return tuple(t.astimezone(tz).strftime("%Y-%m-%d %H:%M") for t in bounds)


@pytest.mark.parametrize("year, month, expected", [
    (2027, 1, "2027-01-31"), (2027, 2, "2027-02-28"), (2028, 2, "2028-02-29"), (2027, 4, "2027-04-30"),
    (2027, 3, "2027-03-31"), (2027, 12, "2027-12-31"),
])
def test_day_31_is_each_months_last_day(year, month, expected):
    assert periods.day_in_month(year, month, 31).isoformat() == expected


def test_a_period_of_day_31_runs_from_one_months_last_day_to_the_next_ones():
    t = datetime(2027, 2, 15, tzinfo=UTC)
    assert local(periods.containing(t, 31, PARIS)) == ("2027-01-31 00:00", "2027-02-28 00:00")
    t = datetime(2027, 3, 1, tzinfo=UTC)
    assert local(periods.containing(t, 31, PARIS)) == ("2027-02-28 00:00", "2027-03-31 00:00")


def test_midnight_is_the_zones_and_daylight_saving_makes_a_period_an_hour_shorter():
    start, end = periods.containing(datetime(2027, 3, 10, tzinfo=UTC), 1, PARIS)
    assert start == datetime(2027, 2, 28, 23, 0, tzinfo=UTC)      # midnight CET
    assert end == datetime(2027, 3, 31, 22, 0, tzinfo=UTC)        # midnight CEST
    assert end - start == timedelta(days=31, hours=-1)
    kolkata = periods.zone("Asia/Kolkata")
    start, _ = periods.containing(datetime(2027, 3, 10, tzinfo=UTC), 15, kolkata)
    assert start == datetime(2027, 2, 14, 18, 30, tzinfo=UTC)


def test_the_instant_of_a_boundary_belongs_to_the_period_it_starts():
    start, end = periods.containing(datetime(2027, 5, 1, 0, 0, tzinfo=UTC), 1, periods.zone(""))
    assert start == datetime(2027, 5, 1, tzinfo=UTC) and end == datetime(2027, 6, 1, tzinfo=UTC)
    before = periods.containing(start - timedelta(microseconds=1), 1, periods.zone("UTC"))
    assert before == (datetime(2027, 4, 1, tzinfo=UTC), start)


def test_between_lists_every_period_oldest_first():
    got = periods.between(datetime(2027, 1, 20, tzinfo=UTC), datetime(2027, 4, 2, tzinfo=UTC), 15, periods.zone(""))
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in got] == [
        ("2027-01-15", "2027-02-15"), ("2027-02-15", "2027-03-15"), ("2027-03-15", "2027-04-15")]


@pytest.mark.parametrize("day", [0, 32, -1])
def test_a_billing_day_outside_1_to_31_is_refused_with_the_rule(day):
    with pytest.raises(ValueError, match="1 to 31 .31: the last day of each month."):
        periods.day_in_month(2027, 2, day)


def test_an_unknown_zone_is_named():
    with pytest.raises(ValueError, match="'Mars/Olympus' is not an IANA time zone"):
        periods.zone("Mars/Olympus")
