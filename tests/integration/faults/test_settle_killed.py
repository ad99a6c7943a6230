"""Settling killed with SIGKILL in the middle of a switch-day, while polls go on, loses nothing.

Four if-mib switches are polled through today's ingest over four past days (wraps of a Counter64
and of a Counter32 fallback column, a reboot, missed polls, a poll without a column: another
layout), the rollup catches up, and every stored row of every switch (time, layout, uptime,
interval, raw, delta, flags) and every series' raw read (collector.reader.queries.fetch_raw: time,
delta, flags, stored value) is taken. A thread then goes on polling the same switches through
ingest (times of the last minutes), and a separate process settles in bounded runs (one switch-day
a run, as the beat's task does) and stops inside its third switch-day's transaction, after that
day's blocks are written and before its rows are deleted (the moment a lost or doubled day would
come from); it is killed with SIGKILL there. Two switch-days are settled, the third is still rows
only (its blocks rolled back), the rest untouched. Another process settles again to the end:
every row of every day reads back as before (from blocks or rows), no time twice, no switch-day
both in blocks and in rows, every day past the horizon in blocks, and every poll of the thread
stored once. A second test kills the settling process at random moments instead, again and again,
until a run gets to the end (checked after every kill).
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection, transaction

from collector.archive import ingest, rollup, settle
from collector.archive.models import Series
from collector.archive.settled_read import from_us
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from collector.inventory.models import Switch
from collector.reader import catalog, queries
from tests.support.celery_procs import process_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[3]
SWITCHES = 4
STEP = 240
PAUSE_AT = 3           # the settling process stops inside its third switch-day

# Today's settle runs, one switch-day each; with argv[1] = N > 0 the N-th switch-day's transaction
# stops after its blocks are written (its rows not yet deleted) and waits to be killed.
SETTLER = r'''
import sys, time
import django
django.setup()
from collector.archive import settle
pause_at, written = int(sys.argv[1]), 0
real = settle._write_blocks
def write_then_wait(cur, switch_id, lo, rows):
    global written
    size = real(cur, switch_id, lo, rows)
    written += 1
    if written == pause_at:
        print(f"inside {switch_id} {lo.isoformat()}", flush=True)
        time.sleep(300)
    return size
settle._write_blocks = write_then_wait
runs = 0
for _ in range(400):
    report = settle.run(budget_s=60, max_switch_days=1)
    if report.skipped:               # a killed run's session may hold the lock a moment longer
        time.sleep(0.2)
        continue
    if not report.switch_days:
        break
    runs += 1
print(f"done {runs}", flush=True)
'''


class Counters:
    """One switch's agent: counters that wrap, a reboot, missed polls, a poll without a column."""

    def __init__(self, n: int):
        self.rng = random.Random(n)
        self.hc, self.c32, self.out = 2 ** 64 - 3 * 10 ** 9 * (n + 1), 2 ** 32 - 10 ** 8, 0
        self.uptime, self.k = 10 ** 7, 0

    def poll(self, sw: Switch, at: float, step: int) -> bool:
        self.k += 1
        self.uptime += step * 100
        if self.k == 300:
            self.uptime, self.hc, self.c32, self.out = 3000, 0, 0, 0
        self.hc = (self.hc + int(self.rng.lognormvariate(20, 0.5))) % 2 ** 64
        self.c32 = (self.c32 + int(self.rng.lognormvariate(19.5, 0.3))) % 2 ** 32
        self.out = (self.out + int(self.rng.lognormvariate(12, 1))) % 2 ** 64
        if 700 <= self.k < 708:
            return False
        readings = {("ifHCInOctets", "1"): CounterReading(self.hc, 64),
                    ("ifHCInOctets", "2"): CounterReading(self.c32, 32)}
        if self.k != 900:
            readings[("ifHCOutOctets", "1")] = CounterReading(self.out, 64)
        assert ingest.ingest(PollResult(sw.id, at, self.uptime, readings, {}), sw) == 1
        return True


def _all_rows() -> dict[int, list[tuple]]:
    """Every stored poll of every switch, from blocks and from traffic_sample, in time order (one
    snapshot: the thread goes on polling)."""
    out: dict[int, list[tuple]] = {}
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cur.execute("SELECT switch_id, lo FROM traffic_settled_poll ORDER BY switch_id, lo")
        for switch_id, lo in cur.fetchall():
            out.setdefault(switch_id, []).extend(
                (from_us(t), lay, up, iv, raw, delta, flags) for t, lay, up, iv, raw, delta, flags
                in settle.read_blocks(cur, switch_id, lo))
        cur.execute("SELECT switch_id, time, layout_id, uptime_cs, interval_ms, raw, delta, flags FROM traffic_sample "
                    "ORDER BY switch_id, time")
        for switch_id, *row in cur.fetchall():
            out.setdefault(switch_id, []).append(tuple(row))
    return {sw: sorted(rows, key=lambda r: r[0]) for sw, rows in out.items()}


