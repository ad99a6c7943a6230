"""collector/reader/latest.py and totals.py: each switch's newest poll, its first, and the totals since
the archive began (rollup tiers up to their watermarks, then the raw polls), within their budget."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from collector.archive.models import Series
from collector.inventory.models import Port, Switch
from collector.reader import latest as q
from collector.reader import totals as t
from collector.reader.latest import latest_samples
from tests.support.status_network import add_samples, series

pytestmark = pytest.mark.django_db


@pytest.fixture
def sw():
    s = Switch.objects.create(name="q-sw", address="192.0.2.9")
    p = Port.objects.create(switch=s, key="1", name="P1", is_atm=True)
    return s, p


def test_latest_sample_per_switch_and_an_old_one(sw):
    s, p = sw
    other = Switch.objects.create(name="q-old", address="192.0.2.10")
    now = timezone.now()
    a = series(s, "portReceivedCells", "1", "in", port=p)
    b = series(other, "portReceivedCells", "1", "in")
    add_samples(s, [(now - timedelta(seconds=30), 15000, [1], [150], [0]),
                    (now - timedelta(seconds=15), 15000, [2], [300], [0])], [a])
    add_samples(other, [(now - timedelta(days=3), 60000, [-1], [600], [1])], [b])
    latest = latest_samples([s.id, other.id, 999999])
    assert latest[s.id].rate(a.id) == (20.0, 0)
    assert latest[other.id].rate(b.id) == (10.0, 1)
    assert latest[other.id].raw(b.id) == 2 ** 64 - 1                  # two's complement back to uint64
    assert 999999 not in latest
    assert q.archive_starts([s.id])[s.id] == now - timedelta(seconds=30)


def test_totals_from_rollup_tiers_then_raw_after_the_last_watermark(sw):
    s, p = sw
    a = series(s, "portReceivedCells", "1", "in", port=p)
    now = timezone.now().replace(microsecond=0)
    day = now.replace(hour=0, minute=0, second=0) - timedelta(days=1)
    hour = now.replace(minute=0, second=0) - timedelta(hours=1)
    with connection.cursor() as cur:
        cur.execute("INSERT INTO traffic_rollup_1d (bucket, series_id, sum_delta, sum_interval_ms, samples, flagged) "
                    "VALUES (%s, %s, 1000, 86400000, 5760, 0), (%s, %s, 7, 1, 1, 0)",
                    [day - timedelta(days=1), a.id, day, a.id])        # the second is past the 1d watermark
        cur.execute("INSERT INTO traffic_rollup_1h (bucket, series_id, sum_delta, sum_interval_ms, samples, flagged) "
                    "VALUES (%s, %s, 200, 3600000, 240, 0), (%s, %s, 5, 1, 1, 0)",
                    [day, a.id, day - timedelta(hours=1), a.id])        # the second is already in the 1d tier
        cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until) VALUES ('1d', %s), ('1h', %s)",
                    [day, hour])
    add_samples(s, [
        (hour - timedelta(minutes=5), 15000, [1], [999_999], [0]),      # covered by the rollups: not again
        (hour + timedelta(seconds=15), 15000, [2], [10], [0]),
        (hour + timedelta(seconds=30), 15000, [3], [20], [0]),
        (hour + timedelta(seconds=45), 15000, [4], [5000], [8]),          # over capacity: not traffic
        (hour + timedelta(seconds=60), 15000, [5], [None], [2]),          # withheld
    ], [a])
    tot = t.totals([s.id], [a.id])
    assert tot.available and tot[a.id] == 1000 + 200 + 10 + 20
    assert tot.through == {"1d": day, "1h": hour} and tot.raw_from == hour


def test_totals_without_rollups_sum_all_raw_deltas(sw):
    s, p = sw
    a = series(s, "portReceivedCells", "1", "in", port=p)
    now = timezone.now()
    add_samples(s, [(now - timedelta(seconds=30), None, [1], [None], [32]),
                    (now - timedelta(seconds=15), 15000, [2], [7], [0])], [a])
    assert t.totals([s.id], [a.id])[a.id] == 7


def test_totals_give_up_within_the_budget(sw, monkeypatch):
    s, p = sw
    sids = [series(s, "chanCells", f"1.0.{i}", "in", port=p).id for i in range(40)]
    ids = Series.objects.filter(id__in=sids).order_by("id")
    now = timezone.now()
    with connection.cursor() as cur:
        layout = add_samples(s, [(now - timedelta(days=10), 15000, [1] * 40, [1] * 40, [0] * 40)], list(ids)).id
        cur.execute("""INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta,
                                                  flags)
                       SELECT %s::timestamptz - make_interval(secs => g * 15), 1, %s, %s, 15000,
                              array_fill(1::bigint, ARRAY[40]), array_fill(1::bigint, ARRAY[40]),
                              array_fill(0::smallint, ARRAY[40])
                       FROM generate_series(1, 20000) g""", [now, s.id, layout])
    monkeypatch.setattr(t, "TOTALS_BUDGET_MS", 1)
    tot = t.totals([s.id], sids)
    assert not tot.available and "the rollups have not run yet" in tot.why
    with connection.cursor() as cur:             # the session's own timeout is back afterwards
        cur.execute("SHOW statement_timeout")
        assert cur.fetchone()[0] != "1ms"
        cur.execute("SELECT count(*) FROM traffic_sample WHERE switch_id = %s", [s.id])
        assert cur.fetchone()[0] == 20001


