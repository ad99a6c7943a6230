"""Figure 7: a big real agent (1,317 interfaces, the recorded H3C Comware switch) discovered and
polled once, against snmpbulkwalk of the same columns on the same agent.

The agent is the recording tests/data/recordings/real/h3c-comware-lsq1wcmd0-2509p61.snmprec.bz2
with moving counters (simnet/replay.py), served by snmpsim (simnet/serve.py): snmpsim answers far
slower than a switch, so wall times are agent-bound and the ratio to snmpbulkwalk (the same
agent, the same columns, -Cr25) is what says whether Cellar adds anything. Memory: the peak of
Python allocations (tracemalloc) over one discovery and one poll, in a run of its own.
Smoke: the 14-interface recorded firewall instead.
"""
from __future__ import annotations

import statistics
import time
import tracemalloc
from pathlib import Path

from benchmarks import netlab
from benchmarks.core import Context, Measure

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "tests" / "data" / "recordings" / "real"
BIG, SMALL = "h3c-comware-lsq1wcmd0-2509p61", "legend-holdings-firewall"
START = 1_700_000_000
GOAL_DISCOVERY_S, GOAL_POLL_RATIO, GOAL_MEMORY_MB = 60.0, 1.5, 200.0


def _serve(ctx: Context, name: str):
    from simnet.replay import moving_copy
    from simnet.serve import RecordingServer

    base = ROOT / "state" / "cache" / "bench-bigagent"
    data = base / "data"
    data.mkdir(parents=True, exist_ok=True)
    for old in data.iterdir():
        if not old.name.startswith(name):
            old.unlink()
    moving_copy(RECORDINGS / f"{name}.snmprec.bz2", data, START)
    return RecordingServer(data, base / "cache", log_path=ctx.work / "bigagent-snmpsim.log")


def _switch(name: str, port: int, community: str):
    from collector.inventory.models import Switch

    Switch.objects.filter(name=name).delete()
    return Switch.objects.create(name=name, address="127.0.0.1", snmp_port=port, community=community,
                                 profile="if-mib", poll_interval_s=60, timeout_s=10.0, retries=1)


def _discover_and_poll(switch_id: int) -> tuple[float, float, float, float, int, int]:
    """(discovery wall s, discovery CPU s, poll wall s, poll CPU s, ports, samples)."""
    from collector.inventory.models import Port
    from collector.poller import actions, runner

    w, c = time.monotonic(), time.process_time()
    actions.discover(switch_id)
    dw, dc = time.monotonic() - w, time.process_time() - c
    w, c = time.monotonic(), time.process_time()
    out = runner.poll_once(switch_id)
    pw, pc = time.monotonic() - w, time.process_time() - c
    if not out.ok or out.result is None:
        raise RuntimeError(f"poll of the big agent failed: {out.status} {out.error}")
    return dw, dc, pw, pc, Port.objects.filter(switch_id=switch_id).count(), len(out.result.readings)


def run(ctx: Context) -> list[Measure]:
    from collector.core.poll import columns_to_walk
    from collector.core.profiles import get_profile, object_by_name

    name = SMALL if ctx.smoke else BIG
    disc_w, disc_c, poll_w, poll_c, ref_w, ratio, peaks = [], [], [], [], [], [], []
    ports = samples = 0
    with _serve(ctx, name) as server:
        columns = columns_to_walk(get_profile("if-mib"), "2c")
        discovery_columns = [object_by_name(c).oid for c in get_profile("if-mib").discovery_columns]
        for r in range(ctx.runs):
            sw = _switch(f"bench-{name}"[:100], server.port, name)
            dw, dc, pw, pc, ports, samples = _discover_and_poll(sw.id)
            w = time.monotonic()
            varbinds = sum(netlab.bulkwalk("127.0.0.1", server.port, name, col, 25)[0] for col in columns)
            rw = time.monotonic() - w
            disc_w.append(dw)
            disc_c.append(dc)
            poll_w.append(pw)
            poll_c.append(pc)
            ref_w.append(rw)
            ratio.append(pw / rw)
            # Memory in a discovery and a poll of their own (tracemalloc slows what it watches).
            sw = _switch(f"bench-{name}-mem"[:100], server.port, name)
            tracemalloc.start()
            try:
                _discover_and_poll(sw.id)
                peaks.append(tracemalloc.get_traced_memory()[1] / 1e6)
            finally:
                tracemalloc.stop()
            ctx.log(f"  7 run {r + 1}: {ports:,} ports discovered in {dw:.2f} s ({dc:.2f} CPU-s), one poll of "
                    f"{samples:,} counters {pw:.2f} s ({pc:.2f} CPU-s); snmpbulkwalk of the same columns {rw:.2f} s "
                    f"({varbinds:,} varbinds); peak Python memory {peaks[-1]:.1f} MB")
    ctx.info["7"] = {"agent": name, "ports": ports, "counters": samples, "discovery_columns": len(discovery_columns)}
    poll = Measure("7a", f"recorded {name}: {ports:,} interfaces, one poll of {samples:,} counters (if-mib)",
                   "poll wall s", poll_w, ref_w, f"snmpbulkwalk -Cr25 of the same {len(columns)} columns",
                   ratio, "Cellar poll wall / snmpbulkwalk wall",
                   f"ratio ≤ {GOAL_POLL_RATIO} (the agent is the bottleneck, not Cellar)",
                   met=statistics.median(ratio) <= GOAL_POLL_RATIO, higher_is_better=False)
    poll.notes.append(f"poll CPU {statistics.median(poll_c):.2f} s (median); snmpsim serves the agent")
    disc = Measure("7b", f"recorded {name}: discovery of {ports:,} interfaces ({len(discovery_columns)} columns, "
                         "bulk writes)", "discovery wall s", disc_w, goal=f"≤ {GOAL_DISCOVERY_S:.0f} s",
                   met=statistics.median(disc_w) <= GOAL_DISCOVERY_S, higher_is_better=False)
    disc.notes.append(f"discovery CPU {statistics.median(disc_c):.2f} s (median)")
    mem = Measure("7c", f"recorded {name}: peak Python memory of one discovery and one poll (tracemalloc)",
                  "MB", peaks, goal=f"≤ {GOAL_MEMORY_MB:.0f} MB", met=statistics.median(peaks) <= GOAL_MEMORY_MB,
                  higher_is_better=False)
    return [poll, disc, mem]
