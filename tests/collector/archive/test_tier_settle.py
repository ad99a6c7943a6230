"""Settling rollup buckets into blocks changes nothing a reader of the tiers sees
(collector/archive/tier_settle.py, collector/archive/tier_read.py).

Two days of jittered polls of six series (test_tier_blocks' data: every flag kind, wraps, reboots,
missed polls), 100 days ago so that every settled tier's spans are past the horizon, rolled up by
the rollup; the settle run moves the 1-minute and 15-minute buckets into blocks (the hourly and
daily tiers stay rows), and every tier read through `tier_read.stage` gives the rows it held before, the
float rates bit for bit. A recompute over a settled range reopens its blocks and leaves the same
buckets; the next run settles them again.
"""
from __future__ import annotations

import struct
from datetime import timedelta

import pytest
from django.db import connection, transaction

from collector.alerts import readings
from collector.alerts.models import Rule
from collector.archive import rollup, settle, tier_read, tier_settle
from collector.archive.tiers import SETTLED_TIERS, TIER, TIERS
from collector.bursts.models import Burst
from collector.bursts.scan import scan_day
from collector.core.facts import Flag
from collector.reader import catalog, latest, queries
from tests.collector.archive.test_tier_blocks import N, _polls
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db(transaction=True)

T0 = f.T0 - timedelta(days=100)
COLUMNS = "series_id, bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged"


def _bits(rows) -> list:
    pack = lambda v: None if v is None else struct.pack("<d", v)  # noqa: E731
    return [(*r[:4], pack(r[4]), pack(r[5]), *r[6:]) for r in rows]


def _read(tier, members, lo=None, hi=None) -> list:
    """The tier's buckets of these series as a reader gets them: rows and staged blocks."""
    with transaction.atomic(), connection.cursor() as cur:
        src = tier_read.stage(cur, tier, [(s.id, s.switch_id) for s in members], lo, hi)
        cur.execute(f"SELECT {COLUMNS} FROM {src} t WHERE series_id = ANY(%s) "
                    "AND bucket >= coalesce(%s::timestamptz, '-infinity') "
                    "AND bucket < coalesce(%s::timestamptz, 'infinity') ORDER BY 1, 2",
                    [[s.id for s in members], lo, hi])
        return _bits(cur.fetchall())


def _rows_left(tier, members) -> int:
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {tier.table} WHERE series_id = ANY(%s)", [[s.id for s in members]])
        return cur.fetchone()[0]


def _blocks() -> dict[str, int]:
    with connection.cursor() as cur:
        cur.execute("SELECT tier, count(*) FROM traffic_settled_tier GROUP BY tier")
        return dict(cur.fetchall())


def _archive():
    f.reset_rollups()
    sw = f.switch("tiers")
    members = [f.series(f.port(sw, f"A{i}"), "in") for i in range(N)]
    f.insert(sw, f.layout(sw, members), _polls(), t0=T0)
    for _ in range(50):
        if rollup.run(budget_s=120).caught_up:
            break
    return sw, members


def _settle_all() -> settle.SettleReport:
    for _ in range(20):
        report = settle.run(budget_s=120)
        if report.caught_up:
            return report
    raise AssertionError("settling did not catch up")


def test_settled_tiers_read_as_their_rows_did_and_a_recompute_reopens_them():
    sw, members = _archive()
    before = {t.name: _read(t, members) for t in TIERS}
    assert all(before.values())
    report = _settle_all()
    # two days of minutes are two 1-day spans; the 15-minute buckets lie in one or two spans (the
    # hourly and daily tiers stay rows)
    assert set(report.tiers.blocks) | set(_blocks()) == {t.name for t in SETTLED_TIERS}
    assert _blocks()["1m"] in (2, 3)
    assert {t.name: _rows_left(t, members) for t in TIERS} == {"1m": 0, "15m": 0, "1h": len(before["1h"]),
                                                               "1d": len(before["1d"])}
    assert {t.name: _read(t, members) for t in TIERS} == before
    # a range read stages only that range, exactly
    lo, hi = T0 + timedelta(hours=7, minutes=13), T0 + timedelta(hours=30)
    assert _read(TIER["1m"], members, lo, hi) == [r for r in before["1m"] if lo <= r[1] < hi]
    assert _read(TIER["1h"], members[:2], lo, hi) == [r for r in before["1h"] if lo <= r[1] < hi
                                                      and r[0] in {members[0].id, members[1].id}]

    rollup.recompute(T0 + timedelta(hours=20), T0 + timedelta(hours=21), sw.id)
    assert _rows_left(TIER["1m"], members) > 0
    assert _rows_left(TIER["15m"], members) > 0         # the 1-hour step read the 15-minute blocks: reopened
    assert {t.name: _read(t, members) for t in TIERS} == before
    _settle_all()
    assert not any(_rows_left(t, members) for t in SETTLED_TIERS)
    assert {t.name: _read(t, members) for t in TIERS} == before


