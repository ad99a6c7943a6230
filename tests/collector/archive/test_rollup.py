"""collector/archive/rollup.py against TimescaleDB: every tier holds exactly the drawn deltas of its buckets."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection

from collector.archive import rollup
from collector.archive.models import Series
from collector.archive.tiers import TIERS, floor_time
from collector.core.counters import CounterSpec, derive_row
from collector.core.facts import Flag
from tests.support import traffic_factory as f

W, OVER, GAP, REBOOT, MISSING, FIRST = (int(Flag.WRAP), int(Flag.OVER_CAPACITY), int(Flag.GAP), int(Flag.REBOOT),
                                        int(Flag.MISSING), int(Flag.FIRST))


def _drawn(delta, flags, interval_ms) -> bool:
    return delta is not None and not flags & OVER and bool(interval_ms) and interval_ms > 0


def expected(rows, t0, n_series, width):
    """What every bucket of `width` seconds must hold, per series position, from the rows."""
    out: dict[tuple[int, datetime], list] = {}
    for offset, interval_ms, deltas, flags in rows:
        t = t0 + timedelta(seconds=offset)
        b = floor_time(t, width)
        for i in range(n_series):
            e = out.setdefault((i, b), [0, 0, None, None, 0, 0])
            d, fl = deltas[i], flags[i]
            if _drawn(d, fl, interval_ms):
                rate = d * 1000 / interval_ms
                e[0] += d
                e[1] += interval_ms
                e[2] = rate if e[2] is None else max(e[2], rate)
                e[3] = rate if e[3] is None else min(e[3], rate)
            e[4] += 1
            e[5] += 1 if fl & ~W else 0
    return out


def tier_rows(tier: str, ids: list[int]) -> dict[tuple[int, datetime], list]:
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id, bucket, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged "
                    f"FROM traffic_rollup_{tier} WHERE series_id = ANY(%s)", [ids])
        return {(ids.index(r[0]), r[1]): list(r[2:]) for r in cur.fetchall()}


def assert_tiers_match(rows, ids, t0=f.T0):
    for tier in TIERS:
        want = expected(rows, t0, len(ids), tier.seconds)
        got = tier_rows(tier.name, ids)
        assert set(got) == set(want), tier.name
        for key, w in want.items():
            g = got[key]
            assert g[0] == w[0] and g[1] == w[1] and g[4] == w[4] and g[5] == w[5], (tier.name, key, g, w)
            for a, b in ((g[2], w[2]), (g[3], w[3])):
                assert (a is None and b is None) or a == pytest.approx(b, rel=1e-12), (tier.name, key, g, w)


def assert_carried(ids: list[int]) -> dict[int, int]:
    """traffic_series_total holds each series' 1-day buckets before the 1-day watermark (carry_1d_sql)."""
    with connection.cursor() as cur:
        cur.execute("SELECT series_id, total FROM traffic_series_total WHERE series_id = ANY(%s) AND total <> 0",
                    [ids])
        carried = dict(cur.fetchall())
        cur.execute("SELECT series_id, sum(sum_delta) FROM traffic_rollup_1d WHERE series_id = ANY(%s) AND bucket < "
                    "(SELECT done_until FROM traffic_rollup_watermark WHERE tier = '1d') GROUP BY 1 "
                    "HAVING sum(sum_delta) <> 0", [ids])
        assert carried == dict(cur.fetchall())
    return carried


# A day-crossing table of 15 s polls for two series with every kind of flag, interval and gap.
def case_rows():
    rows = [(0.0, None, [None, None], [FIRST, FIRST])]
    t = 0.0
    for k in range(1, 400):
        t += 15
        d = [1000 + k, 7 * k]
        fl = [0, 0]
        iv = 15000
        if k == 50:                      # counter wrap: exact delta, flagged WRAP
            fl = [W, 0]
        if k == 80:                      # a spike above capacity: kept, not drawn
            d, fl = [10 ** 9, 7 * k], [OVER, 0]
        if k == 120:                     # missed polls: a 4-minute gap, averaged
            t += 225
            iv = 240000
            d, fl = [4 * 60 * 1000, 16 * 7], [GAP, GAP]
        if k == 200:                     # reboot: no delta
            d, fl = [None, None], [REBOOT, REBOOT]
        if k == 260:                     # the agent skipped one counter
            d, fl = [None, 3], [MISSING, 0]
        rows.append((t, iv, d, fl))
    return rows


