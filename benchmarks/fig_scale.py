"""Figure 6: 10,000 ports polled every 15 s on this machine by the real worker and beat.

Agents: net-snmp snmpd processes in one network namespace holding 48 interfaces (23 veth pairs,
lo, the uplink), each switch row pointing at one of them (UDP 161, 162, ...): every poll is a
real walk of the 9 if-mib columns of 48 interfaces (384 counters + 48 discontinuity times).
Switches: ceil(10,000 / 48) = 209 rows, profile if-mib, 15 s (--smoke: a handful at 2 s).
Processes: a private redis-server, `celery -A collector.poller.celery_app worker --pool threads
--concurrency 16 -Q polls,default` and `celery -A collector.poller.celery_app beat` (the scheduler of
collector/schedule.py), as `make run` starts them, against the benchmark database; discovery
every hour (CELLAR_DISCOVERY_INTERVAL, so that no discovery burst falls in the window), the
rollup task every 60 s as configured by default.
Window: after a warm-up (every switch polled twice), the measurement time (10 min; --smoke a few
seconds) is cut into `--runs` equal windows; each figure is min/median/max over the windows.
CPU: /proc/<pid>/stat of the worker, of beat, of every PostgreSQL backend of the benchmark
database (the processes whose title names it, from /proc at 20 Hz), of the snmpd agents and redis; in
% of one core.
On time: beat logs every task it sends ("Sending due task poll-switch-N"); a send counts as on
time when the poll log has a poll of that switch that started (time - duration/2) after the
send and before the switch's next send. Lateness = start - send.
"""
from __future__ import annotations

import math
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import db, netlab, procstat
from benchmarks.core import Context, Measure

ROOT = Path(__file__).resolve().parent.parent
PORTS_PER_SWITCH = 48
SEND_RE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/\w+\] Scheduler: Sending due task "
                     r"poll-switch-(\d+) ")


def _free_port() -> int:
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
    port = _free_port()
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


