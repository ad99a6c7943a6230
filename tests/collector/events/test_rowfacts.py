"""collector/events/rowfacts.py: one fact per kind per row, never one per counter."""
from __future__ import annotations

import pytest

from collector.core.facts import Flag
from collector.events.rowfacts import FlaggedRow, facts

R, W, S, G = int(Flag.REBOOT), int(Flag.WRAP), int(Flag.RESET), int(Flag.GAP)


def test_a_reboot_of_every_counter_is_one_fact_with_the_boot_time():
    (fact,) = facts(FlaggedRow(1, 1000.0, 4200, [1, 2, 3], [R, R | G, R]))
    assert fact.kind == "reboot" and fact.data["counters"] == 3
    assert fact.data["booted_at"] == 958.0 and "uptime went back" in fact.message


def test_wraps_and_resets_name_their_series():
    got = {f.kind: f for f in facts(FlaggedRow(1, 1000.0, 10**6, [1, 2, 3, 4], [W, 0, S, W | G]))}
    assert set(got) == {"wrap", "discontinuity"}
    assert got["wrap"].data == {"counters": 2, "series": [1, 4]}
    assert got["discontinuity"].data == {"counters": 1, "series": [3]}


def test_a_quiet_row_has_no_fact():
    assert facts(FlaggedRow(1, 1000.0, 10**6, [1, 2], [0, G])) == []


@pytest.mark.django_db
def test_wraps_are_recorded_at_most_hourly_per_switch_reboots_always():
    from collector.events import polled
    from collector.events.models import Event
    from tests.support import traffic_factory as f

    sw = f.switch("asx-wraps")
    t0 = 1_800_000_000.0
    rows = [(t0 + 15 * i, 10**6 + 1500 * i, [1, 2], [W, 0]) for i in range(10)]
    rows.append((t0 + 3700, 10**6, [1, 2], [W, 0]))                  # an hour on: due again
    rows.append((t0 + 3715, 50, [1, 2], [R, R]))                      # a reboot is always recorded
    assert polled.record_rows(sw.id, rows) == 3
    assert list(Event.objects.order_by("at").values_list("kind", flat=True)) == ["wrap", "wrap", "reboot"]
    polled.record_rows(sw.id, rows)                                   # replayed (spool): the same rows
    assert Event.objects.count() == 3