@pytest.mark.django_db(transaction=True)
def test_every_tier_holds_exactly_the_drawn_deltas_of_its_buckets():
    sw = f.switch()
    p = f.port(sw)
    s_in, s_out = f.series(p, "in"), f.series(p, "out")
    lay = f.layout(sw, [s_in, s_out])
    rows = case_rows()
    # start 23:10 so the data crosses a day boundary and several 15m/1h buckets
    t0 = f.T0 + timedelta(hours=23, minutes=10)
    f.insert(sw, lay, rows, t0=t0)
    report = rollup.run(budget_s=120)
    assert report.caught_up and not report.skipped
    assert_tiers_match(rows, [s_in.id, s_out.id], t0=t0)
    assert assert_carried([s_in.id, s_out.id])          # the first day is before the 1-day watermark
    # a range total over whole buckets equals the raw deltas drawn in it, from any tier
    with connection.cursor() as cur:
        cur.execute("SELECT sum(d) FROM traffic_sample s, unnest(s.delta, s.flags) AS u(d, f) "
                    "WHERE s.switch_id = %s AND u.d IS NOT NULL AND u.f & 8 = 0", [sw.id])
        raw_total = cur.fetchone()[0]
        for tier in TIERS:
            cur.execute(f"SELECT sum(sum_delta) FROM traffic_rollup_{tier.name} WHERE series_id = ANY(%s)",
                        [[s_in.id, s_out.id]])
            assert cur.fetchone()[0] == raw_total, tier.name


@pytest.mark.django_db(transaction=True)
def test_only_counter_series_are_rolled_up():
    """A layout also holds series of other kinds (a port's discontinuity time): no tier row for them,
    and the counters beside them exact."""
    sw = f.switch()
    p = f.port(sw)
    s_in, s_out = f.series(p, "in"), f.series(p, "out")
    epoch = f.series(p, "", object_name="ifCounterDiscontinuityTime")
    Series.objects.filter(pk=epoch.pk).update(kind="discontinuity")
    lay = f.layout(sw, [s_in, epoch, s_out])
    rows = [(t, iv, [d[0], 7, d[1]], [fl[0], 0, fl[1]]) for t, iv, d, fl in case_rows()]
    f.insert(sw, lay, rows)
    assert rollup.run(budget_s=120).caught_up
    for tier in TIERS:
        assert tier_rows(tier.name, [epoch.id]) == {}, tier.name
    assert_tiers_match([(t, iv, [d[0], d[2]], [fl[0], fl[2]]) for t, iv, d, fl in rows], [s_in.id, s_out.id])


@pytest.mark.django_db(transaction=True)
def test_totals_are_exact_across_counter32_wraps_with_the_collector_math():
    sw = f.switch()
    p = f.port(sw)
    s = f.series(p, "in")
    lay = f.layout(sw, [s])
    spec = CounterSpec(32, f.OC3_CELLS)
    value, at, prev = (1 << 32) - 5_000_000, 0.0, None
    rows, truth = [], 0
    for k in range(2000):          # ~8.3 h at 15 s, 300k cells/s: wraps every ~4 h
        inc = 4_500_000 + (k * 7919) % 100_000
        if prev is not None:
            truth += inc
            value = (value + inc) % (1 << 32)
            at += 15
        deltas, flags = derive_row(None if prev is None else prev[0], None, at, None,
                                   [None] if prev is None else [prev[1]], [value], [spec], 15.0)
        rows.append((at, None if prev is None else 15000, deltas, flags))
        prev = (at, value)
    assert sum(1 for r in rows if r[3][0] & W) >= 2
    f.insert(sw, lay, rows)
    rollup.run(budget_s=120)
    for tier in TIERS:
        assert sum(v[0] for v in tier_rows(tier.name, [s.id]).values()) == truth, tier.name
    assert_tiers_match(rows, [s.id])


def _snapshot(ids):
    return {t.name: tier_rows(t.name, ids) for t in TIERS}


@pytest.mark.django_db(transaction=True)
def test_rerunning_and_recomputing_gives_identical_rows():
    sw = f.switch()
    p = f.port(sw)
    s_in, s_out = f.series(p, "in"), f.series(p, "out")
    lay = f.layout(sw, [s_in, s_out])
    rows = case_rows()
    f.insert(sw, lay, rows)
    rollup.run(budget_s=120)
    before = _snapshot([s_in.id, s_out.id])
    again = rollup.run(budget_s=120)
    assert again.steps == [] and again.late_buckets == 0
    steps = rollup.recompute(f.T0 - timedelta(days=1), f.T0 + timedelta(days=2))
    assert {s.tier for s in steps} == {"1m", "15m", "1h", "1d"}
    assert _snapshot([s_in.id, s_out.id]) == before
    steps = rollup.recompute(f.T0, f.T0 + timedelta(hours=1), switch_id=sw.id)
    assert _snapshot([s_in.id, s_out.id]) == before
    assert assert_carried([s_in.id, s_out.id])          # recomputed days carried once, not twice


