"""Pollers on several machines: a poller group is a Celery queue (polls.<group>) that a worker at
its site consumes. Here the "site" is a network namespace of its own, holding its simulated
switches (a simnet.swarm agent on the namespace's own loopback): only its worker can reach them,
and that worker reaches PostgreSQL and redis through their unix sockets, as a remote poller
reaches them over the network. The first worker (root namespace) polls the rest.

Then the site's worker is killed (SIGKILL) and started again: its switches resume, the archive
holds no duplicate and loses no traffic (the first sample after the outage carries all of it),
and while it is down the dashboard's Pollers table says the site's poller is late.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.db import connection

from collector.archive.models import PollLog
from collector.inventory.models import Switch
from collector.poller import locks, pollers
from simnet.netns import PREFIX, NetnsLab, unavailable_reason
from tests.support.browser import SHOTS, chromium, log_in
from tests.support.celery_procs import CeleryProcess, RedisServer, wait_for

pytestmark = [pytest.mark.netns, pytest.mark.slow, pytest.mark.browser]
INTERVAL = 2
ROOT_SWITCHES, SITE_SWITCHES = 3, 3
SNAPSHOTS = Path("/work/helpers/shots")


def _swarm(prefix: list[str], port: int, log: Path) -> subprocess.Popen:
    proc = subprocess.Popen([*prefix, sys.executable, "-m", "simnet.swarm", "--port", str(port)],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
    assert wait_for(lambda: "listening" in log.read_text(), 20), log.read_text()
    return proc


def _answers(prefix: list[str], port: int) -> bool:
    out = subprocess.run([*prefix, "snmpget", "-v2c", "-c", "ip48", "-t", "0.5", "-r", "0", f"127.0.0.1:{port}",
                          "1.3.6.1.2.1.1.3.0"], capture_output=True, text=True, timeout=15)
    return "Timeticks" in out.stdout


def _ok_polls(ids: list[int], after: float = 0.0) -> dict[int, int]:
    from datetime import UTC, datetime

    since = datetime.fromtimestamp(after, tz=UTC)
    return {i: PollLog.objects.filter(switch_id=i, status="ok", time__gt=since).count() for i in ids}


def _slot_ids(log: Path) -> set[int]:
    ids: set[int] = set()
    for m in re.finditer(r"poll slot of \d+ switches \([\d.]+ s\): ([\d,]+)", log.read_text()):
        ids |= {int(x) for x in m.group(1).split(",")}
    return ids


def _samples(switch_id: int) -> list[tuple[float, int, list[int], list[int | None], int]]:
    with connection.cursor() as cur:
        cur.execute("SELECT extract(epoch FROM time)::float8, layout_id, raw, delta, interval_ms FROM traffic_sample "
                    "WHERE switch_id = %s ORDER BY time", [switch_id])
        return cur.fetchall()


def _whole(raw0: list[int], raw1: list[int], delta1: list[int | None]) -> bool:
    """Every counter's delta is the whole difference from the row before (the discontinuity
    times stored beside the counters have none)."""
    counters = [(a, b, d) for a, b, d in zip(raw0, raw1, delta1) if d is not None]
    return len(counters) >= len(raw0) * 8 // 9 and all(d == b - a for a, b, d in counters)


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


@pytest.mark.django_db(transaction=True)
def test_site_poller_in_its_own_namespace_polls_its_group_and_a_killed_one_loses_nothing(
        tmp_path, settings, live_server, browser):
    reason = unavailable_reason()
    assert reason is None, reason        # never skipped: make test runs as root
    sockdir = Path(tempfile.mkdtemp(prefix="scale-", dir="/tmp"))     # short: unix socket paths <= 107 bytes
    redis = RedisServer(tmp_path, unixsocket=sockdir / "redis.sock").start()
    settings.REDIS_URL = redis.url           # the page reads the pollers seen where the workers write them
    locks.forget_client()
    with connection.cursor() as cur:
        cur.execute("SELECT current_setting('unix_socket_directories')")
        pg_dir = cur.fetchone()[0].split(",")[0].strip()
    db = connection.settings_dict
    procs: list = []
    try:
        with NetnsLab(tag=f"{PREFIX}{os.getpid()}-scale") as lab:
            site = lab.add_ns("site")
            in_site = ["ip", "netns", "exec", site.name]
            home_port = site_port = 16161 + os.getpid() % 1000
            procs.append(_swarm([], home_port, tmp_path / "home-agent.log"))
            procs.append(_swarm(in_site, site_port, tmp_path / "site-agent.log"))
            # Same address and port, two agents: each namespace reaches only its own.
            assert _answers([], home_port) and _answers(in_site, site_port)
            assert not _answers(in_site, home_port + 1) and not _answers([], home_port + 1)

            common = {"address": "127.0.0.1", "community": "ip48", "profile": "if-mib", "poll_interval_s": INTERVAL,
                      "timeout_s": 1.0, "retries": 0}
            home = [Switch.objects.create(name=f"home-{i}", snmp_port=home_port, **common).id
                    for i in range(ROOT_SWITCHES)]
            remote = [Switch.objects.create(name=f"site-{i}", snmp_port=site_port, poller_group="site", **common).id
                      for i in range(SITE_SWITCHES)]
            env = {"CELLAR_DISCOVERY_INTERVAL": "3600", "CELLAR_HOST_CHECK_INTERVAL": "3600"}
            site_env = {**env, "PGHOST": pg_dir,
                        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@:{db['PORT']}/{db['NAME']}",
                        "REDIS_URL": f"unix://{sockdir / 'redis.sock'}?db=0",
                        "CELERY_BROKER_URL": f"redis+socket://{sockdir / 'redis.sock'}"}
            worker = CeleryProcess("worker", tmp_path, name="home", REDIS_URL=redis.url, **env)
            procs.append(worker)
            site_worker = CeleryProcess("worker", tmp_path, queues="polls.site", name="site", prefix=tuple(in_site),
                                        log_name="site-worker", **site_env)
            procs.append(site_worker)
            beat = CeleryProcess("beat", tmp_path, REDIS_URL=redis.url, **env)
            procs.append(beat)

            # Both groups polled, each by its own worker.
            assert wait_for(lambda: min(_ok_polls(home + remote).values()) >= 3, 90, 0.5), (
                _ok_polls(home + remote), site_worker.tail(), worker.tail())
            assert _slot_ids(tmp_path / "worker.log") <= set(home)
            assert _slot_ids(tmp_path / "site-worker.log") == set(remote)
            groups = {g.group: g for g in pollers.groups()}
            assert groups["site"].state == "ok" and groups["site"].workers[0][0].startswith("site-")
            assert groups["default"].workers[0][0].startswith("home-")

            # The site's poller dies.
            site_worker.kill(signal.SIGKILL)
            killed = time.time()
            assert wait_for(lambda: {g.group: g for g in pollers.groups()}["site"].state == "late",
                            6 * INTERVAL, 0.5)
            page = browser.new_context(java_script_enabled=False, viewport={"width": 1440, "height": 900})
            log_in(page, live_server.url, "viewer")
            tab = page.new_page()
            tab.goto(live_server.url + "/")
            row = tab.locator('#pollers tr[data-group="site"]').inner_text()
            assert "late" in row and "site-" in row, row
            assert "ok" in tab.locator('#pollers tr[data-group="default"]').inner_text()
            assert "poller group site (polls.site): late" in tab.locator("#problems").inner_text()
            SNAPSHOTS.mkdir(parents=True, exist_ok=True)
            for where in (SNAPSHOTS / "scale-dashboard-pollers.png", SHOTS / "dashboard-pollers.png"):
                tab.locator("#pollers").screenshot(path=str(where))
            tab.screenshot(path=str(SNAPSHOTS / "scale-dashboard.png"), full_page=True)
            page.close()
            assert wait_for(lambda: min(_ok_polls(home, killed).values()) >= 3, 10 * INTERVAL, 0.5)  # the rest goes on
            assert max(_ok_polls(remote, killed + 1).values()) == 0          # nobody else polls the site

            # Back: its switches resume (the dead worker's locks expire within locks.LOCK_TTL_MS).
            site_worker = CeleryProcess("worker", tmp_path, queues="polls.site", name="site", prefix=tuple(in_site),
                                        log_name="site-worker-again", **site_env)
            procs.append(site_worker)
            back = time.time()
            assert wait_for(lambda: min(_ok_polls(remote, back).values()) >= 3, 60, 0.5), site_worker.tail()
            assert {g.group: g for g in pollers.groups()}["site"].state == "ok"
            for p in procs:
                if isinstance(p, CeleryProcess):
                    p.kill(signal.SIGTERM)
    finally:
        for p in procs:
            if isinstance(p, CeleryProcess):
                p.kill()
            elif p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(10)
        redis.kill()
        locks.forget_client()
        shutil.rmtree(sockdir, ignore_errors=True)

    for sid in remote + home:
        rows = _samples(sid)
        times = [r[0] for r in rows]
        assert len(set(times)) == len(times) and all(b - a > INTERVAL / 2 for a, b in zip(times, times[1:])), (
            f"switch {sid}: two samples of one slot", times)
        gaps = 0
        for (t0, lay0, raw0, _, _), (t1, lay1, raw1, delta1, interval_ms) in zip(rows, rows[1:]):
            assert lay0 == lay1
            # Every counter's delta is the whole difference since the sample before: nothing lost,
            # whatever the time between them (the outage included).
            assert _whole(raw0, raw1, delta1), (sid, t1)
            assert interval_ms > 0
            gaps += t1 - t0 > 3 * INTERVAL
        if sid in remote:
            assert gaps >= 1, f"switch {sid}: the outage is not in its samples"
