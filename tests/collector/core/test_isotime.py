"""collector/core/isotime.py: ISO 8601 in and out, and the one wording of a bad time."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from collector.core import isotime


@pytest.mark.parametrize("text,expected", [
    ("2026-11-22T10:00:00Z", datetime(2026, 11, 22, 10, tzinfo=UTC)),
    ("2026-11-22 11:00:00+01:00", datetime(2026, 11, 22, 10, tzinfo=UTC)),
    ("2026-11-22T10:00:00", datetime(2026, 11, 22, 10, tzinfo=UTC))])
def test_parse_iso_is_utc(text, expected):
    assert isotime.parse_iso(text) == expected
    assert isotime.iso(expected) == "2026-11-22T10:00:00Z"


@pytest.mark.parametrize("text,expected", [("", None), (None, None), ("  ", None),
                                           ("2026-11-22T10:00:00Z", datetime(2026, 11, 22, 10, tzinfo=UTC))])
def test_parse_optional(text, expected):
    assert isotime.parse_optional("start", text) == expected


def test_parse_optional_names_the_input_in_its_error():
    with pytest.raises(ValueError, match=r"^--end='noon' is not an ISO 8601 time \(e\.g\. 2026-11-22T10:00:00Z\)$"):
        isotime.parse_optional("--end", "noon")
