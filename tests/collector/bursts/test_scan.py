"""collector/bursts/scan.py: the day-by-day burst scan of the 1-minute tier, stored."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.bursts import scan as scan
from collector.bursts.models import Burst, BurstScan
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
        assert (b.rule_k, b.rule_capacity_pct, b.rule_min_s, b.rule_min_samples) == (4.0, 0.01, 30.0, 2)


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


def test_a_burst_across_midnight_is_two_rows_counted_once():
    from webapp.datasets.queries import burst_counts

    f.reset_rollups()
    across = (86400 - 600, 86400 + 1200)                 # 23:50 on day 0 to 00:20 on day 1
    archive = arc.build(bursts=[across])
    scan.run(budget_s=120)
    rows = list(Burst.objects.order_by("start"))
    midnight = archive["t0"] + timedelta(days=1)
    assert [(r.day, r.continues) for r in rows] == [(archive["t0"].date(), False), (midnight.date(), True)]
    assert rows[0].end == midnight == rows[1].start
    sid = archive["bursty"].id
    assert burst_counts([sid], archive["t0"], archive["end"])[sid][0] == 1
    assert burst_counts([sid], midnight, archive["end"])[sid][0] == 1        # its first day out of range
    # Rescanning the first day alone keeps the link (the second day's row is re-marked).
    scan.scan_day(archive["t0"].date(), final=True)
    assert Burst.objects.get(day=midnight.date()).continues
    f.reset_rollups()


def test_late_samples_in_a_final_day_make_it_scanned_again(archive):
    from collector.archive import rollup

    scan.run(budget_s=120)
    day = archive["t0"].date()
    assert BurstScan.objects.get(day=day).final and Burst.objects.filter(day=day).count() == 1
    # A spool replayed after an outage: the polls of the hole of day 0 arrive now, at a burst's rate.
    a, z = arc.MISSED
    late = [
        (float(t), arc.STEP * 1000, [arc.QUIET * arc.STEP, arc.BURST * arc.STEP], [0, 0])
        for t in range(a + arc.STEP, z + 1, arc.STEP)]
    f.insert(archive["switch"], archive["switch"].layouts.get(), late, t0=archive["t0"])
    assert scan.days_to_scan(scan.watermarks().get("1m"))[0][0] != day       # not before the rollup saw them
    assert rollup.process_late() > 0
    assert (day, True) in scan.days_to_scan(scan.watermarks().get("1m"))
    scan.run(budget_s=120)
    found = list(Burst.objects.filter(day=day).order_by("start"))
    assert len(found) == 2 and abs((found[1].start - archive["t0"]).total_seconds() - a) <= 60
    assert (day, True) not in scan.days_to_scan(scan.watermarks().get("1m"))   # done: not again


# A 10 Gb/s Ethernet port whose usual traffic is nothing: 2 hours of 15 s samples (octets/s), with
# (first sample, samples, rate) stretches: two bursts of 30 Mb/s lasting 60 s and 30 s, one 30 s
# burst that straddles a minute, and two single-sample spikes of 500 Mb/s. Found by default: 3.
FAST_BURSTS = [(40, 4, 30e6 / 8), (200, 2, 30e6 / 8), (303, 2, 30e6 / 8)]
FAST_SPIKES = [(100, 1, 500e6 / 8), (400, 1, 500e6 / 8)]


def fast_port() -> dict:
    sw = f.switch("fast-sw", profile="if-mib")
    out = f.series(f.port(sw, "eth0", is_atm=False, capacity_cells=None, speed_bps=10_000_000_000), "out",
                   metric="octets", unit="octets", capacity=10_000_000_000 // 8)
    rates = [0.0] * 480
    for first, n, rate in FAST_BURSTS + FAST_SPIKES:
        rates[first:first + n] = [rate] * n
    rows = [(0.0, None, [None], [32])] + [(15.0 * (i + 1), 15_000, [round(r * 15)], [0]) for i, r in enumerate(rates)]
    f.insert(sw, f.layout(sw, [out]), rows, t0=f.T0)
    return {"series": out}


def test_bursts_on_a_fast_quiet_port_are_found_by_default(client, settings):
    from collector.archive import rollup
    from tests.support.users import make_user

    f.reset_rollups()
    try:
        port = fast_port()
        rollup.run(budget_s=300)
        scan.run(budget_s=120)
        stored = list(Burst.objects.filter(series=port["series"]).order_by("start"))
        assert len(stored) == len(FAST_BURSTS), [(b.start, b.end, b.peak) for b in stored]
        for b, (first, n, rate) in zip(stored, FAST_BURSTS, strict=True):
            assert abs((b.start - f.T0).total_seconds() - 15 * first) <= 60          # to the minute
            assert b.volume == round(rate * 15) * n
        client.force_login(make_user("researcher", "viewer"))
        body = client.get("/traffic/api/data", {"s": port["series"].id, "start": f.T0.isoformat(),
                                                "end": (f.T0 + timedelta(hours=2)).isoformat(), "res": "raw",
                                                "points": "0"}).json()
        found = body["series"][0]["bursts"]["bursts"]
        assert [(b["points"], b["volume"]) for b in found] == [(n, round(r * 15) * n) for _, n, r in FAST_BURSTS]
    finally:
        f.reset_rollups()
