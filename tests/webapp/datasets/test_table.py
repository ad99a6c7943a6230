"""webapp/datasets/table.py: rows, coverage, sorting and CSV of the data inventory (no database)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.archive.tiers import TIER
from webapp.datasets import table
from webapp.datasets.queries import SeriesMeta

T = datetime(1995, 12, 4, 14, 48, tzinfo=UTC)


def meta(i: int, switch: str = "Sprint Floor", port: str = "B1", direction: str = "out", vpi=None):
    return SeriesMeta(i, switch, port, vpi, None, direction, "cells", "cells", 353_207, 15, port)


def rows(*specs):
    """specs: (meta, hours of data, samples, bursts)."""
    ms = [s[0] for s in specs]
    aggs = {m.id: (1000 * m.id, n, 5.0 * m.id) for m, h, n, _ in specs}
    firsts = {m.id: (T, TIER["1m"]) for m in ms}
    lasts = {m.id: (T + timedelta(hours=h), TIER["1m"]) for m, h, _, _ in specs}
    bursts = {m.id: (b, T, T + timedelta(minutes=5)) for m, _, _, b in specs if b}
    return table.build(ms, aggs, firsts, lasts, bursts)


def test_coverage_counts_polls_due_between_first_and_last():
    # 1 hour + the last 1-minute bucket = 61 minutes = 244 polls of 15 s; 200 stored
    (r,) = rows((meta(1), 1, 200, 0))
    assert r.missed_polls == 44 and r.coverage == pytest.approx(200 / 244)
    (full,) = rows((meta(1), 1, 244, 0))
    assert full.coverage == 1.0 and full.missed_polls == 0
    assert rows((meta(1), 1, 300, 0))[0].coverage == 1.0          # never above 100 %


def test_table_15_names_transmit_and_receive():
    out, inn = rows((meta(1), 1, 10, 0), (meta(2, direction="in", vpi=10), 1, 10, 0))
    assert (out.tr, inn.tr, inn.vpi) == ("T", "R", 10)


def test_series_without_data_are_left_out():
    r = table.build([meta(1), meta(2)], {1: (1, 1, 1.0)}, {1: (T, TIER["1m"])}, {1: (T, TIER["1m"])}, {})
    assert [x.series_id for x in r] == [1]


def test_plot_link_zooms_to_the_bursts_with_context():
    with_b, without = rows((meta(1), 24, 10, 2), (meta(2), 24, 10, 0))
    assert "start=1995-12-04T14%3A38%3A00Z" in with_b.plot_url()      # 10 minutes before the first burst
    assert "end=1995-12-04T15%3A03%3A00Z" in with_b.plot_url()
    assert "start=1995-12-04T02%3A48%3A00Z" in without.plot_url()    # half the data's span around it


@pytest.mark.parametrize("key,order", [("total", [1, 2, 3]), ("-total", [3, 2, 1]), ("switch", [2, 1, 3]),
                                       ("-bursts", [3, 1, 2]), ("peak", [1, 2, 3])])
def test_sort_by_any_column(key, order):
    rs = rows((meta(1, "b"), 1, 1, 1), (meta(2, "a"), 1, 1, 0), (meta(3, "c"), 1, 1, 5))
    assert [r.series_id for r in table.sort(rs, key)] == order


def test_sort_by_an_unknown_column_says_what_is_accepted():
    with pytest.raises(ValueError, match="cannot sort by 'colour'"):
        table.sort([], "colour")


def test_csv_has_notes_a_header_and_one_line_per_series():
    lines = "".join(table.csv_lines(rows((meta(1), 1, 10, 1)), ["range x", "rule y"])).splitlines()
    assert lines[:2] == ["# range x", "# rule y"] and lines[2].startswith("series_id,switch,tr,port")
    assert lines[3].startswith("1,Sprint Floor,T,B1,,,cells,cells,1995-12-04T14:48:00Z,1m,")
    assert len(lines) == 4
