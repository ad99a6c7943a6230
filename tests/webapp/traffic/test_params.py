"""collector/reader/selection.py: query parameters checked, with messages that say what is wrong."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.reader import selection
from collector.reader.selection import BadRequest
from tests.webapp.traffic.examples import NOW


def test_parse_defaults_and_round_trip():
    req = selection.parse({"s": "12,13"})
    assert req.series_ids == (12, 13) and req.range == "24h" and req.unit == "auto" and not req.stack
    full = selection.parse({"s": "3", "start": "2026-11-20T10:00:00Z", "end": "2026-11-20 12:30", "unit": "pct",
                         "res": "1m", "stack": "1"})
    assert full.range == "custom" and full.start == datetime(2026, 11, 20, 10, tzinfo=UTC)
    assert full.end == datetime(2026, 11, 20, 12, 30, tzinfo=UTC)
    again = selection.parse(dict(pair.split("=", 1) for pair in full.query().split("&")))
    assert again == full


@pytest.mark.parametrize("query, message", [
    ({"s": "12,x"}, "series id 'x' is not a number"),
    ({"s": "1", "unit": "knots"}, "unknown unit 'knots'"),
    ({"s": "1", "res": "5m"}, "unknown resolution '5m'"),
    ({"s": "1", "range": "2w"}, "unknown range '2w'"),
    ({"s": "1", "start": "yesterday"}, "start='yesterday' is not an ISO 8601 time"),
    ({"s": "1", "range": "custom"}, "a custom range needs start"),
    ({"s": "1", "range": "1h", "start": "2026-11-20T10:00Z"}, "contradict"),
    ({"s": "1", "stack": "maybe"}, "stack='maybe'"),
    ({"s": ",".join(map(str, range(1, 60)))}, "at most 50"),
])
def test_bad_parameters_say_what_is_wrong(query, message):
    with pytest.raises(BadRequest, match=message):
        selection.parse(query)


@pytest.mark.parametrize("query, message", [
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2026-11-22T09:00Z"}, "is not before end"),
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2026-11-22T10:00Z"}, "is not before end"),
    ({"s": "1", "start": "1970-01-01T00:00Z", "end": "2026-11-22T10:00Z"}, "before 1990"),
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2126-11-22T10:00Z"}, "in the future"),
])
def test_absurd_ranges_are_refused(query, message):
    with pytest.raises(BadRequest, match=message):
        selection.resolve_range(selection.parse(query), NOW, None)


def test_ranges_end_now():
    start, end = selection.resolve_range(selection.parse({"s": "1", "range": "3h"}), NOW, None)
    assert (start, end) == (NOW - timedelta(hours=3), NOW)
    first = NOW - timedelta(days=100)
    assert selection.resolve_range(selection.parse({"s": "1", "range": "all"}), NOW, first) == (first, NOW)
