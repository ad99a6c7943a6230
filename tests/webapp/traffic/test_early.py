"""A plot's buckets sent with its series (webapp/traffic/early.py, service.resolve): planned from
what the process read last, kept only when the request's own plan sends the same statement, so
the plot is the one read the ordinary way, and a guess the rollup moved past is read again."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.http import QueryDict

from collector.archive import rollup
from tests.webapp.traffic.test_live_edge import edge  # noqa: F401  (fixture)
from webapp.traffic import early, params, service
from webapp.traffic.catalog import SeriesInfo

pytestmark = pytest.mark.usefixtures("plain_static")
COLUMNS = ("t", "delta", "seconds", "peak", "low", "samples", "flagged")


def request_for(series, res: str) -> params.PlotRequest:
    return params.parse(QueryDict(f"s={','.join(str(s.id) for s in series)}&range=24h&res={res}"))


def assert_same_plot(a: list[service.Plotted], b: list[service.Plotted]) -> None:
    assert [p.info.id for p in a] == [p.info.id for p in b]
    for x, y in zip(a, b):
        for name in COLUMNS:
            np.testing.assert_array_equal(getattr(x.cols, name), getattr(y.cols, name), err_msg=name)
        assert len(x.cols) > 0


@pytest.mark.parametrize("res", ["15m", "1h"])
def test_buckets_sent_with_the_series_are_the_plots_own(edge, res):   # noqa: F811
    series, _, _ = edge
    early.forget()
    req = request_for(series, res)
    first, _ = service.resolve(req, with_buckets=True)
    assert first.buckets is None                      # nothing read before: the ordinary way
    second, _ = service.resolve(req, with_buckets=True)
    assert second.buckets is not None                 # planned from what the first read
    assert (second.main, second.tail) == (first.main, first.tail) and second.tail
    assert_same_plot(service.fetch(first), service.fetch(second))


def test_a_guess_the_rollup_moved_past_is_read_again(edge):   # noqa: F811
    series, _, _ = edge
    early.forget()
    req = request_for(series, "15m")
    before, _ = service.resolve(req, with_buckets=True)
    rollup.run(budget_s=300, lag_s=3 * 60)            # the watermarks move: the tail is shorter
    moved, _ = service.resolve(req, with_buckets=True)
    assert moved.tail != before.tail and moved.buckets is None
    early.forget()
    fresh, _ = service.resolve(req)
    assert (fresh.main, fresh.tail) == (moved.main, moved.tail)
    assert_same_plot(service.fetch(fresh), service.fetch(moved))
    # and the next plot is sent with its series again
    again, _ = service.resolve(req, with_buckets=True)
    assert again.buckets is not None
    assert_same_plot(service.fetch(fresh), service.fetch(again))


def test_the_guess_is_planned_only_from_series_and_clock_read_before():
    early.forget()
    assert early.series([1]) is None and early.clock() is None
    req = params.parse(QueryDict("s=1&range=auto"))
    assert service._guessed_buckets(req, [1], {}) is None


def info(i: int) -> SeriesInfo:
    return SeriesInfo(i, 1, "sw", "A1", "A1", "ethernet", False, None, None, "in", "octets", "octets", 64,
                      None, 15, "ifHCInOctets", str(i), True, False)


def test_the_series_remembered_are_bounded_and_the_clock_runs_on(monkeypatch):
    early.forget()
    monkeypatch.setattr(early, "SERIES_KEPT", 3)
    read_at = datetime(2026, 1, 1, tzinfo=UTC)
    early.remember([info(i) for i in range(1, 6)], read_at, {"1m": read_at})
    assert early.series([1]) is None and early.series([3, 6]) is None
    assert [s.id for s in early.series([5, 3, 4])] == [5, 3, 4]
    now, done = early.clock()
    assert read_at <= now < read_at + timedelta(seconds=60) and done == {"1m": read_at}
    early.forget()
