"""collector/studies/bursts.py: the day-by-day burst scan of the 1-minute tier, stored."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.studies import bursts as scan
from collector.studies.models import Burst, BurstScan
from tests.support import burst_archive as arc
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def archive():
    f.reset_rollups()
    yield arc.build()
    f.reset_rollups()


def test_every_day_is_scanned_and_the_known_bursts_are_stored(archive):
    result = scan.run(budget_s=120)
    days = [(archive["t0"] + timedelta(days=d)).date() for d in range(arc.DAYS)]
    assert [str(d) for d in days] == result["days"][:2]
    assert BurstScan.objects.get(day=days[0]).final and BurstScan.objects.get(day=days[1]).final
    stored = list(Burst.objects.order_by("start"))
    assert [b.series_id for b in stored] == [archive["bursty"].id] * 2
    for b, (a, z) in zip(stored, arc.BURSTS, strict=True):
        # 1-minute buckets: the burst's edges to the minute that holds them
        assert abs((b.start - archive["t0"]).total_seconds() - a) <= 60
        assert abs((b.end - archive["t0"]).total_seconds() - z) <= 60
        assert b.peak == pytest.approx(arc.BURST, rel=0.01)
        assert b.volume == pytest.approx(arc.BURST * (z - a), rel=0.03)
        assert (b.rule_k, b.rule_capacity_pct, b.rule_min_s) == (4.0, 10.0, 60.0)


def test_a_rescan_replaces_a_day_and_a_final_day_is_not_scanned_again(archive):
    scan.run(budget_s=120)
    n = Burst.objects.count()
    due = scan.days_to_scan(scan.watermarks().get("1m"))
    # only days not yet settled (today, and yesterday before 06:00 UTC); the archive's are final
    assert due and all(not final for _, final in due) and all(d > archive["end"].date() for d, _ in due)
    day = archive["t0"].date()
    again = scan.scan_day(day, final=True)
    assert again.bursts == 1 and Burst.objects.count() == n             # replaced, not added


def test_the_rule_of_the_settings_is_the_one_stored(archive, settings):
    settings.CELLAR_BURST_MIN_SECONDS = 900          # the 10-minute burst of day 0 is now too short
    scan.run(budget_s=120)
    assert Burst.objects.count() == 1 and Burst.objects.get().rule_min_s == 900


def test_nothing_to_scan_before_any_rollup():
    f.reset_rollups()
    assert scan.run(budget_s=5) == {"days": [], "bursts": 0, "seconds": pytest.approx(0, abs=1)}


def test_a_day_is_final_only_once_the_tier_is_well_past_its_end(archive):
    day = archive["t0"].date()
    end = archive["t0"] + timedelta(days=1)
    scan.BurstScan.objects.all().delete()
    assert scan.days_to_scan(end)[0] == (day, False)                       # just complete: not final
    assert scan.days_to_scan(end + scan.SETTLE)[0] == (day, True)
