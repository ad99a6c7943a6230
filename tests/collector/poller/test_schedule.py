"""The beat schedule: per-switch phases spread polls over their interval, once per interval."""
from __future__ import annotations

import math
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from collector.poller import schedule
from collector.poller.celery_app import app
from collector.poller.schedule import EARLY_S, Phased, SwitchScheduler, phase_offset


# Reference: frac(switch_id * 0.6180339887498948482...) * period, the golden-ratio fraction.
@pytest.mark.parametrize(("switch_id", "period", "expected"), [
    (0, 15, 0.0),
    (1, 15, 15 * 0.6180339887498949),
    (2, 15, 15 * 0.2360679774997898),     # 1.236... wraps
    (3, 15, 15 * 0.8541019662496847),
    (1, 1, 0.6180339887498949),
    (1, 3600, 3600 * 0.6180339887498949),
    (1000, 60, 60 * 0.0339887498948482),  # 618.0339887...
    (10**6, 60, 60 * 0.9887498948482),    # 618033.9887498948...
])
def test_phase_offset(switch_id, period, expected):
    assert phase_offset(switch_id, period) == pytest.approx(expected, abs=1e-9)
    assert 0 <= phase_offset(switch_id, period) < period
    assert phase_offset(switch_id, period) == phase_offset(switch_id, period)   # deterministic


@pytest.mark.parametrize("switch_id", [0, 1, 2**31 - 1, 2**63 - 1, 10**30])
@pytest.mark.parametrize("period", [1, 15, 3600])
def test_phase_offset_stays_within_the_period(switch_id, period):
    assert 0 <= phase_offset(switch_id, period) < period


@pytest.mark.parametrize("period", [1, 7, 15, 60, 300, 3600])
def test_phase_offset_keeps_the_fraction_of_the_period_when_the_interval_changes(period):
    for switch_id in (1, 5, 99, 12345):
        assert phase_offset(switch_id, period) / period == pytest.approx(phase_offset(switch_id, 1), abs=1e-12)


@pytest.mark.parametrize(("n", "period"), [(10, 15), (209, 15), (1000, 15), (500, 60), (10_000, 15), (3000, 300)])
@pytest.mark.parametrize("first_id", [1, 17, 5000])
def test_phase_offsets_of_consecutive_ids_are_spread_over_the_period(n, period, first_id):
    per_second = Counter(int(phase_offset(i, period)) for i in range(first_id, first_id + n))
    assert max(per_second.values()) <= most_per_second(n, period)
    if n >= period:
        assert min(per_second[s] for s in range(period)) >= n // period - 2


def most_per_second(n: int, period: int) -> int:
    """Polls in the busiest second: at most two above the even share.

    A phase that belongs to the switch alone cannot always hit ceil(n / period) exactly (the
    golden-ratio sequence strays by O(log n) from even: by 2 at most for up to 20,000
    consecutive ids); a hash is worse by far: 1,000 switches at 15 s put ~80 into one second.
    """
    return math.ceil(n / period) + 2


class Clock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> datetime:
        return datetime.fromtimestamp(self.t, UTC)


def test_phased_runs_once_per_slot_on_a_fixed_grid():
    clock = Clock(1_700_000_000.3)          # 5.3 s into a 15 s period (1_700_000_000 % 15 == 5)
    sched = Phased(15, 9.25, nowfun=clock, app=app)
    last = clock()
    assert sched.is_due(last) == (False, pytest.approx(3.95))
    assert sched.remaining_estimate(last).total_seconds() == pytest.approx(3.95)
    sent = []
    while clock.t < 1_700_000_060:
        due, next_s = sched.is_due(last)
        if due:
            sent.append(clock.t)
            last = clock()
        clock.t += 0.01 if due else min(next_s, 0.25)
    # Slots 1_700_000_004.25 + k * 15: every one sent, none twice, none drifting.
    assert [round(t - 1_700_000_004.25, 2) for t in sent] == [0.0, 15.0, 30.0, 45.0]

    # A beat that was away for several slots sends once, then keeps to the grid.
    clock.t = 1_700_000_200.0
    assert sched.is_due(last)[0]
    last = clock()
    due, next_s = sched.is_due(last)
    assert not due and clock.t + next_s == pytest.approx(1_700_000_214.25)


def test_phased_is_due_a_little_early_so_beat_does_not_spin_before_each_slot():
    clock = Clock(1_700_000_004.25 - 0.010)    # beat wakes 10 ms early (Scheduler.adjust)
    sched = Phased(15, 9.25, nowfun=clock, app=app)
    assert sched.is_due(clock() - timedelta(seconds=5))[0]
    clock.t = 1_700_000_004.25 - 2 * EARLY_S
    assert not sched.is_due(clock() - timedelta(seconds=5))[0]