def _reads(switches, lo, hi) -> dict:
    ids = Series.objects.filter(switch__in=switches).order_by("id").values_list("id", flat=True)
    infos = catalog.load_series(list(ids))
    raw = queries.fetch_raw(infos, lo, hi)
    return {sid: (c.t.tolist(), c.delta.tolist(), c.flags.tolist(), c.stored) for sid, c in raw.items()}


def _state() -> tuple[set, set]:
    """(switch, day) in blocks; (switch, day) with rows in traffic_sample."""
    with connection.cursor() as cur:
        cur.execute("SELECT switch_id, lo FROM traffic_settled_poll")
        blocks = set(cur.fetchall())
        cur.execute("SELECT DISTINCT switch_id, time_bucket('1 day', time) FROM traffic_sample")
        rows = set(cur.fetchall())
    return blocks, rows


@dataclass
class Archive:
    switches: list[Switch]
    agents: list[Counters]
    start: datetime
    end: datetime
    to_settle: set[tuple[int, datetime]]      # (switch, day) past the horizon
    rows: dict[int, list[tuple]]
    reads: dict


def _archive() -> Archive:
    """Four switches polled over four days ending yesterday, the rollup caught up."""
    today = rollup.db_now().replace(hour=0, minute=0, second=0, microsecond=0)
    start, end = today - timedelta(days=5), today - timedelta(days=1)
    switches, agents = [], []
    for n in range(SWITCHES):
        sw = Switch.objects.create(name=f"killed-{n}", address=f"127.0.0.{n + 1}", community="c0mm",
                                   profile="if-mib", poll_interval_s=STEP)
        agents.append(Counters(n))
        switches.append(sw)
        at = start.timestamp() + 3.5 + n
        while at + STEP + 1 < end.timestamp():
            at += STEP + random.Random(at).randint(-400, 400) / 1000
            agents[n].poll(sw, at, STEP)
    for _ in range(20):
        if rollup.run(budget_s=60).caught_up:
            break
    horizon = settle.horizon(rollup.db_now())
    assert horizon is not None and horizon >= start + timedelta(days=2)
    to_settle = {(sw.id, start + timedelta(days=d)) for sw in switches for d in range((horizon - start).days)}
    archive = Archive(switches, agents, start, end, to_settle, _all_rows(), _reads(switches, start, end))
    assert sum(len(r) for r in archive.rows.values()) > 5000
    flags = {f for cols in archive.reads.values() for f in cols[2]}
    assert len(flags) >= 4, flags             # wraps, the reboot, the gap, the first row: all in the reads
    return archive


