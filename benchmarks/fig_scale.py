"""Figure 6: N ports (default 100,000) polled every 15 s on this machine by the real worker and beat.

`python -m benchmarks.run --only scale --ports N` (or CELLAR_BENCH_SCALE_PORTS); --smoke: ~700 ports at 5 s.
Agents: one simnet.swarm process (simnet/swarm.py) on 127.0.0.1 playing every switch: one ATM
switch (profile atm2: 16 ports, 1,000 VCs, 4 VPs a port) per 2,000 ports, the rest IP switches
of 48 ports (profile if-mib): at 100,000 ports 2,067 IP switches and 50 ATM switches with
50,000 VCs, ~1.05 million counters every 15 s. Every switch is discovered first (its ports and
VCs known, as in a real deployment; without it every poll also walks the 32-bit columns).
Processes: a private redis-server, CELLAR_BENCH_SCALE_WORKERS (default 1) pollers `celery worker
--pool threads --concurrency 3 -Q polls`, one `celery worker -Q default --concurrency 2` (rollup,
housekeeping) and `celery beat` (collector/poller/schedule.py), as docker-compose.yml runs them;
discovery every hour, the rollup every 60 s as by default.
Window: after a warm-up (every switch polled twice), the measurement time (10 min; --smoke a few
seconds) is cut into `--runs` equal windows; each figure is min/median/max over the windows.
CPU: /proc/<pid>/stat of the workers, beat, every PostgreSQL backend of the benchmark database
(from /proc at 20 Hz), the swarm agent and redis; in % of one core (the machine: 200 %).
On time: each switch's slots (epoch + phase + k * period, schedule.phase_offset) in the window;
a slot counts as on time when a poll of the switch started (poll log: time - duration/2) after
it and before the next, and succeeded. Lateness = start - slot.
Rollup: the worker logs each rollup step (tier, minutes of data, seconds); tier lag = database
now - the tier's watermark, sampled every 5 s. Storage: hypertable_detailed_size of every table
over its rows (raw: over the readings stored), and a day at this size from them.
"""
from __future__ import annotations

import logging
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks import db, procstat
from benchmarks import scale_measure as sm
from benchmarks.core import Context, Measure

ROOT = Path(__file__).resolve().parent.parent
VCS_PER_ATM = 1000
PORTS_PER_ATM_SWITCH = 16
ATM_EVERY_PORTS = 2000        # one ATM switch (1,000 VCs) per 2,000 ports: 50,000 VCs at 100,000 ports


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    def __init__(self, name: str, cmd: list[str], env: dict, log: Path):
        self.name = name
        self.log_path = log
        self.log = open(log, "w")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
            except ProcessLookupError:
                pass
        self.log.close()


def _redis(ctx: Context) -> tuple[Proc, str]:
    port = free_port()
    d = ctx.work / "redis"
    d.mkdir(exist_ok=True)
    p = Proc("redis", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                       "--dir", str(d)], dict(os.environ), ctx.work / "redis.log")
    import redis

    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return p, f"redis://127.0.0.1:{port}/0"
        except redis.ConnectionError:
            time.sleep(0.05)
    p.stop()
    raise RuntimeError("redis-server did not start")


def db_pids() -> tuple[list[int], list[int]]:
    """(backends of the benchmark database but this one, the cluster's shared background processes)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pid, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND "
                    "(datname = current_database() OR backend_type IN ('checkpointer', 'background writer', "
                    "'walwriter', 'autovacuum launcher', 'autovacuum worker'))")
        rows = cur.fetchall()
    return [p for p, d in rows if d], [p for p, d in rows if not d]


def own_backend() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def _sessions() -> int:
    """Connections ever made to the benchmark database (pg_stat_database.sessions, PostgreSQL 14+)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cur.fetchone()[0]


def polls_so_far() -> dict[int, int]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT switch_id, count(*) FROM traffic_poll_log GROUP BY 1")
        return dict(cur.fetchall())


def start_swarm_agent(ctx: Context) -> tuple[Proc, int]:
    port = free_port()
    p = Proc("agent", [sys.executable, "-m", "simnet.swarm", "--bind", "127.0.0.1", "--port", str(port)],
             dict(os.environ), ctx.work / "swarm.log")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "listening" not in p.log_path.read_text():
        if not p.alive():
            raise RuntimeError(f"swarm agent exited: {p.log_path.read_text()[-2000:]}")
        time.sleep(0.1)
    return p, port