def test_phased_equality_and_pickling():
    import pickle

    a = Phased(15, 3.0, app=app)
    assert a == Phased(15, 3.0) and a != Phased(15, 4.0) and a != Phased(60, 3.0)
    copy = pickle.loads(pickle.dumps(a))
    assert (copy.seconds, copy.phase) == (15, 3.0)


class RecordingScheduler(SwitchScheduler):
    """The real scheduler, on a fake clock, recording what it would send."""
    producer = None

    def __init__(self, *args, **kwargs):
        self.sent: list[tuple[str, float]] = []
        super().__init__(*args, **kwargs)

    def apply_entry(self, entry, producer=None) -> None:
        self.sent.append((entry.name, app.now().timestamp()))


@pytest.fixture
def fake_clock(monkeypatch, settings, tmp_path):
    settings.CELLAR_BEAT_HEARTBEAT = tmp_path / "beat-heartbeat"
    clock = Clock(1_700_000_000.3)
    monkeypatch.setattr(app, "now", clock)
    return clock


@pytest.mark.django_db(transaction=True)   # the scheduler manages its own connection
def test_beat_sends_one_message_per_slot_and_each_switch_once_per_interval_at_its_phase(fake_clock):
    from collector.inventory.models import Switch

    n, period, periods = 300, 15, 3
    Switch.objects.bulk_create(Switch(name=f"sw-{i}", address="192.0.2.1", poll_interval_s=period)
                               for i in range(n))
    Switch.objects.bulk_create(Switch(name=f"far-{i}", address="192.0.2.1", poll_interval_s=period,
                                      poller_group="far") for i in range(20))
    sched = RecordingScheduler(app)
    polls_entries = {name: e for name, e in sched.schedule.items() if name.startswith("poll-")}
    # 300 + 20 switches: at most one entry per (queue, slot of a second), not one per switch
    assert len(polls_entries) <= 2 * period
    assert {e.options["queue"] for e in polls_entries.values()} == {"polls", "polls.far"}
    ids = [i for e in polls_entries.values() for i in e.args[2]]
    assert sorted(ids) == sorted(Switch.objects.values_list("id", flat=True))
    assert len([n for n in sched.schedule if n.startswith("discover-")]) <= 2 * schedule.DISCOVERY_SLOTS
    start, ticks = fake_clock.t, 0
    while fake_clock.t < start + periods * period:
        delay = sched.tick()
        ticks += 1
        assert ticks < 20 * n * periods, "beat is spinning"
        # A tick that asks to run again at once still takes time (~1 ms with a few hundred
        # entries): without it, Celery's own 10 ms wait before a plain interval (check-hosts)
        # would never end on this clock.
        fake_clock.t += delay if delay > 0 else 0.001
    by_switch: dict[int, list[float]] = {}
    for name, t in sched.sent:
        if not name.startswith("poll-"):
            continue
        period_s, slot_s, switch_ids = polls_entries[name].args
        for sid in switch_ids:
            due = schedule.due_time(sid, period_s, t, slot_s)
            # the batch goes out at the start of the slot that holds the switch's own phase
            assert t - 0.05 <= due < t + slot_s + 0.05, (name, sid, t, due)
            by_switch.setdefault(sid, []).append(due)
    assert len(by_switch) == n + 20
    end = start + periods * period
    for sid, times in by_switch.items():
        assert times[0] <= start + period + 1.05 and times[-1] >= end - period - 1.05, (sid, times)
        assert all(b - a == pytest.approx(period, abs=0.001) for a, b in zip(times, times[1:])), (sid, times)
        phase = phase_offset(sid, period)
        assert all(((t - phase + 1) % period) - 1 == pytest.approx(0, abs=0.001) for t in times), (sid, times)
    per_second = Counter(int(t) for times in by_switch.values() for t in times)
    assert max(per_second.values()) <= most_per_second(n, period) + 3, sorted(per_second.values())[-5:]
    assert ticks < 3 * len(sched.sent) + 100      # no busy loop before each slot


@pytest.mark.django_db(transaction=True)
def test_beat_reads_the_inventory_again_after_its_connection_was_killed(fake_clock):
    from django.db import connection

    from collector.inventory.models import Switch

    Switch.objects.create(name="sw-old", address="192.0.2.1")
    sched = RecordingScheduler(app)
    new = Switch.objects.create(name="sw-new", address="192.0.2.2")
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    killer = connection.copy()      # a second connection, as a database restart would do it
    try:
        with killer.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        killer.close()
    sched.refresh()
    assert any(new.id in e.args[2] for name, e in sched.schedule.items() if name.startswith("poll-"))
