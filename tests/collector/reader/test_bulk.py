"""collector/reader/bulk.py and bulkscope.py: many series over a window, batch by batch.

Rows are derived from readings by the collector's own counter math (collector/core/counters.derive),
so a wrap, a reboot, a missed poll, an unanswered counter and an over-capacity spike are what the
poller would have archived; every exported raw row must be that row (counter, delta, flags,
interval) with its rate only where drawn, whatever the pieces the plan is read in; tier rows must be
the sums of those rows per bucket."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.db import connection

from collector.archive import rollup
from collector.core.facts import NOT_DRAWN, ROUTINE, Flag, to_i64
from collector.groups import edit
from collector.groups.resolve import Spec
from collector.reader import bulk, bulkscope
from collector.reader.bulkscope import Scope
from collector.reader.selection import BadRequest
from tests.support import traffic_factory as f

POLLS = f.EVERY_FLAG_POLLS
CAP = f.OC3_CELLS
_archive = f.derived_archive


def _rows(p, order="switch"):
    out = []
    for b in bulk.batches(p, order):
        for k in range(len(b)):
            v, ok = b.values, b.valid
            out.append((int(b.t[k]), int(b.sid[k]), int(v["counter"][k]) if ok["counter"][k] else None,
                        int(v["delta"][k]) if ok["delta"][k] else None, int(v["flags"][k]),
                        None if np.isnan(v["interval_s"][k]) else round(v["interval_s"][k] * 1000),
                        None if np.isnan(v["rate"][k]) else float(v["rate"][k])))
    return out


def _drawn_rate(delta, flags, interval_ms):
    return delta * 1000 / interval_ms if delta is not None and not flags & NOT_DRAWN and interval_ms else None


@pytest.mark.django_db
@pytest.mark.parametrize("batch_rows", [1_000_000, 7, 1], ids=["one piece", "pieces of 7 rows", "a row a piece"])
def test_raw_rows_are_the_archived_rows_whatever_the_pieces(monkeypatch, batch_rows):
    monkeypatch.setattr(bulk, "BATCH_ROWS", batch_rows)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    _, members_a, truth_a = _archive("bulk-a", t0)
    _, members_b, truth_b = _archive("bulk-b", t0 + timedelta(seconds=3), series_count=3, shift=7)
    series = bulkscope.series_of(Scope(all=True), t0, 100)
    assert [s.switch for s in series] == ["bulk-a"] * 2 + ["bulk-b"] * 3
    p = bulk.plan(series, t0, t0 + timedelta(minutes=10), "raw", max_rows=10_000)
    got = _rows(p)
    rank = {s.id: i for i, s in enumerate(series)}
    want = sorted(truth_a + truth_b, key=lambda r: (series[rank[r[1]]].switch, r[0], rank[r[1]]))
    assert [r[:6] for r in got] == want
    for r in got:
        assert r[6] == _drawn_rate(r[3], r[4], r[5])
    flags = Flag(0)
    for r in got:
        flags |= r[4]
    assert flags & (Flag.WRAP | Flag.REBOOT | Flag.GAP | Flag.MISSING | Flag.OVER_CAPACITY | Flag.FIRST) == (
        Flag.WRAP | Flag.REBOOT | Flag.GAP | Flag.MISSING | Flag.OVER_CAPACITY | Flag.FIRST), "the data has them all"
    by_time = _rows(p, "time")
    assert sorted(by_time) == sorted(got)
    assert [(r[0], rank[r[1]]) for r in by_time] == sorted((r[0], rank[r[1]]) for r in by_time)


@pytest.mark.django_db
def test_a_counter64_above_2_to_the_63_comes_back_unsigned_and_exact():
    sw = f.switch("bulk-64")
    s = f.series(f.port(sw, is_atm=False), "in", metric="octets", unit="octets", width=64)
    lay = f.layout(sw, [s])
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    big = (1 << 64) - 12345
    with connection.cursor() as c:
        c.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags) "
                  "VALUES (%s, 100, %s, %s, 15000, %s, %s, %s)", [t0, sw.id, lay.id, [to_i64(big)], [777], [0]])
    p = bulk.plan(bulkscope.series_of(Scope(switches=("bulk-64",)), t0, 10), t0, t0 + timedelta(minutes=1), "raw",
                  max_rows=100)
    (b,) = list(bulk.batches(p))
    assert b.values["counter"].dtype == np.uint64 and int(b.values["counter"][0]) == big
    assert int(b.values["delta"][0]) == 777 and b.values["rate"][0] == 777 / 15


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("res", ["1m", "15m"])
def test_tier_rows_are_the_sums_of_the_raw_rows_in_each_bucket(monkeypatch, res):
    f.reset_rollups()
    monkeypatch.setattr(bulk, "BATCH_ROWS", 3)
    t0 = (datetime.now(UTC) - timedelta(hours=3)).replace(minute=0, second=0, microsecond=0)
    _, _, truth = _archive("bulk-t", t0 + timedelta(seconds=5), series_count=3)
    rollup.run(budget_s=30, lag_s=0)
    series = bulkscope.series_of(Scope(switches=("bulk-t",)), t0, 10)
    p = bulk.plan(series, t0, t0 + timedelta(minutes=30), res, max_rows=10_000)
    width = {"1m": 60, "15m": 900}[res] * 1_000_000
    want: dict[tuple[int, int], list] = {}
    for t, sid, _, delta, flags, interval in truth:
        b = want.setdefault((t - t % width, sid), [0, 0, 0, 0])
        if _drawn_rate(delta, flags, interval) is not None:
            b[0] += delta
            b[1] += interval
        b[2] += 1
        b[3] += 1 if flags & ~ROUTINE else 0
    got = {}
    for b in bulk.batches(p):
        for k in range(len(b)):
            v = b.values
            got[(int(b.t[k]), int(b.sid[k]))] = [int(v["delta"][k]), round(v["drawn_s"][k] * 1000),
                                                 int(v["samples"][k]), int(v["flagged"][k])]
            if v["drawn_s"][k] > 0:
                assert v["rate"][k] == pytest.approx(v["delta"][k] / v["drawn_s"][k], rel=1e-12)
    assert got == want


# scope or window -> the words the error must hold
BAD = {
    "two scopes": (dict(scope=Scope(switches=("bulk-e",), all=True)), "give one scope, not switches and all"),
    "no scope": (dict(scope=Scope()), "say what to export"),
    "unknown switch": (dict(scope=Scope(switches=("nosuch",))), "unknown switch 'nosuch'"),
    "unknown group": (dict(scope=Scope(group="nosuch")), "no group 'nosuch'"),
    "unknown series": (dict(scope=Scope(series=(999_999,))), "unknown series id: 999999"),
    "too many series": (dict(scope=Scope(all=True), max_series=1), "has 2 series; a bulk export holds at most 1"),
    "too many rows": (dict(max_rows=10), "a bulk export holds at most 10 (CELLAR_BULK_EXPORT_MAX_ROWS)"),
    "end before start": (dict(end=-1), "is not before end"),
    "unknown resolution": (dict(res="5m"), "unknown resolution '5m'"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_bad_scopes_and_windows_say_what_is_wrong(name):
    sw = f.switch("bulk-e")
    p = f.port(sw)
    f.layout(sw, [f.series(p, "in"), f.series(p, "out")])
    args, words = BAD[name]
    start = datetime.now(UTC) - timedelta(days=2)
    end = start + timedelta(days=args.get("end", 1))
    with pytest.raises(BadRequest) as caught:
        series = bulkscope.series_of(args.get("scope", Scope(switches=("bulk-e",))), start,
                                     args.get("max_series", 100))
        bulk.plan(series, start, end, args.get("res", "raw"), max_rows=args.get("max_rows", 10**9))
    assert words in str(caught.value)


@pytest.mark.django_db
def test_a_group_exports_its_members_at_the_window_start_in_export_order():
    sw = f.switch("bulk-g")
    p2, p1 = f.port(sw, "A2"), f.port(sw, "A10")
    members = [f.series(p1, "out"), f.series(p2, "in"), f.series(p1, "in")]
    group = edit.save(Spec("bulk-group", rules=("switch=bulk-g",)))
    series = bulkscope.series_of(Scope(group=str(group.id)), datetime.now(UTC), 100)
    assert [(s.port, s.direction) for s in series] == [("A2", "in"), ("A10", "in"), ("A10", "out")]
    assert {s.id for s in series} == {m.id for m in members}
    assert bulkscope.series_of(Scope(group="bulk-group"), datetime.now(UTC), 100) == series


NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
# (start, end) as typed -> the window, or the words of the error
WINDOWS = {
    "defaults: the last 24 h": (("", ""), (NOW - timedelta(hours=24), NOW)),
    "a span back": (("90m", ""), (NOW - timedelta(minutes=90), NOW)),
    "a span before an end": (("7d", "2026-11-20T00:00Z"), (datetime(2026, 11, 13, tzinfo=UTC),
                                                           datetime(2026, 11, 20, tzinfo=UTC))),
    "an end a span before now": (("2026-11-27T00:00", "2h"), (datetime(2026, 11, 27, tzinfo=UTC),
                                                              NOW - timedelta(hours=2))),
    "an offset": (("2026-11-27T01:00+01:00", "1y"), (datetime(2026, 11, 27, tzinfo=UTC), NOW - timedelta(days=365))),
    "words": (("yesterday", ""), "start='yesterday' is not an ISO 8601 time (e.g. 2026-11-22T10:00:00Z), or a span"),
    "a bad unit": (("5x", ""), "start='5x' is not an ISO 8601 time"),
}


@pytest.mark.parametrize("name", list(WINDOWS), ids=list(WINDOWS))
def test_the_window_reads_iso_times_and_spans_back(name):
    (start, end), want = WINDOWS[name]
    if isinstance(want, str):
        with pytest.raises(BadRequest, match=want.replace("(", r"\(").replace(")", r"\)")):
            bulk.window(start, end, NOW)
    else:
        assert bulk.window(start, end, NOW) == want


@pytest.mark.django_db(transaction=True)
def test_settled_days_export_as_their_rows_did():
    """Settling (collector/archive/settle.py) changes nothing an export holds: the same rows, values and
    rates before and after two switches' days become blocks."""
    from collector.archive import settle

    f.reset_rollups()
    t0 = f.T0 + timedelta(hours=5)
    f.derived_archive("bulk-s1", t0)
    f.derived_archive("bulk-s2", t0 + timedelta(seconds=2), series_count=3, shift=5)
    f.derived_archive("bulk-s3", t0 + timedelta(days=1), series_count=2)     # the newest row of a switch stays
    series = bulkscope.series_of(Scope(all=True), t0, 100)
    p = bulk.plan(series, t0 - timedelta(hours=1), t0 + timedelta(days=2), "raw", max_rows=10**6)
    before = _rows(p)
    rollup.run(budget_s=60, lag_s=0)
    report = settle.run(budget_s=120)
    assert report.switch_days >= 2
    with connection.cursor() as c:
        c.execute("SELECT count(*) FROM traffic_sample")
        assert c.fetchone()[0] == 3          # each switch's newest poll is left as a row
    after = _rows(p)
    assert after == before and len(before) == len(f.EVERY_FLAG_POLLS) * 7
    assert _rows(p, "time") == sorted(before, key=lambda r: (r[0], [s.id for s in series].index(r[1])))