@pytest.mark.django_db(transaction=True)
def test_late_samples_recompute_their_buckets_in_every_tier():
    sw = f.switch()
    p = f.port(sw)
    s = f.series(p, "in")
    lay = f.layout(sw, [s])
    rows = [(0.0, None, [None], [FIRST])] + [(15.0 * k, 15000, [100 * k], [0]) for k in range(1, 240)]
    on_time = [r for r in rows if not 1200 <= r[0] < 2400]     # a 20-minute outage ...
    f.insert(sw, lay, on_time)
    rollup.run(budget_s=120)
    got = sum(v[0] for v in tier_rows("1d", [s.id]).values())
    assert got == sum(r[2][0] or 0 for r in on_time)
    late = [r for r in rows if 1200 <= r[0] < 2400]            # ... whose polls were spooled and come late
    f.insert(sw, lay, late)
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_rollup_invalidation WHERE switch_id = %s", [sw.id])
        assert cur.fetchone()[0] == 20                          # one per switch and minute
    report = rollup.run(budget_s=120)
    assert report.late_buckets == 20
    assert_tiers_match(rows, [s.id])
    assert_carried([s.id])


@pytest.mark.django_db(transaction=True)
def test_a_late_sample_of_a_carried_day_adds_its_delta_to_the_carried_sum():
    sw = f.switch()
    s = f.series(f.port(sw), "in")
    lay = f.layout(sw, [s])
    rows = [(0.0, None, [None], [FIRST])] + [(300.0 * k, 300000, [100 * k], [0]) for k in range(1, 2 * 288)]
    late = rows.pop(100)                                        # day one, 08:20: spooled, comes days later
    f.insert(sw, lay, rows)
    rollup.run(budget_s=120)
    before = assert_carried([s.id])[s.id]
    assert before == sum(r[2][0] or 0 for r in rows)           # both days are past the 1-day watermark
    f.insert(sw, lay, [late])
    assert rollup.run(budget_s=120).late_buckets == 1
    assert assert_carried([s.id])[s.id] == before + late[2][0]
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_rollup_invalidation")
        assert cur.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_on_time_samples_are_not_logged_as_late():
    sw = f.switch()
    p = f.port(sw)
    s = f.series(p, "in")
    lay = f.layout(sw, [s])
    f.insert(sw, lay, [(0.0, None, [None], [FIRST]), (15.0, 15000, [5], [0])])
    rollup.run(budget_s=60)
    now = rollup.db_now()
    f.insert(sw, lay, [(0.0, 15000, [7], [0])], t0=now - timedelta(seconds=5))
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_rollup_invalidation")
        assert cur.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_retention_drops_old_chunks_but_never_unrolled_data(settings):
    sw = f.switch()
    p = f.port(sw)
    s = f.series(p, "in")
    lay = f.layout(sw, [s])
    start = f.T0 - timedelta(days=5)
    f.generate(sw, lay, start, start + timedelta(days=4), 300, [1000])
    rollup.run(budget_s=300)
    day_total = sum(v[0] for v in tier_rows("1d", [s.id]).values())
    done = rollup.watermarks()
    # data after the 1m watermark must survive any retention
    f.insert(sw, lay, [(0.0, 15000, [1], [0])], t0=done["1m"] + timedelta(days=2))
    settings.CELLAR_RETENTION_RAW_DAYS = 1
    settings.CELLAR_RETENTION_1M_DAYS = 1
    settings.CELLAR_RETENTION_15M_DAYS = 1
    settings.CELLAR_RETENTION_POLL_LOG_DAYS = 1
    dropped = rollup.retention(now=done["1m"] + timedelta(days=30))
    assert dropped["raw"] >= 4 and dropped["1m"] >= 1
    with connection.cursor() as cur:
        cur.execute("SELECT min(time), count(*) FROM traffic_sample WHERE switch_id = %s", [sw.id])
        first, count = cur.fetchone()
        assert count >= 1 and first >= floor_time(done["1m"], 86400)
    # coarse tiers are untouched and still exact
    assert sum(v[0] for v in tier_rows("1d", [s.id]).values()) == day_total
    carried = assert_carried([s.id])
    # recomputing where raw samples are gone leaves the buckets alone: only 1d is rebuilt, from 1h
    steps = rollup.recompute(start, start + timedelta(days=1))
    assert {st.tier for st in steps} == {"1d"}
    assert sum(v[0] for v in tier_rows("1d", [s.id]).values()) == day_total
    assert assert_carried([s.id]) == carried


@pytest.mark.django_db(transaction=True)
def test_a_second_run_skips_while_one_holds_the_lock():
    with rollup.RunLock() as held:
        assert held
        from django.db import connections
        other = connections.create_connection("default")
        try:
            with other.cursor() as cur:
                cur.execute("SELECT pg_try_advisory_lock(%s)", [rollup.LOCK_KEY])
                assert cur.fetchone()[0] is False
        finally:
            other.close()
