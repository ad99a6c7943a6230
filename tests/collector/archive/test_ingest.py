"""collector/archive/ingest.py: the in-memory copy of the last written row is used only while
the database confirms it is still the latest row before the poll, and equals what it holds; a
counter read from its other column (64-bit <-> 32-bit) starts a new epoch, never a spike."""
from __future__ import annotations

import pytest

from collector.core.poll import PollResult
from collector.core.readings import CounterReading

U32, U64 = 1 << 32, 1 << 64


@pytest.mark.django_db(transaction=True)
def test_previous_row_cache_is_confirmed_by_the_database():
    from django.db import connection

    from collector.archive import ingest, writer
    from collector.archive.models import Layout, Series
    from collector.core.rows import SampleRow
    from collector.inventory.models import Switch

    sw = Switch.objects.create(name="rp", address="127.0.0.1", community="x", profile="if-mib")
    s1 = Series.objects.create(switch=sw, object_name="ifHCInOctets", index="1", width=64, metric="octets",
                               unit="octets")
    layout = Layout.objects.create(switch=sw, series_ids=[s1.id], digest="x")
    readings = {("ifHCInOctets", "1"): CounterReading(U64 - 10, 64)}
    assert ingest.ingest(PollResult(sw.id, 1_700_000_000.25, 100, readings, {})) == 1
    readings2 = {("ifHCInOctets", "1"): CounterReading(5, 64)}
    assert ingest.ingest(PollResult(sw.id, 1_700_000_015.5, 1600, readings2, {})) == 1
    cached = ingest.previous_row(sw.id, 1_700_000_030.0)
    assert cached is ingest.catalog_of(sw.id).last_row[3]      # the copy in memory, confirmed by the database
    ingest.catalog_of(sw.id).last_row = None
    fresh = ingest.previous_row(sw.id, 1_700_000_030.0)
    assert (cached.at, cached.uptime_cs, cached.value_map()) == (fresh.at, fresh.uptime_cs, fresh.value_map())
    assert fresh.value_map() == {s1.id: 5}
    # Another writer stores a later row: the cached copy must not be used any more.
    ingest.ingest(PollResult(sw.id, 1_700_000_045.0, 3100, {("ifHCInOctets", "1"): CounterReading(9, 64)}, {}))
    writer.write_samples([SampleRow(sw.id, 1_700_000_050.0, 3600, layout.id, 5000, [77], [None], [32])])
    got = ingest.previous_row(sw.id, 1_700_000_060.0)
    assert got.value_map() == {s1.id: 77} and got.uptime_cs == 3600
    # A row before the cached one (a replayed poll) is read from the database as well.
    got = ingest.previous_row(sw.id, 1_700_000_016.0)
    assert got.value_map() == {s1.id: 5}
    with connection.cursor() as cur:
        cur.execute("SELECT raw FROM traffic_sample WHERE switch_id = %s ORDER BY time", [sw.id])
        assert [r[0] for r in cur.fetchall()] == [[-10], [5], [9], [77]]


@pytest.mark.django_db(transaction=True)
def test_a_change_of_counter_width_is_a_discontinuity_never_a_spike():
    from collector.archive import ingest
    from collector.archive.models import Layout, Sample, Series
    from collector.core.facts import Flag
    from collector.inventory.models import Switch

    sw = Switch.objects.create(name="wd", address="127.0.0.1", community="x", profile="if-mib",
                               poll_interval_s=15)
    t = 1_700_000_000.0
    # 64-bit column, then the interface answers only its 32-bit one (a value far below), then again.
    values = [(2**40, 64), (2**40 + 15_000, 64), (1_000, 32), (16_000, 32), (2**40 + 60_000, 64)]
    for k, (value, width) in enumerate(values):
        reading = {("ifHCInOctets", "1"): CounterReading(value, width)}
        assert ingest.ingest(PollResult(sw.id, t + 15 * k, 100 + 1500 * k, reading, {}), sw) == 1
    series = Series.objects.get(switch=sw, object_name="ifHCInOctets")
    assert series.width == 64                                   # the width of the latest reading
    rows = list(Sample.objects.filter(switch_id=sw.id).order_by("time"))
    pos = [Layout.objects.get(pk=r.layout_id).series_ids.index(series.id) for r in rows]
    deltas = [r.delta[p] for r, p in zip(rows, pos)]
    flags = [r.flags[p] for r, p in zip(rows, pos)]
    assert deltas == [None, 15_000, None, 15_000, None]
    assert flags[2] == Flag.WIDTH and flags[4] == Flag.WIDTH and flags[3] == 0


@pytest.mark.django_db(transaction=True)
def test_stale_catalogs_are_checked_by_digest_in_one_statement_and_read_again_only_when_changed(
        django_assert_num_queries):
    from collector.archive import ingest
    from collector.archive.models import Series
    from collector.inventory.models import Switch

    sws = [Switch.objects.create(name=f"cat{i}", address="127.0.0.1", community="x", profile="if-mib")
           for i in range(3)]
    for sw in sws:
        for k in ("1", "2"):
            Series.objects.create(switch=sw, object_name="ifHCInOctets", index=k, width=64, metric="octets",
                                  unit="octets", capacity_per_s=125_000_000)
    cats = [ingest.catalog_of(sw.id) for sw in sws]
    ids = [sw.id for sw in sws]
    for cat in cats:
        cat.loaded_at -= ingest.CATALOG_TTL_S + 1          # all three stale
    ingest.refresh_catalogs(ids)                            # first check: digests unknown, read again
    for cat in [ingest.catalog_of(i) for i in ids]:
        cat.loaded_at -= ingest.CATALOG_TTL_S + 1
    with django_assert_num_queries(1):                      # unchanged: one statement for the three
        ingest.refresh_catalogs(ids)
    # Discovery changes one switch's capacity (a port's new speed): only that catalog is read again.
    Series.objects.filter(switch=sws[1], index="2").update(capacity_per_s=1_250_000_000)
    for i in ids:
        ingest.catalog_of(i).loaded_at -= ingest.CATALOG_TTL_S + 1
    with django_assert_num_queries(2):                      # the digests, then switch cat1's rows
        ingest.refresh_catalogs(ids)
    assert ingest.catalog_of(sws[1].id).by_key[("ifHCInOctets", "2")].capacity_per_s == 1_250_000_000
    assert ingest.catalog_of(sws[0].id).by_key[("ifHCInOctets", "2")].capacity_per_s == 125_000_000
    # Nothing stale: no statement at all.
    with django_assert_num_queries(0):
        ingest.refresh_catalogs(ids)
