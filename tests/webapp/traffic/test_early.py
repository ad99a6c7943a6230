"""A plot's buckets sent with its series (collector/reader/prefetch.py, reading.resolve): planned from
what the process read last, kept only when they are the plot's own (same range, resolution, series
and switches, watermarks no later than the database's), compared with the plot read the ordinary
way."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import numpy as np
import pytest
from django.db import connection
from django.http import QueryDict

from collector.archive import rollup
from collector.reader import prefetch, reading, selection
from collector.reader.catalog import SeriesInfo
from tests.webapp.traffic.test_live_edge import edge  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("plain_static")
COLUMNS = ("t", "delta", "seconds", "peak", "low", "samples", "flagged")


def request_for(series, res: str) -> selection.PlotRequest:
    return selection.parse(QueryDict(f"s={','.join(str(s.id) for s in series)}&range=24h&res={res}"))


def assert_same_plot(a: list[reading.Plotted], b: list[reading.Plotted]) -> None:
    assert [p.info.id for p in a] == [p.info.id for p in b]
    for x, y in zip(a, b):
        for name in COLUMNS:
            np.testing.assert_array_equal(getattr(x.cols, name), getattr(y.cols, name), err_msg=name)
        assert len(x.cols) > 0


@pytest.mark.parametrize("res", ["15m", "1h"])
def test_buckets_sent_with_the_series_are_the_plots_own(edge, res):   # noqa: F811
    series, _, _ = edge
    prefetch.forget()
    req = request_for(series, res)
    first, _ = reading.resolve(req, with_buckets=True)
    assert first.buckets is None                      # nothing read before: the ordinary way
    second, _ = reading.resolve(req, with_buckets=True)
    assert second.buckets is not None                 # planned from what the first read
    assert (second.main, second.tail) == (first.main, first.tail) and second.tail
    assert_same_plot(reading.fetch(first), reading.fetch(second))


def test_a_guess_the_rollup_moved_past_reads_a_longer_tail_to_the_same_plot(edge):   # noqa: F811
    """Watermarks that moved on since the guess: its tail is longer (finer tiers, raw samples)
    and sums to the buckets the plan's own statement reads."""
    series, _, _ = edge
    prefetch.forget()
    req = request_for(series, "15m")
    before, _ = reading.resolve(req)
    rollup.run(budget_s=300, lag_s=3 * 60)            # the watermarks move: the plan's tail is shorter
    moved, _ = reading.resolve(req, with_buckets=True)
    assert moved.tail != before.tail and moved.buckets is not None
    prefetch.forget()
    fresh, _ = reading.resolve(req)
    assert (fresh.main, fresh.tail) == (moved.main, moved.tail)
    assert_same_plot(reading.fetch(fresh), reading.fetch(moved))


def test_a_guess_past_the_databases_watermarks_is_read_again(edge):   # noqa: F811
    """After a restore the watermarks can move back: a guess beyond them would read tier rows
    that are not there; its buckets are dropped and read again with the plan's own."""
    series, _, _ = edge
    prefetch.forget()
    req = request_for(series, "15m")
    reading.resolve(req)
    with connection.cursor() as cur:
        cur.execute("UPDATE traffic_rollup_watermark SET done_until = done_until - interval '2 hours'")
        cur.execute("DELETE FROM traffic_rollup_1m WHERE bucket >= (SELECT done_until FROM traffic_rollup_watermark "
                    "WHERE tier = '1m')")
    back, _ = reading.resolve(req, with_buckets=True)
    assert back.buckets is None
    prefetch.forget()
    fresh, _ = reading.resolve(req)
    assert (fresh.main, fresh.tail) == (back.main, back.tail)
    assert_same_plot(reading.fetch(fresh), reading.fetch(back))


def test_the_guess_is_planned_only_from_series_and_clock_read_before():
    prefetch.forget()
    assert prefetch.series([1]) is None and prefetch.clock() is None
    req = selection.parse(QueryDict("s=1&range=auto"))
    assert reading._guessed_buckets(req, [1], {}) is None


def info(i: int) -> SeriesInfo:
    return SeriesInfo(i, 1, "sw", "A1", "A1", "ethernet", False, None, None, "in", "octets", "octets", 64,
                      None, 15, "ifHCInOctets", str(i), True, False)


def test_the_series_remembered_are_bounded_and_the_clock_runs_on(monkeypatch):
    prefetch.forget()
    monkeypatch.setattr(prefetch, "SERIES_KEPT", 3)
    read_at = datetime(2026, 1, 1, tzinfo=UTC)
    prefetch.remember([info(i) for i in range(1, 6)], read_at, {"1m": read_at})
    assert prefetch.series([1]) is None and prefetch.series([3, 6]) is None
    assert [s.id for s in prefetch.series([5, 3, 4])] == [5, 3, 4]
    now, done = prefetch.clock()
    assert read_at <= now < read_at + timedelta(seconds=60) and done == {"1m": read_at}
    prefetch.forget()


T0 = datetime(2026, 1, 1, tzinfo=UTC)
H = timedelta(hours=1)
BASE = {"res": "15m", "start": T0, "end": T0 + 24 * H, "series": [(1, 7), (2, 7)],
        "done": {"1m": T0 + 20 * H, "15m": T0 + 19 * H, "1h": T0 + 19 * H, "1d": None}}


def plan_like(**change):
    d = {**BASE, **change}
    return SimpleNamespace(res=d["res"], start=d["start"], end=d["end"], done=d["done"],
                           series=[SimpleNamespace(id=i, switch_id=w) for i, w in d["series"]])


@pytest.mark.parametrize("guess, same", [
    ({}, True),
    ({"done": {**BASE["done"], "1m": T0 + 19 * H}}, True),          # older watermark: a longer tail
    ({"done": {**BASE["done"], "1m": T0 + 21 * H}}, False),         # past the database's
    ({"done": {**BASE["done"], "1d": T0}}, False),                  # a tier the database has not begun
    ({"done": {**BASE["done"], "15m": None}}, False),               # a tier begun since
    ({"res": "1h"}, False),
    ({"start": T0 + H}, False),
    ({"series": [(1, 7), (2, 8)]}, False),                          # a series on another switch now
    ({"series": [(2, 7), (1, 7)]}, False),
])
def test_same_buckets(guess, same):
    assert prefetch.same_buckets(plan_like(**guess), plan_like()) is same