def test_a_late_minute_in_settled_spans_is_recomputed_from_reopened_blocks():
    sw, members = _archive()
    _settle_all()
    before = {t.name: _read(t, members) for t in TIERS}
    with connection.cursor() as cur:        # what the trigger logs for a late poll (migration 0006)
        cur.execute("INSERT INTO traffic_rollup_invalidation (switch_id, bucket) VALUES (%s, %s)",
                    [sw.id, T0 + timedelta(hours=5, minutes=3)])
    assert not settle.run(budget_s=60).tiers.blocks         # nothing settles over a pending late minute
    assert rollup.run(budget_s=120).late_buckets == 1
    assert all(_rows_left(t, members) > 0 for t in SETTLED_TIERS)
    assert {t.name: _read(t, members) for t in TIERS} == before
    _settle_all()
    assert not any(_rows_left(t, members) for t in SETTLED_TIERS)
    assert {t.name: _read(t, members) for t in TIERS} == before


def _pages(client, members) -> dict:
    """The plots' data (JSON API, with p95), the CSV and the first data, at each settled resolution,
    over a range that starts and ends inside settled spans."""
    ids = ",".join(str(s.id) for s in members)
    lo, hi = T0 + timedelta(hours=3, minutes=7), T0 + timedelta(days=1, hours=22)
    out = {}
    for res in ("1m", "15m", "1h"):
        q = f"s={ids}&start={lo:%Y-%m-%dT%H:%M:%SZ}&end={hi:%Y-%m-%dT%H:%M:%SZ}&res={res}"
        data = client.get(f"/traffic/api/data?{q}")
        assert data.status_code == 200, data.content[:300]
        out[f"data {res}"] = {k: v for k, v in data.json().items() if k not in ("now", "server_ms", "notes")}
        csv = client.get(f"/traffic/export.csv?{q}")
        assert csv.status_code == 200
        out[f"csv {res}"] = b"".join(csv.streaming_content)
    out["first"] = queries.first_data(catalog.load_series([s.id for s in members]))
    return out


def test_plots_csv_and_first_data_read_settled_buckets_as_rows(client):
    sw, members = _archive()
    before = _pages(client, members)
    assert before["csv 1m"].count(b"\n") > 2500 and before["first"] == T0
    assert all(s["stats"]["p95"] is not None for s in before["data 1h"]["series"])
    _settle_all()
    assert not any(_rows_left(t, members) for t in SETTLED_TIERS)
    after = _pages(client, members)
    for key in before:
        assert after[key] == before[key], key


def _others(client, sw, members) -> dict:
    """The other readers of the tiers: top talkers, a day's burst scan, the data inventory (with the
    bursts found), the status pages' rate at a past time. (An alert rule's window reads settled
    minutes only when it is longer than CELLAR_SETTLE_AFTER_HOURS, through the same staging.)"""
    lo, hi = T0 + timedelta(hours=2), T0 + timedelta(days=1, hours=20)
    talkers = client.get(f"/talkers/api?start={lo:%Y-%m-%dT%H:%M:%SZ}&end={hi:%Y-%m-%dT%H:%M:%SZ}&n=10")
    assert talkers.status_code == 200, talkers.content[:300]
    scan_day(T0.date(), True)
    bursts = sorted(Burst.objects.values_list("series_id", "start", "end", "volume", "peak"))
    datasets = client.get("/datasets/api")
    assert datasets.status_code == 200, datasets.content[:300]
    at = latest.rates_at(T0 + timedelta(hours=9, minutes=31), {s.id for s in members})
    volatile = ("now", "server_ms", "end", "bursts_last_scanned")
    return {"talkers": {k: v for k, v in talkers.json().items() if k not in volatile},
            "datasets": {k: v for k, v in datasets.json().items() if k not in volatile}, "bursts": bursts,
            "rates_at": at}


