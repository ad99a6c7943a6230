"""Faults produced for real: the database goes away mid-run, polls are spooled, nothing is lost."""
from __future__ import annotations

import time

import pytest
from django.core.management import call_command
from django.db import connection

from collector.archive import spool
from collector.archive.models import Layout, Sample, Series
from collector.core.facts import Flag
from collector.inventory.models import Switch
from collector.poller import runner
from tests.support.agents import NetSnmpAgent
from tests.support.tcpproxy import TcpProxy

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def db_through_proxy():
    """Route this process's database connection through a proxy the test can cut."""
    settings_dict = connection.settings_dict
    proxy = TcpProxy(settings_dict["HOST"], int(settings_dict["PORT"])).start()
    old_port = settings_dict["PORT"]
    connection.close()
    settings_dict["PORT"] = str(proxy.port)
    yield proxy
    proxy.restore()
    connection.close()
    settings_dict["PORT"] = old_port
    proxy.stop()


def test_database_outage_spools_then_writes_everything_in_order(db_through_proxy):
    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "sw-outage", agent.host, "--port", str(agent.port), "--community",
                     "public", "--profile", "if-mib", "--interval", "1", "--timeout", "1", "--retries", "0")
        switch = Switch.objects.get(name="sw-outage")
        call_command("discover", "sw-outage")
        assert runner.poll_once(switch.id).stored == "written"

        # Twenty polls into a dead database: five minutes' worth at the default 15 s interval,
        # here one second apart (the spool does not care how long the outage lasts).
        db_through_proxy.cut()
        outcomes = []
        for _ in range(20):
            time.sleep(1)
            outcomes.append(runner.poll_once(switch.id))
        assert [o.stored for o in outcomes] == ["spooled"] * 20
        assert all(o.ok for o in outcomes)    # the agent answered; only storage was deferred
        assert spool.pending(switch.id)

        db_through_proxy.restore()
        time.sleep(1)
        final = runner.poll_once(switch.id)
        assert final.stored == "written"
        assert not spool.pending(switch.id)

    rows = list(Sample.objects.filter(switch_id=switch.id).order_by("time"))
    assert len(rows) == 22                                 # nothing lost, nothing twice
    times = [r.time for r in rows]
    assert times == sorted(set(times))
    s_in = Series.objects.get(switch=switch, object_name="ifHCInOctets", port__name="lo")
    pos = [Layout.objects.get(pk=r.layout_id).series_ids.index(s_in.id) for r in rows]
    raws = [r.raw[p] for r, p in zip(rows, pos)]
    deltas = [r.delta[p] for r, p in zip(rows, pos)]
    flags = [r.flags[p] for r, p in zip(rows, pos)]
    # Derived in poll order after the outage: every delta present and exact, no FIRST restart.
    assert flags[0] == Flag.FIRST and all(not f & (Flag.FIRST | Flag.RESET | Flag.REBOOT) for f in flags[1:])
    assert deltas[1:] == [b - a for a, b in zip(raws, raws[1:])]
    assert sum(deltas[1:]) == raws[-1] - raws[0]


def test_a_torn_spool_line_is_set_aside_not_fatal(settings, tmp_path):
    from collector.core.poll import PollResult
    from collector.core.readings import CounterReading

    settings.CELLAR_SPOOL_DIR = tmp_path
    good = PollResult(42, 1000.0, 5, {("ifHCInOctets", "1"): CounterReading(7, 64)}, {})
    spool.append(good)
    with open(tmp_path / "42.jsonl", "a") as fh:
        fh.write('{"switch_id": 42, "at": 10')   # a crash mid-write
    spool.append(PollResult(42, 1001.0, 6, {("ifHCInOctets", "1"): CounterReading(9, 64)}, {}))
    seen = []
    assert spool.drain(42, lambda r: seen.append(r.at)) == 3
    assert seen == [1000.0, 1001.0]
    assert (tmp_path / "42.bad").read_text().startswith('{"switch_id": 42')
    assert not spool.pending(42)


def _poll_times(switch_id: int) -> list:
    from collector.archive.models import PollLog

    return list(PollLog.objects.filter(switch_id=switch_id).order_by("time").values_list("time", flat=True))


@pytest.mark.slow
def test_polling_resumes_when_redis_comes_back(tmp_path):
    from tests.support.celery_procs import CeleryProcess, RedisServer

    server = RedisServer(tmp_path).start()
    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "sw-redis", agent.host, "--port", str(agent.port), "--community",
                     "public", "--profile", "if-mib", "--interval", "1", "--timeout", "1", "--retries", "0")
        switch = Switch.objects.get(name="sw-redis")
        worker = CeleryProcess("worker", tmp_path, REDIS_URL=server.url)
        beat = CeleryProcess("beat", tmp_path, REDIS_URL=server.url)
        try:
            worker.wait_for_log("ready.")
            time.sleep(5)
            assert len(_poll_times(switch.id)) >= 2, beat.tail()
            server.kill()
            time.sleep(6)
            during = len(_poll_times(switch.id))
            server.start()   # same port, empty: queued tasks of the outage are gone, as they should be
            # Polling resumes: 5 more polls within 30 s (12 s at rest: the worker's reconnection
            # backs off, and under load it took longer: only 3 polls in the first 12 s once).
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(_poll_times(switch.id)) - during < 5:
                time.sleep(1)
            after = _poll_times(switch.id)
            assert len(after) - during >= 5, (during, len(after), worker.tail(), beat.tail())
            assert worker.proc.poll() is None and beat.proc.poll() is None   # nobody crashed
        finally:
            beat.kill()
            worker.kill()
            server.kill()


@pytest.mark.slow
def test_worker_killed_mid_poll_leaves_no_duplicate_and_no_long_gap(tmp_path):
    import signal

    from tests.support.celery_procs import CeleryProcess, RedisServer

    server = RedisServer(tmp_path).start()
    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "sw-kill", agent.host, "--port", str(agent.port), "--community",
                     "public", "--profile", "if-mib", "--interval", "2", "--timeout", "1", "--retries", "0")
        switch = Switch.objects.get(name="sw-kill")
        worker = CeleryProcess("worker", tmp_path, REDIS_URL=server.url)
        beat = CeleryProcess("beat", tmp_path, REDIS_URL=server.url)
        try:
            worker.wait_for_log("ready.")
            time.sleep(7)
            before = _poll_times(switch.id)
            worker.kill(signal.SIGKILL)       # no warm shutdown: acks_late tasks are left unacked
            killed_at = time.time()
            worker = CeleryProcess("worker", tmp_path, REDIS_URL=server.url)
            worker.wait_for_log("ready.")
            restart_s = time.time() - killed_at
            # Polls resume once the killed worker's poll lock expires (10 s); under load that can be
            # late in a fixed 10 s window, so wait (bounded) for three new polls.
            deadline = time.time() + 25
            while len(times := _poll_times(switch.id)) <= len(before) + 2 and time.time() < deadline:
                time.sleep(0.5)
            assert len(times) > len(before) + 2, worker.tail()
            samples = list(Sample.objects.filter(switch_id=switch.id).order_by("time").values_list("time", flat=True))
            assert len(samples) == len(set(samples)) == len(times)
            gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
            # At most the polls due while no worker ran are missing; the poll lock of the killed
            # worker expires within 10 s, so it cannot block the new worker for longer.
            assert max(gaps) <= 2 * 2 + restart_s + 11, (gaps, restart_s)
        finally:
            beat.kill()
            worker.kill()
            server.kill()
