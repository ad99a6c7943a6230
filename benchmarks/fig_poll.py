"""Figure 1: the poll path (SNMP, decode, delta, write) against snmpbulkwalk of the same columns.

Cellar: runner.poll_once(switch_id) in a loop, exactly what a worker thread runs per poll (switch
row, SNMP session, walk, readings, layout, previous row, derivation, INSERT, poll log, health).
Like a worker (collector.poller.celery_app), the process freezes its startup heap (gc.freeze)
before measuring. Its CPU is time.process_time() of this process around the loop; the
PostgreSQL backend serving this process is read from /proc/<pid>/stat and reported separately.
Reference: `snmpbulkwalk -v2c -Cr<reps> -On -m ""` of each column Cellar walks (one process per
column: net-snmp walks one subtree per invocation), CPU from each child's own rusage (os.wait4),
process start included.
Samples: values stored (Cellar: elements of the row's raw array; reference: varbinds of the
same columns printed), which are the same count (checked).
"""
from __future__ import annotations

import os
import statistics
import time

from benchmarks import netlab, procstat
from benchmarks.core import Context, Measure

REPS = int(os.environ.get("CELLAR_BENCH_REPS", "50"))
GOAL_RATE = 50_000


def _columns(profile_name: str) -> list[str]:
    from collector.core.poll import columns_to_walk
    from collector.core.profiles import get_profile

    return columns_to_walk(get_profile(profile_name), "2c")


def _switch(name: str, address: str, port: int, community: str, profile: str):
    from collector.inventory.models import Switch

    Switch.objects.filter(name=name).delete()
    return Switch.objects.create(name=name, address=address, snmp_port=port, community=community, profile=profile,
                                 poll_interval_s=15, timeout_s=10.0, retries=1)


def _backend_pid() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def _measure(ctx: Context, key: str, title: str, switch, address: str, port: int, community: str,
             columns: list[str], polls: int) -> list[Measure]:
    from collector.poller import actions, celery_app, runner

    # As a deployed switch is: discovered (the poller then knows which interfaces need their
    # 32-bit fallback and reads only those; before discovery it walks the fallback columns).
    actions.discover(switch.id)
    for _ in range(2):                       # series, layout, caches: not what a steady poll costs
        out = runner.poll_once(switch.id)
        if not out.ok:
            raise RuntimeError(f"{title}: warm-up poll failed: {out.status} {out.error}")
    celery_app.freeze_startup_heap()         # what a worker does once it has started
    cellar, ref, ratio, db_cpu, walls = [], [], [], [], []
    samples_c = samples_r = 0
    for r in range(ctx.runs):
        pid = _backend_pid()
        db0 = procstat.cpu_seconds(pid)
        if db0 is None:
            raise RuntimeError(f"{title}: no CPU time of the database backend (pid {pid}): is it local?")
        t0, w0 = time.process_time(), time.monotonic()
        n = 0
        for _ in range(polls):
            out = runner.poll_once(switch.id)
            if not out.ok or out.stored != "written" or out.result is None:
                raise RuntimeError(f"{title}: poll failed: {out.status} {out.stored} {out.error}")
            n += len(out.result.readings) + len(out.result.discontinuity)
        cpu = time.process_time() - t0
        walls.append((time.monotonic() - w0) / polls)
        db = (procstat.cpu_seconds(pid) or db0) - db0
        rn, rcpu = 0, 0.0
        for _ in range(polls):
            for col in columns:
                k, c = netlab.bulkwalk(address, port, community, col, REPS)
                rn += k
                rcpu += c
        samples_c, samples_r = n // polls, rn // polls
        cellar.append(cpu / n * 10_000)
        ref.append(rcpu / rn * 10_000)
        ratio.append(cellar[-1] / ref[-1])
        db_cpu.append(db / n * 10_000)
        ctx.log(f"  {key} run {r + 1}: Cellar {n / cpu:,.0f} samples/CPU-s, snmpbulkwalk {rn / rcpu:,.0f}, "
                f"PostgreSQL backend {db / n * 10_000:.3f} CPU-s/10k")
    med_rate = 10_000 / statistics.median(cellar)
    goal = f"≤ {10_000 / GOAL_RATE:.1f} (≥ {GOAL_RATE:,} samples/CPU-s), ratio ≤ 2"
    m = Measure(key, f"{title}: {samples_c:,} samples per poll, {polls} polls per run",
                "worker CPU s / 10k samples", cellar, ref, f"snmpbulkwalk -Cr{REPS} ({samples_r:,} varbinds)",
                ratio, "Cellar CPU / snmpbulkwalk CPU", goal,
                met=statistics.median(cellar) <= 10_000 / GOAL_RATE and statistics.median(ratio) <= 2.0,
                higher_is_better=False)
    m.notes.append(f"median {med_rate:,.0f} samples per worker CPU-second; wall time per poll "
                   f"{statistics.median(walls) * 1000:,.0f} ms (agent-bound)")
    if samples_c != samples_r:
        m.notes.append(f"samples per poll: Cellar {samples_c:,}, snmpbulkwalk {samples_r:,} (Cellar's row also holds "
                       f"the scalars that tell a counter reset, read by GET: FORE switchCounterResetTime)")
    dbm = Measure(f"{key}-db", f"{title}: PostgreSQL backend CPU of the same polls (not in the worker's)",
                  "DB CPU s / 10k samples", db_cpu, higher_is_better=False)
    return [m, dbm]


def run(ctx: Context) -> list[Measure]:
    from benchmarks import foresim

    out: list[Measure] = []
    reason = netlab.unavailable_reason()
    if reason:
        raise RuntimeError(f"figure 1a needs network namespaces and snmpd: {reason}")
    pairs = ctx.size(40, 500)
    polls = ctx.size(1, 5)
    with netlab.SnmpdLab(pairs=pairs, tag="poll") as lab:
        ctx.info["1a"] = {"interfaces": lab.interfaces, "veth_pairs": pairs}
        sw = _switch("bench-snmpd", lab.address, lab.ports[0], netlab.COMMUNITY, "if-mib")
        out += _measure(ctx, "1a", f"net-snmp snmpd in a namespace, {lab.interfaces:,} interfaces, if-mib",
                        sw, lab.address, lab.ports[0], netlab.COMMUNITY, _columns("if-mib"), polls)
    n_vcs = ctx.size(30, 2000)
    with foresim.ForeAgent(n_vcs) as agent:
        ctx.info["1b"] = {"vcs": len(agent.sw.vcs)}
        sw = _switch("bench-fore", "127.0.0.1", agent.port, agent.community, "fore-asx")
        out += _measure(ctx, "1b", f"simulated FORE ASX-200BX (snmpsim), {len(agent.sw.vcs):,} VCs",
                        sw, "127.0.0.1", agent.port, agent.community, _columns("fore-asx"), ctx.size(1, 3))
    return out