def test_talkers_inventory_bursts_alerts_and_status_read_settled_buckets_as_rows(client):
    sw, members = _archive()
    before = _others(client, sw, members)
    assert before["bursts"] and before["talkers"]["rows"] and before["rates_at"][1] == "1m"
    assert {r["first_precision"] for r in before["datasets"]["rows"]} == {"1m"}
    _settle_all()
    assert not any(_rows_left(t, members) for t in SETTLED_TIERS)
    after = _others(client, sw, members)
    for key in before:
        assert after[key] == before[key], key


def test_retention_deletes_settled_blocks_with_their_tier(settings):
    _, members = _archive()
    _settle_all()
    before_1h = _read(TIER["1h"], members)
    settings.CELLAR_RETENTION_1M_DAYS, settings.CELLAR_RETENTION_15M_DAYS = 7, 90      # the data is 100 days old
    settings.CELLAR_RETENTION_1H_DAYS, settings.CELLAR_RETENTION_1D_DAYS = 730, 0
    dropped = rollup.retention()
    assert dropped["settled 1m"] >= 2 and dropped["settled 15m"] >= 1 and "settled 1h" not in dropped
    assert _blocks() == {}
    assert _read(TIER["1m"], members) == [] and _read(TIER["15m"], members) == []
    assert _read(TIER["1h"], members) == before_1h
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_tier_series")
        assert cur.fetchone()[0] == 0


def test_a_span_settles_up_to_the_horizon_and_is_completed_on_a_later_day():
    _, members = _archive()
    before = {t.name: _read(t, members) for t in TIERS}
    cut = T0 + timedelta(days=1)
    settle.run(budget_s=120, now=cut + timedelta(hours=48 + 5))       # the horizon: the midnight before
    for tier in SETTLED_TIERS:                                        # rows from the horizon on, blocks before
        assert _rows_left(tier, members) == sum(1 for r in before[tier.name] if r[1] >= cut), tier.name
    assert {t.name: _read(t, members) for t in TIERS} == before
    _settle_all()
    assert not any(_rows_left(t, members) for t in SETTLED_TIERS)
    assert {t.name: _read(t, members) for t in TIERS} == before
    with connection.cursor() as cur:                                  # merged: still one block a span
        cur.execute("SELECT tier, count(*), count(DISTINCT lo) FROM traffic_settled_tier GROUP BY tier")
        assert all(n == spans for _, n, spans in cur.fetchall())


def _unsettled() -> dict[str, list[int]]:
    """Per settled tier, the switches a settle run would look at for rows, over its spans now."""
    now, done = rollup.db_now(), rollup.watermarks()
    out = {}
    for tier in SETTLED_TIERS:
        until = tier_settle.horizon(tier, now, done)
        assert until is not None
        with connection.cursor() as cur:
            out[tier.name] = sorted({sw for lo, upto, _ in tier_settle.spans(tier, until)
                                     for sw in tier_settle.unsettled(cur, tier, lo, upto)})
    return out


def test_a_settled_span_is_looked_at_again_only_when_rows_can_be_there():
    sw, members = _archive()
    assert _unsettled() == {"1m": [sw.id], "15m": [sw.id]}
    _settle_all()
    assert _unsettled() == {"1m": [], "15m": []}            # settled: no series probed in a later run
    # a recompute writes rows into settled spans: looked at again, settled again
    before = {t.name: _read(t, members) for t in TIERS}
    rollup.recompute(T0 + timedelta(hours=20), T0 + timedelta(hours=21), sw.id)
    assert _unsettled() == {"1m": [sw.id], "15m": [sw.id]}
    _settle_all()
    assert _unsettled() == {"1m": [], "15m": []} and not any(_rows_left(t, members) for t in SETTLED_TIERS)
    assert {t.name: _read(t, members) for t in TIERS} == before


def test_rows_recomputed_beside_a_block_outside_its_buckets_are_settled():
    """A switch whose minutes of a day end early (its block's last bucket), then a recompute writes
    minutes after them (late polls): the span is looked at again although no block holds that range."""
    sw, members = _archive()
    cut = T0 + timedelta(hours=36)
    with connection.cursor() as cur:
        cur.execute("DELETE FROM traffic_rollup_1m WHERE series_id = ANY(%s) AND bucket >= %s",
                    [[s.id for s in members], cut])
    _settle_all()
    assert _unsettled()["1m"] == [] and _rows_left(TIER["1m"], members) == 0
    lo, hi = cut + timedelta(hours=2), cut + timedelta(hours=3)
    rollup.recompute(lo, hi, sw.id)
    recomputed = _read(TIER["1m"], members, lo, hi)
    assert _rows_left(TIER["1m"], members) == len(recomputed) > 50
    assert _unsettled()["1m"] == [sw.id]
    _settle_all()
    assert _rows_left(TIER["1m"], members) == 0
    assert _read(TIER["1m"], members, lo, hi) == recomputed


