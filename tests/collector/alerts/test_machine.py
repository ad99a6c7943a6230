"""The state machine, table-driven: hovering, sustained vs every sample, pending timing, hysteresis,
mute and acknowledgement expiry."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.alerts import machine
from collector.alerts.machine import FIRING, OK, PENDING, RESOLVED, Reading, Window

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def run(readings, hold_s: float = 0, step_s: float = 15) -> list[str]:
    state, since, pending = OK, T0, None
    out = []
    for i, r in enumerate(readings):
        now = T0 + timedelta(seconds=i * step_s)
        s = machine.step(state, since, pending, r, now, timedelta(seconds=hold_s))
        state, since, pending = s.state, s.since, s.pending_since
        out.append(state)
    return out


def rate(latest, average, low, high, complete=True, **kw):
    return machine.rate_reading(Window(latest, average, low, high, complete), **{
        "above": True, "every": False, "threshold": 80.0, "recovery": 70.0, **kw})


@pytest.mark.parametrize("values, expected", [
    # (latest, window average, complete) per evaluation; threshold 80, recovery 70, average mode
    ([(50, 50), (90, 60), (90, 75), (90, 85), (90, 88)], [OK, PENDING, PENDING, FIRING, FIRING]),
    # a rate hovering between recovery and threshold keeps firing: no flapping
    ([(90, 85), (79, 81), (81, 79), (78, 76), (82, 81), (75, 72)], [FIRING] * 6),
    # it resolves only below the recovery value, then goes back to ok silently
    ([(90, 85), (60, 69), (60, 60)], [FIRING, RESOLVED, OK]),
    # a spike that does not last: pending, then ok (nothing sent)
    ([(95, 60), (50, 58)], [PENDING, OK]),
])
def test_average_mode_with_hysteresis(values, expected):
    assert run([rate(latest, avg, min(latest, avg), max(latest, avg)) for latest, avg in values]) == expected


def test_oscillating_rate_fires_once_and_never_flaps():
    # The samples alternate 75 / 85 around the threshold 80; the window's average is 80 +- 1.
    readings = [rate(85 if i % 2 else 75, 80.5 if i % 2 else 79.5, 75, 85) for i in range(40)]
    states = run(readings)
    changes = [b for a, b in zip([OK, *states], states) if a != b]
    assert changes.count(FIRING) == 1 and RESOLVED not in changes


def test_every_sample_mode_needs_the_lowest_sample_above_and_the_highest_below_recovery():
    every = {"every": True}
    assert rate(90, 85, 79, 95, **every).breach is False          # one sample below: not every sample
    assert rate(90, 85, 81, 95, **every).breach is True
    assert rate(60, 60, 50, 71, **every).clear is False           # one sample still above recovery
    assert rate(60, 60, 50, 69, **every).clear is True
    assert rate(90, 90, 90, 90, complete=False, **every).breach is False   # window not yet full
    assert rate(90, 90, 90, 90, complete=False, **every).onset is True     # ... but pending


def test_below_rules_mirror_above():
    low = {"above": False, "threshold": 10.0, "recovery": 20.0}
    assert rate(5, 5, 4, 6, **low).breach and not rate(5, 5, 4, 6, **low).clear
    assert rate(15, 15, 14, 16, **low).clear is False              # between threshold and recovery
    assert rate(25, 25, 24, 26, **low).clear is True


@pytest.mark.parametrize("hold_s, down_for, expected_firing_at", [
    (0, 3, 0), (30, 5, 2), (60, 6, 4), (60, 3, None)])
def test_pending_lasts_the_hold(hold_s, down_for, expected_firing_at):
    readings = [machine.condition_reading(True)] * down_for + [machine.condition_reading(False)]
    states = run(readings, hold_s=hold_s)
    assert (states.index(FIRING) if FIRING in states else None) == expected_firing_at
    assert states[-1] in (OK, RESOLVED)
    if expected_firing_at is not None:
        assert states[-1] == RESOLVED


def test_no_data_changes_nothing():
    states = run([machine.condition_reading(True), None, None, machine.condition_reading(False)])
    assert states == [FIRING, FIRING, FIRING, RESOLVED]
    assert run([None, None]) == [OK, OK]


@pytest.mark.parametrize("until, expected", [(None, False), (T0 - timedelta(seconds=1), False),
                                             (T0, False), (T0 + timedelta(hours=1), True)])
def test_mute_and_ack_expire(until, expected):
    assert machine.active_until(until, T0) is expected


@pytest.mark.parametrize("threshold, recovery, above, ok", [
    (80, 70, True, True), (80, None, True, True), (80, 80, True, True), (80, 90, True, False),
    (10, 20, False, True), (10, 5, False, False)])
def test_recovery_must_lie_on_the_good_side(threshold, recovery, above, ok):
    assert (machine.check_recovery(threshold, recovery, above) == "") is ok


def test_unknown_state_is_refused():
    with pytest.raises(ValueError, match="unknown alert state"):
        machine.step("weird", T0, None, Reading(True, True, False), T0)
