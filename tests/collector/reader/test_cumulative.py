"""collector/reader/cumulative.py: the totals a Prometheus scrape reads. Rows are derived from raw
readings by the collector's own counter math (collector/core/counters.derive), so a wrap, a reboot
and a missed poll are what the poller would have archived; after every poll the total must have grown
by exactly the delta archived as traffic (never back), at the poll's time."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from collector.archive import rollup
from collector.archive.tiers import TIERS
from collector.core.counters import CounterSpec, Reading, derive
from collector.core.facts import NOT_DRAWN, Flag
from collector.groups import edit
from collector.reader import cumulative
from tests.support import traffic_factory as f

W32 = 1 << 32
CAP = f.OC3_CELLS          # cells/s of the port: deltas above it are OVER_CAPACITY


def _case(values: list[tuple[float, int | None, int | None]]):
    """(seconds after the first poll, uptime in s or None for 'as the clock', value or None)."""
    return values


# name -> polls (t, uptime_s, value); uptime None: the agent has been up since t = -1000 s.
CASES = {
    "steady": _case([(0, None, 1000), (15, None, 151_000), (30, None, 301_000), (45, None, 451_000)]),
    "32-bit wrap": _case([(0, None, W32 - 2_000_000), (15, None, W32 - 500_000), (30, None, 1_000_000),
                          (45, None, 2_500_000)]),
    "reboot": _case([(0, None, 9_000_000), (15, None, 10_500_000), (30, 5, 400_000), (45, 20, 1_900_000)]),
    "missed poll": _case([(0, None, 1000), (15, None, 151_000), (60, None, 601_000), (75, None, 751_000)]),
    "counter not answered": _case([(0, None, 1000), (15, None, None), (30, None, 301_000), (45, None, 451_000)]),
    "over capacity": _case([(0, None, 1000), (15, None, 151_000), (30, None, 151_000 + 15 * CAP * 2),
                            (45, None, 151_000 + 15 * CAP * 2 + 150_000)]),
    "wrap after a reboot": _case([(0, None, 5_000), (15, 3, W32 - 100_000), (30, 18, 50_000), (45, 33, 200_000)]),
}


def _insert(sw, lay, at: datetime, uptime_cs: int, interval_ms: int | None, raw, delta, flags) -> None:
    with connection.cursor() as cur:
        cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                    "flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    [at, uptime_cs, sw.id, lay.id, interval_ms, [raw], [delta], [flags]])


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_the_total_grows_by_exactly_the_archived_deltas(name):
    sw = f.switch("cum-case")
    s = f.series(f.port(sw), "in")
    lay = f.layout(sw, [s])
    series = cumulative.scope(["cum-case"], limit=10)
    assert [x.id for x in series] == [s.id]
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    spec = CounterSpec(32, CAP)
    prev: Reading | None = None
    expected, last_total, kinds = 0, -1, Flag.NONE
    for t, up, value in CASES[name]:
        at = t0 + timedelta(seconds=t)
        uptime_cs = int(((1000 + t) if up is None else up) * 100)
        cur = Reading(at.timestamp(), uptime_cs, value)
        d = derive(prev, cur, spec, 15.0)
        kinds |= d.flags
        interval_ms = None if d.interval_s is None else round(d.interval_s * 1000)
        _insert(sw, lay, at, uptime_cs, interval_ms, value, d.delta, int(d.flags))
        if value is not None:
            prev = cur
        if d.delta is not None and not d.flags & NOT_DRAWN and interval_ms:
            expected += d.delta
        got = list(cumulative.read(series))
        if value is None:                     # not answered: no sample of it in this scrape
            assert got == [], name
            continue
        (r,) = got
        assert r.total == expected and r.total >= last_total, (name, t, d)
        assert r.at_ms == int(at.timestamp() * 1000)
        last_total = r.total
    wanted = {"32-bit wrap": Flag.WRAP, "reboot": Flag.REBOOT, "missed poll": Flag.GAP,
              "over capacity": Flag.OVER_CAPACITY, "wrap after a reboot": Flag.WRAP | Flag.REBOOT}
    assert kinds & wanted.get(name, Flag.NONE) == wanted.get(name, Flag.NONE), "the case makes what it is named for"


@pytest.mark.django_db(transaction=True)
def test_moving_watermarks_move_deltas_between_tiers_and_leave_the_total():
    """26 h of 15 s polls of two Counter32 series that wrap, read before any rollup (all raw), after the
    rollup (1 d, 1 h, 15 min, 1 min tiers and a raw tail), and after more polls: the same integers."""
    sw = f.switch("cum-tiers")
    p = f.port(sw)
    a, b = f.series(p, "in"), f.series(p, "out")
    lay = f.layout(sw, [a, b])
    spec = CounterSpec(32, CAP)
    now = datetime.now(UTC).replace(microsecond=0)
    n = 26 * 240
    start = now - timedelta(seconds=15 * (n - 1))
    rows, truth, values = [], [0, 0], [W32 - 7_000_000, 5]
    for k in range(n):
        deltas, flags = [None, None], [int(Flag.FIRST)] * 2
        if k:
            incs = [5_000_000 + (k * 7919) % 200_000, 1000 + k % 7]
            deltas, flags = [], []
            for i, inc in enumerate(incs):
                before = values[i]
                values[i] = (values[i] + inc) % W32
                d = derive(Reading(0, None, before), Reading(15, None, values[i]), spec, 15.0)
                deltas.append(d.delta)
                flags.append(int(d.flags))
                truth[i] += d.delta
        rows.append((start + timedelta(seconds=15 * k), 15000 if k else None, list(values), deltas, flags))
    with connection.cursor() as cur:
        cur.executemany("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                        "flags) VALUES (%s, 1, %s, %s, %s, %s, %s, %s)",
                        [(t, sw.id, lay.id, iv, raw, d, fl) for t, iv, raw, d, fl in rows])
    assert sum(1 for r in rows if r[4][0] & Flag.WRAP) >= 5
    series = cumulative.scope(["cum-tiers"], limit=10)
    raw_only = {r.series.id: r.total for r in cumulative.read(series)}
    assert raw_only == {a.id: truth[0], b.id: truth[1]}
    report = rollup.run(budget_s=120)
    assert report.caught_up
    marks = rollup.watermarks()
    assert all(marks[t.name] is not None for t in TIERS), marks
    with connection.cursor() as cur:            # the 1-day sums before the watermark, carried by the rollup
        cur.execute("SELECT series_id, total FROM traffic_series_total WHERE series_id = ANY(%s)", [[a.id, b.id]])
        carried = dict(cur.fetchall())
        cur.execute("SELECT series_id, sum(sum_delta) FROM traffic_rollup_1d WHERE bucket < %s GROUP BY 1",
                    [marks["1d"]])
        assert carried == dict(cur.fetchall()) and carried[a.id] > 0
    tiered = list(cumulative.read(series))
    assert {r.series.id: r.total for r in tiered} == raw_only
    assert {r.at_ms for r in tiered} == {int(rows[-1][0].timestamp() * 1000)}


D, H, Q, M = (datetime(2026, 11, 20, tzinfo=UTC) + timedelta(minutes=k) for k in (0, 60, 75, 77))
NEG = "-infinity"
# watermarks -> (b1, b2, b3, b4): carried 1-day sums before b1, 1h [b1, b2), 15m [b2, b3), 1m [b3, b4), raw from b4
BOUNDS = {
    "no rollup yet": ({}, (NEG, NEG, NEG, NEG)),
    "every tier": ({"1d": D, "1h": H, "15m": Q, "1m": M}, (D, H, Q, M)),
    "no 1d yet": ({"1h": H, "1m": M}, (NEG, H, H, M)),
    "1h adds nothing": ({"1d": D, "1h": D, "15m": Q, "1m": M}, (D, D, Q, M)),
    "a finer tier behind": ({"1d": D, "1h": H, "15m": D, "1m": M}, (D, H, H, M)),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(BOUNDS), ids=list(BOUNDS))
def test_each_store_adds_the_stretch_after_the_coarser_watermark(name):
    marks, wanted = BOUNDS[name]
    with connection.cursor() as cur:
        cur.execute("DELETE FROM traffic_rollup_watermark")
        for tier, at in marks.items():
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES (%s, %s, now())",
                        [tier, at])
        cur.execute(f"SELECT b1::text, b2::text, b3::text, b4::text FROM ({cumulative._BOUNDS}) x")
        got = cur.fetchone()
        cur.execute("SELECT %s::timestamptz::text, %s::timestamptz::text, %s::timestamptz::text, %s::timestamptz::text",
                    list(wanted))
        assert got == cur.fetchone()


@pytest.mark.django_db
def test_scope_filters_and_refusals():
    a, b = f.switch("cum-a"), f.switch("cum-b")
    pa, pb = f.port(a), f.port(b, "B1")
    sa = [f.series(pa, "in"), f.series(pa, "out"), f.series(pa, "in", channel=f.vc(pa, 0, 42))]
    sb = [f.series(pb, "in"), f.series(pb, "out", metric="octets", unit="octets")]
    gone = f.series(pb, "in", metric="rejected_cells", object_name="portRejected")
    gone.gone_at = datetime.now(UTC)
    gone.save()
    off = f.switch("cum-off")
    f.series(f.port(off), "in")
    off.enabled = False
    off.save()
    everything = cumulative.scope(limit=100)
    assert {s.id for s in everything} >= {s.id for s in sa + sb}
    assert gone.id not in {s.id for s in everything} and off.name not in {s.switch for s in everything}
    units = [s.unit for s in everything]
    assert units == sorted(units)                        # one family after the other
    assert [s.id for s in cumulative.scope(["cum-b"], limit=10)] == [sb[0].id, sb[1].id]
    vc = next(s for s in cumulative.scope(["cum-a"], limit=10) if s.vci is not None)
    assert (vc.switch, vc.port, vc.vpi, vc.vci, vc.direction, vc.metric) == ("cum-a", "A1", 0, 42, "in", "cells")
    group = edit.save(edit.spec_from("cum-g", [sa[0].id, sb[1].id], []))
    assert {s.id for s in cumulative.scope(group=str(group.id), limit=10)} == {sa[0].id, sb[1].id}
    assert {s.id for s in cumulative.scope(["cum-a"], group=str(group.id), limit=10)} == {sa[0].id}
    with pytest.raises(cumulative.TooMany) as refused:
        cumulative.scope(["cum-a", "cum-b"], limit=4)
    assert refused.value.count == 5 and refused.value.limit == 4
    assert "5 counter series" in str(refused.value) and "limit of one scrape is 4 series" in str(refused.value)
    with pytest.raises(cumulative.UnknownScope, match="no switch named 'nope'"):
        cumulative.scope(["nope"], limit=10)
    with pytest.raises(cumulative.UnknownScope, match="no group"):
        cumulative.scope(group="999999", limit=10)


@pytest.mark.django_db
def test_a_switch_without_a_fresh_poll_is_left_out():
    sw = f.switch("cum-stale")
    s = f.series(f.port(sw), "in")
    lay = f.layout(sw, [s])
    old = datetime.now(UTC) - cumulative.FRESH - timedelta(minutes=1)
    _insert(sw, lay, old, 100, 15000, 5, 5, 0)
    series = cumulative.scope(["cum-stale"], limit=10)
    assert len(series) == 1 and list(cumulative.read(series)) == []
    _insert(sw, lay, datetime.now(UTC), 200, 15000, 10, 5, 0)
    (r,) = cumulative.read(series)
    assert r.total == 10