def test_an_alert_window_longer_than_the_settle_horizon_reads_settled_minutes(settings):
    """A day's rate window evaluated now with CELLAR_SETTLE_AFTER_HOURS = 1: yesterday's minutes are
    blocks, today's rows, the last minutes raw; the rule reads the same values before and after."""
    f.reset_rollups()
    sw = f.switch("alerting")
    members = [f.series(f.port(sw, f"B{i}"), "in", metric="octets", unit="octets") for i in range(3)]
    now = rollup.db_now()
    start = now - timedelta(hours=30)
    polls = [(0.0, None, [None] * 3, [int(Flag.FIRST)] * 3)]
    t = 0.0
    while t < 30 * 3600 - 75:
        t += 15
        polls.append((t, 15000, [150_000 + 7 * int(t) % 9_000, 40_000, int(t) % 3], [0, 0, 0]))
    f.insert(sw, f.layout(sw, members), polls, t0=start)
    for _ in range(50):
        if rollup.run(budget_s=120).caught_up:
            break
    rule = Rule.objects.create(name="busy day", kind="rate", scope="switch", switch=sw, window_minutes=1440,
                               unit="bps", threshold=1.0)
    before = [(o.value, o.detail) for o in readings.rates(rule, now, limit=100)]
    assert len(before) == 3 and all(v is not None for v, _ in before)
    settings.CELLAR_SETTLE_AFTER_HOURS = 1
    settle.run(budget_s=120)
    assert 0 < _rows_left(TIER["1m"], members) < len(_read(TIER["1m"], members))     # the days before settled
    assert [(o.value, o.detail) for o in readings.rates(rule, now, limit=100)] == before


def _sums(rows) -> dict[int, tuple]:
    """Per series: the sums, the highest peak and the lowest floor of these buckets."""
    out: dict[int, list] = {}
    for sid, _, d, ms, mx, mn, n, fl in rows:
        o = out.setdefault(sid, [0, 0, None, None, 0, 0])
        o[0] += d
        o[1] += ms
        o[2] = mx if o[2] is None or (mx is not None and mx > o[2]) else o[2]
        o[3] = mn if o[3] is None or (mn is not None and mn < o[3]) else o[3]
        o[4] += n
        o[5] += fl
    return {sid: tuple(v) for sid, v in out.items()}


def _summed(members, lo, hi) -> dict[int, tuple]:
    tier = TIER["1m"]
    with transaction.atomic(), connection.cursor() as cur:
        src = tier_read.stage(cur, tier, [(s.id, s.switch_id) for s in members], lo, hi, summed=True)
        cur.execute(f"SELECT {COLUMNS} FROM {src} t WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s",
                    [[s.id for s in members], lo, hi])
        return _sums(cur.fetchall())


@pytest.mark.parametrize("null_totals", [False, True], ids=["totals", "blocks-settled-before-totals"])
def test_summed_readers_take_whole_blocks_from_their_totals_and_cut_the_others(null_totals):
    """stage(summed=True): a block wholly inside the range is read from its totals (migration 0011),
    a block the range cuts is decoded; either way each series' sums, peak and floor over the range are
    those of its rows. Blocks settled before the totals existed (NULL) are decoded."""
    sw, members = _archive()
    rows = [(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in _read(TIER["1m"], members)]
    rows = [(*r[:4], *(None if v is None else struct.unpack("<d", v)[0] for v in r[4:6]), *r[6:]) for r in rows]
    _settle_all()
    if null_totals:
        with connection.cursor() as cur:
            cur.execute("UPDATE traffic_settled_tier_series SET total_delta = NULL, total_interval_ms = NULL, "
                        "peak_rate = NULL, floor_rate = NULL, total_samples = NULL, total_flagged = NULL")
    day = T0.replace(hour=0, minute=0, second=0, microsecond=0)
    ranges = [(day - timedelta(days=1), day + timedelta(days=4)),      # every block whole
              (day + timedelta(days=1), day + timedelta(days=2)),      # one day's block exactly
              (T0 + timedelta(hours=2), T0 + timedelta(days=1, hours=20)),   # both cut
              (day + timedelta(hours=30), day + timedelta(days=3))]    # one cut, one whole
    for lo, hi in ranges:
        want = _sums([r for r in rows if lo <= r[1] < hi])
        assert want and _summed(members, lo, hi) == want, (lo, hi)