def _db_pids() -> tuple[list[int], list[int]]:
    """(backends of the benchmark database but this one, the cluster's shared background processes)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pid, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND "
                    "(datname = current_database() OR backend_type IN ('checkpointer', 'background writer', "
                    "'walwriter', 'autovacuum launcher', 'autovacuum worker'))")
        rows = cur.fetchall()
    return [p for p, d in rows if d], [p for p, d in rows if not d]


def _own_backend() -> int:
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


def _polls_so_far() -> dict[int, int]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT switch_id, count(*) FROM traffic_poll_log GROUP BY 1")
        return dict(cur.fetchall())


def _sends(log: Path) -> dict[int, list[float]]:
    out: dict[int, list[float]] = defaultdict(list)
    for line in log.read_text(errors="replace").splitlines():
        m = SEND_RE.match(line)
        if m:
            t = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC).timestamp()
            out[int(m.group(2))].append(t)
    return out


def _polls(lo: float, hi: float) -> dict[int, list[tuple[float, str, int]]]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT switch_id, extract(epoch FROM time)::float8 - duration_ms / 2000.0, status, samples "
                    "FROM traffic_poll_log WHERE time >= to_timestamp(%s) AND time < to_timestamp(%s) "
                    "ORDER BY switch_id, time", [lo - 60, hi + 60])
        out: dict[int, list] = defaultdict(list)
        for sid, start, status, samples in cur.fetchall():
            out[sid].append((start, status, samples))
    return out


def on_time(sends: dict[int, list[float]], polls: dict[int, list], lo: float, hi: float
            ) -> tuple[int, int, list[float], dict[str, int]]:
    """(sends in [lo, hi), those served on time, lateness of the matched polls, poll statuses)."""
    total = ok = 0
    late: list[float] = []
    statuses: dict[str, int] = defaultdict(int)
    for sid, times in sends.items():
        starts = polls.get(sid, [])
        j = 0
        for k, s in enumerate(times):
            if not lo <= s < hi:
                continue
            nxt = times[k + 1] if k + 1 < len(times) else s + 3600
            while j < len(starts) and starts[j][0] < s - 0.05:    # clock rounding of the log (ms)
                j += 1
            total += 1
            if j < len(starts) and starts[j][0] < nxt:
                statuses[starts[j][1]] += 1
                if starts[j][1] in ("ok", "partial"):
                    ok += 1
                late.append(max(0.0, starts[j][0] - s))
                j += 1
    return total, ok, late, dict(statuses)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def run(ctx: Context) -> list[Measure]:
    from collector.inventory.models import Switch

    reason = netlab.unavailable_reason()
    if reason:
        raise RuntimeError(f"figure 6 needs network namespaces and snmpd: {reason}")
    db.empty_traffic(ctx)          # the switches go too: nothing cached survives
    Switch.objects.all().delete()
    target_ports = int(os.environ.get("CELLAR_BENCH_SCALE_PORTS") or ctx.size(6 * PORTS_PER_SWITCH, 10_000))
    n_switches = math.ceil(target_ports / PORTS_PER_SWITCH)
    interval = ctx.size(2, 15)
    window = float(os.environ.get("CELLAR_BENCH_SCALE_WINDOW") or ctx.size(9, 600))
    n_agents = ctx.size(2, 8)
    concurrency = int(os.environ.get("CELLAR_WORKER_CONCURRENCY", "16"))
    procs: list[Proc] = []
    with netlab.SnmpdLab(pairs=23, agents=n_agents, tag="scale") as lab:
        for i in range(n_switches):
            Switch.objects.create(name=f"bench-scale-{i:03d}", address=lab.address, snmp_port=lab.ports[i % n_agents],
                                  community=netlab.COMMUNITY, profile="if-mib", poll_interval_s=interval,
                                  timeout_s=2.0, retries=1)
        ctx.info["6"] = {"switches": n_switches, "ports": n_switches * lab.interfaces, "interval_s": interval,
                         "window_s": window, "agents": n_agents, "concurrency": concurrency,
                         "interfaces_per_agent": lab.interfaces}
        try:
            redis_proc, redis_url = _redis(ctx)
            procs.append(redis_proc)
            env = {**os.environ, "DATABASE_URL": ctx.db_url, "REDIS_URL": redis_url, "TZ": "UTC",
                   "CELLAR_DISCOVERY_INTERVAL": "3600", "CELLAR_SPOOL_DIR": str(ctx.work / "spool"),
                   "CELLAR_BEAT_HEARTBEAT": str(ctx.work / "beat-heartbeat"), "PYTHONUNBUFFERED": "1",
                   "DATABASE_STATEMENT_TIMEOUT_MS": "60000"}
            celery = [sys.executable, "-m", "celery", "-A", "collector.poller.celery_app"]
            reuse = os.environ.get("CELLAR_BENCH_DB_REUSE_MAX")
            # Experiment switch: another CELERY_DB_REUSE_MAX than collector/celery_app's 1000
            # (0: Celery's Django fixup closes every connection before and after each task).
            worker_cmd = celery if not reuse else [
                sys.executable, "-c", "import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
                "'webapp.settings'); from django.conf import settings; "
                f"settings.CELERY_DB_REUSE_MAX = {int(reuse)}; from celery.__main__ import main; "
                "sys.argv = ['celery', '-A', 'collector.poller.celery_app'] + sys.argv[1:]; main()"]
            if reuse:
                ctx.info.setdefault("6", {})["CELERY_DB_REUSE_MAX"] = int(reuse)
            worker = Proc("worker", worker_cmd + ["worker", "-l", "INFO", "--pool", "threads", "--concurrency",
                                              str(concurrency), "-Q", "polls,default", "--without-mingle",
                                              "--without-gossip", "-n", f"bench-{os.getpid()}@%h"],
                          env, ctx.work / "worker.log")
            procs.append(worker)
            beat = Proc("beat", celery + ["beat", "-l", "INFO", "-s", str(ctx.work / "celerybeat-schedule")],
                        env, ctx.work / "beat.log")
            procs.append(beat)
            # warm-up: every switch polled twice (series, layouts, caches made) or a time limit
            deadline = time.monotonic() + ctx.size(20, 240)
            while time.monotonic() < deadline:
                for p in procs:
                    if not p.alive():
                        raise RuntimeError(f"{p.name} exited: {p.log_path.read_text()[-2000:]}")
                counts = _polls_so_far()
                if len(counts) == n_switches and min(counts.values()) >= 2:
                    break
                time.sleep(0.5)
            else:
                ctx.log(f"  6 warm-up incomplete: {len(_polls_so_far())} of {n_switches} switches polled")
            ctx.log(f"  6 warm-up done; measuring {window} s in {ctx.runs} windows")
            agents = lab.agent_pids()
            per_window = window / ctx.runs
            results = []
            own = _own_backend()
            for r in range(ctx.runs):
                bg_s = procstat.Sampler()
                _, bg = _db_pids()
                bg_s.poll(bg)
                db_s = procstat.TitleSampler(f" {db.dbname_of(ctx.db_url)} ", exclude=(own,)).start()
                sessions0 = _sessions()
                start_cpu = {p.name: procstat.cpu_seconds(p.pid) or 0.0 for p in procs}
                agent0 = sum(procstat.cpu_seconds(a) or 0.0 for a in agents)
                lo = time.time()
                t0 = time.monotonic()
                while time.monotonic() - t0 < per_window:
                    time.sleep(1.0)
                    _, bg = _db_pids()
                    bg_s.poll(bg)
                    for p in procs:
                        if not p.alive():
                            raise RuntimeError(f"{p.name} exited: {p.log_path.read_text()[-2000:]}")
                db_cpu = db_s.stop()
                wall = time.monotonic() - t0
                hi = time.time()
                cpu = {p.name: ((procstat.cpu_seconds(p.pid) or 0.0) - start_cpu[p.name]) / wall * 100 for p in procs}
                cpu["db"] = db_cpu / wall * 100
                cpu["db_background"] = bg_s.total() / wall * 100
                cpu["agents"] = (sum(procstat.cpu_seconds(a) or 0.0 for a in agents) - agent0) / wall * 100
                cpu["connections_per_s"] = (_sessions() - sessions0) / wall
                results.append((lo, hi, cpu))
                ctx.log(f"  6 window {r + 1}: " + ", ".join(f"{k} {v:.1f}%" for k, v in cpu.items())
                        + f" ({db_s.seen} database backends seen, {len(db_s.ended)} ended)")
            time.sleep(min(interval + 3, 10))            # polls sent in the last window finish
            sends = _sends(beat.log_path)
            polls = _polls(results[0][0], results[-1][1])
        finally:
            for p in reversed(procs):
                p.stop()
    shares, late_all, samples_per_s = [], [], []
    statuses: dict[str, int] = defaultdict(int)
    for lo, hi, _cpu in results:
        total, ok, late, st = on_time(sends, polls, lo, hi)
        shares.append(100.0 * ok / total if total else 0.0)
        late_all += late
        for k, v in st.items():
            statuses[k] += v
        n = sum(s for sid in polls for (t, status, s) in polls[sid] if lo <= t < hi)
        samples_per_s.append(n / (hi - lo))
        ctx.log(f"  6 window: {ok}/{total} polls on time, {n / (hi - lo):,.0f} samples/s")
    cpu_of = {k: [c[k] for _, _, c in results] for k in results[0][2]}
    ports = ctx.info["6"]["ports"]
    title = f"{n_switches} switches × {PORTS_PER_SWITCH} ports = {ports:,} ports every {interval} s"
    out = [
        Measure("6a", f"Scale, {title}: worker CPU (Celery, {concurrency} threads)", "% of one core",
                cpu_of["worker"], higher_is_better=False),
        Measure("6b", f"Scale: beat CPU ({2 * n_switches + 3} schedule entries)", "% of one core",
                cpu_of["beat"], higher_is_better=False),
        Measure("6c", "Scale: PostgreSQL CPU (backends of the benchmark database)", "% of one core",
                cpu_of["db"], higher_is_better=False),
        Measure("6d", "Scale: polls on time (started before the switch's next scheduled send)", "%", shares,
                goal="≥ 99 %", met=statistics.median(shares) >= 99.0),
    ]
    out[0].notes.append(f"stored samples/s (median of windows) {statistics.median(samples_per_s):,.0f}; "
                        f"whole machine = 200 % (2 cores)")
    out[2].notes.append(f"new database connections per second (median) "
                        f"{statistics.median(cpu_of['connections_per_s']):.1f} (Celery's Django fixup closes "
                        "every connection before and after each task unless CELERY_DB_REUSE_MAX is set); "
                        "backends sampled from /proc at 20 Hz: the CPU of a backend after its last sample is "
                        "not counted, so this is a lower bound")
    out[2].notes.append(f"cluster background processes (checkpointer, WAL writer, autovacuum: shared with "
                        f"other databases of the cluster) {statistics.median(cpu_of['db_background']):.1f} %; "
                        f"snmpd agents {statistics.median(cpu_of['agents']):.1f} %; redis "
                        f"{statistics.median(cpu_of['redis']):.1f} %")
    out[3].notes.append(f"lateness of polls (start - send): median {_pct(late_all, 0.5) * 1000:.0f} ms, "
                        f"p95 {_pct(late_all, 0.95) * 1000:.0f} ms, p99 {_pct(late_all, 0.99) * 1000:.0f} ms, "
                        f"max {max(late_all or [0]) * 1000:.0f} ms; poll outcomes {dict(statuses)}")
    return out