def _make_switches(ctx: Context, ports: int, agent_port: int, interval: int) -> tuple[int, int, int]:
    """(IP switches, ATM switches, VCs) made for about `ports` ports."""
    from collector.inventory.models import Switch

    n_atm = max(1, round(ports / ATM_EVERY_PORTS))
    vcs = ctx.size(100, VCS_PER_ATM)
    n_ip = max(1, math.ceil((ports - n_atm * PORTS_PER_ATM_SWITCH) / 48))
    common = {"address": "127.0.0.1", "snmp_port": agent_port, "poll_interval_s": interval, "timeout_s": 2.0,
              "retries": 1}
    Switch.objects.bulk_create(
        [Switch(name=f"bench-ip-{i:04d}", community="ip48", profile="if-mib", **common) for i in range(n_ip)]
        + [Switch(name=f"bench-atm-{i:03d}", community=f"atm{vcs}", profile="atm2", **common) for i in range(n_atm)],
        batch_size=1000)
    return n_ip, n_atm, n_atm * vcs


def discover_all() -> float:
    """Discover every switch (4 threads), as beat's discovery entries would within an hour."""
    from django.db import connection

    from collector.archive.series_links import link_series
    from collector.inventory import discovery
    from collector.inventory.models import Switch

    def one(sid: int) -> bool:
        try:
            switch = Switch.objects.get(pk=sid)
            report = discovery.discover(switch)
            link_series(switch)
            return report.complete
        finally:
            connection.close()

    t0 = time.monotonic()
    quiet = logging.getLogger("collector.inventory.discovery")
    level = quiet.level
    quiet.setLevel(logging.WARNING)              # a line per switch: thousands
    try:
        with ThreadPoolExecutor(4) as pool:
            done = list(pool.map(one, Switch.objects.values_list("id", flat=True)))
    finally:
        quiet.setLevel(level)
    if not all(done):
        raise RuntimeError(f"discovery incomplete for {done.count(False)} switches")
    return time.monotonic() - t0


def start_services(ctx: Context, n_workers: int) -> list[Proc]:
    procs: list[Proc] = []
    redis_proc, redis_url = _redis(ctx)
    procs.append(redis_proc)
    env = {**os.environ, "DATABASE_URL": ctx.db_url, "REDIS_URL": redis_url, "TZ": "UTC",
           "CELLAR_DISCOVERY_INTERVAL": "3600", "CELLAR_SPOOL_DIR": str(ctx.work / "spool"),
           "CELLAR_BEAT_HEARTBEAT": str(ctx.work / "beat-heartbeat"), "PYTHONUNBUFFERED": "1",
           "DATABASE_STATEMENT_TIMEOUT_MS": "60000"}
    celery = [sys.executable, "-m", "celery", "-A", "collector.poller.celery_app"]
    # 3 threads: a slot task already polls its ~140 switches concurrently in one event loop; more
    # threads only fight over the GIL (100,000 ports: 55 % on time with 8, 82 % with 3).
    concurrency = os.environ.get("CELLAR_WORKER_CONCURRENCY", "3")
    # As docker-compose.yml runs them: pollers on the polls queue, one worker for the rest. Sharing
    # one worker, the housekeeping (rollup every minute) waited behind the slots and expired.
    queues = [("worker0", "default", "2")] + [(f"poller{w}", "polls", concurrency) for w in range(n_workers)]
    for name, queue, threads in queues:
        procs.append(Proc(name, celery + ["worker", "-l", "INFO", "--pool", "threads", "--concurrency", threads,
                                          "-Q", queue, "--without-mingle", "--without-gossip",
                                          "-n", f"bench-{name}-{os.getpid()}@%h"], env, ctx.work / f"{name}.log"))
    procs.append(Proc("beat", celery + ["beat", "-l", "INFO", "-s", str(ctx.work / "celerybeat-schedule")],
                      env, ctx.work / "beat.log"))
    return procs


def check_alive(procs: list[Proc]) -> None:
    for p in procs:
        if not p.alive():
            raise RuntimeError(f"{p.name} exited: {p.log_path.read_text()[-2000:]}")


