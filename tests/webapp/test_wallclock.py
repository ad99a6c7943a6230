"""Wall-clock texts of a zone against zoneinfo's own answer, across both clock changes of a year."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from webapp.wallclock import is_utc, wall_clock_text, wall_clock_texts

BERLIN, KOLKATA, NY = ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Kolkata"), ZoneInfo("America/New_York")


@pytest.mark.parametrize("zone, utc_text, wall", [
    (BERLIN, "2026-03-29T00:59:59Z", "2026-03-29 01:59:59"),     # last second of CET
    (BERLIN, "2026-03-29T01:00:00Z", "2026-03-29 03:00:00"),     # first of CEST: 02:xx never shown
    (BERLIN, "2026-10-25T00:30:00Z", "2026-10-25 02:30:00"),     # CEST
    (BERLIN, "2026-10-25T01:30:00Z", "2026-10-25 02:30:00"),     # the repeated hour, CET
    (KOLKATA, "2026-11-20T00:00:00Z", "2026-11-20 05:30:00"),    # a half-hour offset
    (NY, "2026-11-01 06:00:00", "2026-11-01 01:00:00"),          # naive text is UTC
    (ZoneInfo("UTC"), "2026-11-20T10:00:00+00:00", "2026-11-20 10:00:00"),
    (BERLIN, "2026-11-20T10:00:00.250Z", "2026-11-20 11:00:00.250"),
])
def test_one_time(zone, utc_text, wall):
    assert wall_clock_texts([utc_text], zone) == [wall]


def test_a_year_every_hour_equals_zoneinfo_and_gaps_stay():
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    ts = [t0 + timedelta(minutes=37 * k) for k in range(14_300)]          # > a year, odd minutes
    texts: list = [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in ts]
    texts[5] = None
    got = wall_clock_texts(texts, BERLIN)
    want = [None if i == 5 else t.astimezone(BERLIN).strftime("%Y-%m-%d %H:%M:%S") for i, t in enumerate(ts)]
    assert got == want


def test_utc_keys():
    assert is_utc(ZoneInfo("Etc/UTC")) and not is_utc(BERLIN)


@pytest.mark.parametrize("text", ["2026-03-29 01:00", "2026-10-25T01:30:00Z", "2026-11-20 10:00:00.250"])
def test_one_text_is_the_array_answer(text):
    assert wall_clock_text(text, BERLIN) == wall_clock_texts([text], BERLIN)[0] != text