class Poller:
    """A thread polling the archive's switches through ingest (times of the last few minutes) until stopped."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self.stop = threading.Event()
        self.polled: list[tuple[int, float]] = []
        self.failures: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        sws, agents = self.archive.switches, self.archive.agents
        try:
            at = rollup.db_now().timestamp() - 600
            for i in range(1000):
                if self.stop.is_set():
                    break
                agents[i % SWITCHES].k = 10 ** 6          # no reboot, gap or missing column any more
                agents[i % SWITCHES].poll(sws[i % SWITCHES], at + i * 0.5, STEP)
                self.polled.append((sws[i % SWITCHES].id, at + i * 0.5))
                time.sleep(0.01)
        except BaseException as exc:             # reported by the test, not lost in the thread
            self.failures.append(exc)
        finally:
            connection.close()

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(30)
        assert not self.failures, self.failures


def _settler(env: dict, pause_at: int, log) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SETTLER, str(pause_at)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=log, text=True, start_new_session=True)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL, then wait (bounded) until the server has ended the process's sessions: a COMMIT it
    sent just before dying still finishes after the client is gone, and a check read meanwhile saw
    a day's rows deleted before its blocks."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cellar-settler'")
            if not cur.fetchone()[0]:
                return
        time.sleep(0.05)
    raise AssertionError("the killed settler's sessions are still there after 30 s")


def _to_the_end(env: dict) -> str:
    again = subprocess.run([sys.executable, "-c", SETTLER, "0"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0 and again.stdout.startswith("done"), again.stderr[-3000:]
    return again.stdout.strip()


def _all_there(archive: Archive, poller: Poller) -> None:
    blocks, rows = _state()
    assert blocks == archive.to_settle, (len(blocks), len(archive.to_settle))  # every day past the horizon
    assert not blocks & rows
    assert _all_rows_as_before(archive.rows, poller.polled, final=True)
    assert _reads(archive.switches, archive.start, archive.end) == archive.reads


def test_settling_killed_mid_day_while_polling_loses_nothing(tmp_path):
    started = time.monotonic()
    archive = _archive()
    built_s = time.monotonic() - started
    poller = Poller(archive)
    env = process_env(tmp_path, PGAPPNAME="cellar-settler")
    log = open(tmp_path / "settler.log", "w")
    first = _settler(env, PAUSE_AT, log)
    try:
        assert first.stdout is not None
        line = first.stdout.readline()           # written inside the third switch-day's transaction
        assert line.startswith("inside"), (line, (tmp_path / "settler.log").read_text()[-3000:])
        blocks, _ = _state()
        assert len(blocks) == PAUSE_AT - 1       # the third day's blocks are not committed
        assert _in_transaction() == 1
    finally:
        _kill(first)
    assert first.returncode == -signal.SIGKILL
    _, paused_switch, paused_day = line.split()
    polls_at_kill = len(poller.polled)

    blocks, rows = _state()
    assert len(blocks) == PAUSE_AT - 1 and blocks < archive.to_settle   # two days settled, the third rolled back
    assert not blocks & rows                                    # no day both in blocks and in rows
    assert (int(paused_switch), datetime.fromisoformat(paused_day)) in rows
    assert polls_at_kill > 0                                    # the kill came while polls went on
    assert _all_rows_as_before(archive.rows, poller.polled, final=False)

    rerun = _to_the_end(env)
    time.sleep(0.3)                              # a few more polls after the settling
    poller.finish()
    assert len(poller.polled) > polls_at_kill
    _all_there(archive, poller)
    print(f"\n{sum(len(r) for r in archive.rows.values())} rows built in {built_s:.1f} s; killed inside switch-day "
          f"{PAUSE_AT} of {len(archive.to_settle)}; {len(poller.polled)} polls during the settling "
          f"({polls_at_kill} before the kill); rerun: {rerun}; {time.monotonic() - started:.1f} s in all")


def test_settling_killed_at_random_moments_loses_nothing(tmp_path):
    """The same archive and polls; the settling process is killed at random moments once it has
    settled a day (inside a transaction or between two, wherever it is), started again, killed
    again, until one run gets to the end; checked after every kill and at the end."""
    started = time.monotonic()
    archive = _archive()
    poller = Poller(archive)
    env = process_env(tmp_path, PGAPPNAME="cellar-settler")
    log = open(tmp_path / "settler.log", "w")
    rng = random.Random(11)
    kills, inside, finished = 0, 0, False
    for _ in range(len(archive.to_settle) + 1):      # every run settles a day at least before its kill
        had = len(_state()[0])
        proc = _settler(env, 0, log)
        try:
            while proc.poll() is None and _settled_days() == had:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.08))
            inside += _in_transaction()
            if proc.poll() is None:
                kills += 1
        finally:
            _kill(proc)
        if proc.returncode == 0:
            finished = True
            break
        blocks, rows = _state()
        assert not blocks & rows and len(blocks) > had
        assert _all_rows_as_before(archive.rows, poller.polled, final=False)
    assert finished and kills >= 2, (kills, finished)
    poller.finish()
    _all_there(archive, poller)
    print(f"\n{kills} kills ({inside} inside a transaction) over {len(archive.to_settle)} switch-days, "
          f"{len(poller.polled)} polls meanwhile; {time.monotonic() - started:.1f} s in all")


def _settled_days() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_poll")
        return cur.fetchone()[0]


def _in_transaction() -> int:
    """The settling process's sessions inside a transaction now."""
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cellar-settler' "
                    "AND xact_start IS NOT NULL")
        return cur.fetchone()[0]


def _all_rows_as_before(before: dict[int, list[tuple]], polled: list[tuple[int, float]], final: bool) -> bool:
    """Every row there before is there as it was, each poll of the thread once, nothing else (while
    the thread polls on: its polls listed before the rows were read, and maybe newer ones)."""
    listed = list(polled)
    now = _all_rows()
    for switch_id, rows in now.items():
        times = [r[0] for r in rows]
        assert len(times) == len(set(times)), f"switch {switch_id}: a poll stored twice"
        old = before.get(switch_id, [])
        assert rows[:len(old)] == old, f"switch {switch_id}: a stored row changed or went missing"
        new = [r[0].timestamp() for r in rows[len(old):]]
        mine = sorted(at for sw, at in listed if sw == switch_id)
        if not final:
            new = [t for t in new if mine and t <= mine[-1] + 1e-3]
        assert new == pytest.approx(mine, abs=1e-5), switch_id
    return True