def _measure(ctx: Context, procs: list[Proc], window: float) -> tuple[list, list]:
    """Per window (lo, hi, CPU % per process kind); tier lags sampled every 5 s."""
    per_window = window / ctx.runs
    results, lags = [], []
    own = own_backend()
    for _ in range(ctx.runs):
        bg_s = procstat.Sampler()
        bg_s.poll(db_pids()[1])
        db_s = procstat.TitleSampler(f" {db.dbname_of(ctx.db_url)} ", exclude=(own,),
                                      parent=procstat.parent_of(own)).start()
        sessions0 = _sessions()
        cpu0 = {p.name: procstat.cpu_seconds(p.pid) or 0.0 for p in procs}
        lo, t0, last_lag = time.time(), time.monotonic(), 0.0
        while time.monotonic() - t0 < per_window:
            time.sleep(1.0)
            bg_s.poll(db_pids()[1])
            check_alive(procs)
            if time.monotonic() - last_lag >= 5:
                last_lag = time.monotonic()
                lags.append((time.time(), sm.tier_lags()))
        db_cpu = db_s.stop()
        wall = time.monotonic() - t0
        used = {p.name: ((procstat.cpu_seconds(p.pid) or 0.0) - cpu0[p.name]) / wall * 100 for p in procs}
        cpu = {"worker": sum(v for k, v in used.items() if k.startswith(("worker", "poller"))),
               "poller": sum(v for k, v in used.items() if k.startswith("poller")), "beat": used["beat"],
               "db": db_cpu / wall * 100, "redis": used["redis"], "agent": used["agent"],
               "db_background": bg_s.total() / wall * 100, "connections_per_s": (_sessions() - sessions0) / wall}
        results.append((lo, time.time(), cpu))
        ctx.log("  6 window: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()) + f"; load {procstat.loadavg()}")
    return results, lags


def run(ctx: Context) -> list[Measure]:
    from collector.inventory.models import Switch
    from collector.poller import schedule

    db.empty_traffic(ctx)          # the switches go too: nothing cached survives
    Switch.objects.all().delete()
    ports = int(os.environ.get("CELLAR_BENCH_SCALE_PORTS") or ctx.size(700, 100_000))
    interval = ctx.size(5, 15)
    window = float(os.environ.get("CELLAR_BENCH_SCALE_WINDOW") or ctx.size(12, 600))
    n_workers = int(os.environ.get("CELLAR_BENCH_SCALE_WORKERS") or 1)
    procs: list[Proc] = []
    try:
        agent, agent_port = start_swarm_agent(ctx)
        procs.append(agent)
        n_ip, n_atm, vcs = _make_switches(ctx, ports, agent_port, interval)
        n_switches = n_ip + n_atm
        real_ports = n_ip * 48 + n_atm * PORTS_PER_ATM_SWITCH
        ctx.log(f"  6 {n_ip} IP + {n_atm} ATM switches ({real_ports:,} ports, {vcs:,} VCs): discovering")
        discovered_s = discover_all()
        entries = len(schedule.switch_entries()) + len(schedule.static_entries())
        ctx.info["6"] = {"ip_switches": n_ip, "atm_switches": n_atm, "ports": real_ports, "vcs": vcs,
                         "interval_s": interval, "window_s": window, "workers": n_workers,
                         "discovery_s": round(discovered_s), "beat_entries": entries}
        ctx.log(f"  6 discovered in {discovered_s:.0f} s; {entries} beat entries")
        procs += start_services(ctx, n_workers)
        deadline = time.monotonic() + ctx.size(40, 300)
        while time.monotonic() < deadline:       # warm-up: every switch polled twice (caches made)
            check_alive(procs)
            counts = polls_so_far()
            if len(counts) == n_switches and min(counts.values()) >= 2:
                break
            time.sleep(1.0)
        else:
            ctx.log(f"  6 warm-up incomplete: {len(polls_so_far())} of {n_switches} switches polled")
        ctx.log(f"  6 warm-up done; measuring {window} s in {ctx.runs} windows")
        results, lags = _measure(ctx, procs, window)
        time.sleep(min(interval + 3, 10))            # polls due in the last window finish
        sizes = sm.storage(interval)
        info_series = sm.series_count()
        ctx.info["6"]["series"], ctx.info["6"]["counter_series"] = info_series
    finally:
        for p in reversed(procs):
            p.stop()
        logs = ROOT / "state" / "bench" / "scale-logs"          # kept for a look after the run
        logs.mkdir(parents=True, exist_ok=True)
        for p in procs:
            shutil.copy(p.log_path, logs / p.log_path.name)
    periods = dict(Switch.objects.values_list("id", "poll_interval_s"))
    starts = sm.polls(results[0][0], results[-1][1])
    steps: defaultdict[str, list] = defaultdict(list)
    for tier, got in sm.rollup_steps(ctx.work / "worker0.log", results[0][0], results[-1][1]).items():
        steps[tier] += got
    return _figures(ctx, results, lags, starts, periods, steps, sizes, info_series, n_switches, interval)


def _figures(ctx: Context, results: list, lags: list, starts: dict, periods: dict, steps: dict, sizes: dict,
             series: tuple[int, int], n_switches: int, interval: int) -> list[Measure]:
    from collector.poller.schedule import phase_offset

    info = ctx.info["6"]
    shares, late_all = [], []
    statuses: dict[str, int] = defaultdict(int)
    for lo, hi, _cpu in results:
        total, ok, late, st = sm.on_time(periods, phase_offset, starts, lo, hi)
        shares.append(100.0 * ok / total if total else 0.0)
        late_all += late
        for k, v in st.items():
            statuses[k] += v
        ctx.log(f"  6 window: {ok}/{total} polls on time")
    cpu = {k: [c[k] for _, _, c in results] for k in results[0][2]}
    own = [c["worker"] + c["beat"] + c["db"] + c["redis"] for _, _, c in results]
    title = (f"{info['ports']:,} ports ({info['ip_switches']:,} IP switches x 48, {info['atm_switches']} ATM "
             f"switches with {info['vcs']:,} VCs; {series[1]:,} counters) every {interval} s")
    one_m = [secs / max(1, minutes) for _, minutes, secs in steps.get("1m", [])]
    bytes_per = sizes["raw"]["bytes"] / max(1.0, sizes["raw"]["readings"])
    per_day = sm.daily_bytes(sizes, series, n_switches, interval)
    out = [
        Measure("6a", f"Scale, {title}: worker CPU ({info['workers']} Celery worker(s), threads)", "% of one core",
                cpu["worker"], higher_is_better=False),
        Measure("6b", f"Scale: beat CPU ({info['beat_entries']} schedule entries)", "% of one core", cpu["beat"],
                higher_is_better=False),
        Measure("6c", "Scale: PostgreSQL CPU (backends of the benchmark database)", "% of one core", cpu["db"],
                higher_is_better=False),
        Measure("6d", "Scale: worker + beat + PostgreSQL + redis CPU (all of Cellar's side)", "% of one core", own,
                goal="≤ 100 % (one of 2 cores)", met=statistics.median(own) <= 100.0, higher_is_better=False),
        Measure("6e", "Scale: polls on time (started before the switch's next slot, and succeeded)", "%", shares,
                goal="≥ 99.9 %", met=statistics.median(shares) >= 99.9),
        Measure("6f", "Scale: poll lateness p99 (start - the switch's own slot)", "ms",
                [sm.pct(late_all, 0.99) * 1000], higher_is_better=False),
        Measure("6g", "Scale: 1-minute rollup of one minute's data (each run's seconds / its minutes)", "s",
                one_m or [math.nan], goal="< 6 s (10 % of the minute)",
                met=statistics.median(one_m) < 6.0 if one_m else None, higher_is_better=False),
        Measure("6h", "Scale: bytes per raw sample (indexes included) and a day of raw samples at this size",
                "bytes", [bytes_per], higher_is_better=False),
    ]
    out[0].notes.append(f"of which the poller(s) on the polls queue {statistics.median(cpu['poller']):.1f} %, "
                        "the rest the worker of the default queue (rollup, housekeeping); "
                        f"swarm agent {statistics.median(cpu['agent']):.1f} % (the simulated switches: not "
                        f"Cellar's); redis {statistics.median(cpu['redis']):.1f} %; PostgreSQL's shared "
                        f"background processes {statistics.median(cpu['db_background']):.1f} %; new database "
                        f"connections per second {statistics.median(cpu['connections_per_s']):.2f}; discovery of "
                        f"every switch before the run {info['discovery_s']} s")
    out[4].notes.append(f"lateness: median {sm.pct(late_all, 0.5) * 1000:.0f} ms, p95 "
                        f"{sm.pct(late_all, 0.95) * 1000:.0f} ms, p99 {sm.pct(late_all, 0.99) * 1000:.0f} ms, "
                        f"max {max(late_all or [0]) * 1000:.0f} ms; poll outcomes {dict(statuses)}")
    t0 = lags[0][0] if lags else 0.0
    for tier in ("1m", "15m", "1h", "1d"):
        seen = [(t - t0, lag[tier]) for t, lag in lags if lag.get(tier) is not None]
        if seen:
            trace = ", ".join(f"{t:.0f}s:{v:.0f}" for t, v in seen[::max(1, len(seen) // 8)])
            out[6].notes.append(f"tier {tier} lag (now - watermark, s) over the run: max {max(v for _, v in seen):.0f}"
                                f"; {trace}")
    for tier, got in sorted(steps.items()):
        out[6].notes.append(f"rollup steps {tier}: {len(got)}, {sum(m for _, m, _ in got)} min of data in "
                            f"{sum(s for _, _, s in got):.1f} s")
    out[7].notes.append("a day at this size: " + ", ".join(f"{k} {v / 1e9:.1f} GB" for k, v in per_day.items())
                        + "; measured: " + ", ".join(f"{k} {v['bytes'] / max(1.0, v['rows']):.0f} B/row"
                                                     for k, v in sizes.items() if v["rows"]))
    ctx.info["6"]["bytes_per_day"] = {k: round(v) for k, v in per_day.items()}
    return out
