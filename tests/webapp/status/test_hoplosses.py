"""The verdicts that name the counter explaining cells missing at a hop or on the link into it."""
from __future__ import annotations

import pytest

from numerics.accounting import Count
from webapp.status.hoplosses import LossCount, counted, inside_verdict, link_verdict, sent_by


def c(low: int, high: int | None = None) -> Count:
    high = low if high is None else high
    return Count(low, (low + high) / 2, high, 2, 0)


def loss(where: str, metric: str, n: int, sid: int = 1) -> LossCount:
    return LossCount(sid, where, metric, "out", c(n), 2 if " VC " in where else 1 if " VP " in where else 0)


@pytest.mark.parametrize("cells_in, cells_out, losses, expect", [
    # nothing missing: in and out ranges meet
    (c(1000, 1010), c(990, 1000), [loss("sw A4", "lost_cells", 400)], ""),
    # missing, explained by a counter inside the switch
    (c(1000), c(600), [loss("sw A4 VC 0/210", "lost_cells", 400)],
     "hop 1 (sw): 400 cells missing between in and out (at least 400); sw A4 VC 0/210 counted 400 lost cells"),
    # two counters explain it: the VC's is named, not its port's (which counts other VCs too), even if smaller
    (c(1000), c(600), [loss("sw A4", "lost_cells", 410), loss("sw A4 VC 0/210", "lost_cells", 398)],
     "hop 1 (sw): 400 cells missing between in and out (at least 400); sw A4 VC 0/210 counted 398 lost cells"),
    # missing, the only counter too small to explain it
    (c(1000), c(600), [loss("sw A4", "lost_cells", 100)],
     "hop 1 (sw): 400 cells missing between in and out (at least 400); no counter of the switch explains them"),
    # missing, a line counter does not explain a loss inside the switch
    (c(1000), c(600), [loss("sw A1", "errors", 400)],
     "hop 1 (sw): 400 cells missing between in and out (at least 400); no counter of the switch explains them"),
    # ranges that overlap (the window's edges between polls), estimates far apart: reported as an estimate
    (c(0, 2000), c(0, 1200), [loss("sw A4", "overflow_cells", 400)],
     "hop 1 (sw): 400 cells missing between in and out (estimated: the polls around the window's edges could "
     "hold them); sw A4 counted 400 overflow cells"),
    # estimates apart by 1 %: nothing on their own, a loss when a counter of the switch explains it
    (c(0, 20000), c(0, 19800), [], ""),
    (c(0, 20000), c(0, 19800), [loss("sw A4", "lost_cells", 100)],
     "hop 1 (sw): 100 cells missing between in and out (estimated: the polls around the window's edges could "
     "hold them); sw A4 counted 100 lost cells"),
    # an unusable count gives no verdict
    (c(1000), Count(600, 600, None, 2, 1), [], ""),
    (None, c(600), [], ""),
])
def test_inside_verdict(cells_in, cells_out, losses, expect):
    assert inside_verdict(1, "sw", cells_in, cells_out, losses) == expect


@pytest.mark.parametrize("prev_out, cells_in, losses, expect", [
    (c(1000), c(1000), [], ""),
    (c(1000), c(700), [loss("sw atm1/0/0", "errors", 300)],
     "link into hop 2: 300 cells sent did not arrive (at least 300); sw atm1/0/0 counted 300 errors"),
    (c(1000), c(700), [loss("sw A4", "overflow_cells", 300)],
     "link into hop 2: 300 cells sent did not arrive (at least 300); the receiving port counts no line "
     "errors for them (a FORE port has no such counter)"),
    # ranges that overlap, estimates alike: no loss
    (c(1000, 1100), c(995, 1105), [], ""),
    # fewer than FEWEST cells apart: not a finding however small the count
    (c(100, 110), c(92, 104), [], ""),
])
def test_link_verdict(prev_out, cells_in, losses, expect):
    assert link_verdict(2, prev_out, cells_in, losses) == expect


def test_counted_keeps_what_counted_something_largest_first():
    found = [(1, "a", "errors", "in", 0), (2, "b", "lost_cells", "out", 2), (3, "c", "discards", "in", 0),
             (4, "d", "crc_errors", "in", 2)]
    got = counted(found, {1: c(5), 2: c(50), 3: c(0), 4: None})
    assert [(lc.series_id, lc.count.low) for lc in got] == [(2, 50), (1, 5)]


@pytest.mark.parametrize("cells_in, cells_out, losses, stands", [
    (c(1000), c(990), [], "out"),                                  # counted out: that
    (c(1000), None, [], "in"),                                     # none out, none lost: the cells in
    (c(1000), None, [loss("sw A4", "discards", 5)], "none"),       # lost some: nothing stands in
    (None, None, [], "none"),
])
def test_sent_by(cells_in, cells_out, losses, stands):
    sent, words = sent_by(1, cells_in, cells_out, losses)
    assert sent is {"out": cells_out, "in": cells_in, "none": None}[stands]
    assert bool(words) == (stands == "in")
