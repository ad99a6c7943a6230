"""Figure 16: Cellar beside snmp_exporter + Prometheus, polling the same swarm at the same time.

`python -m benchmarks.run --only sidebyside` (CELLAR_BENCH_SBS_PORTS, CELLAR_BENCH_SBS_WINDOW):
2,016 ports (42 IP switches of 48 ports, simnet.swarm on 127.0.0.1) every 15 s for 10 minutes;
--smoke 480 ports every 5 s for 30 s. Both pipelines run at once, on the same swarm: they see the
same machine, the same load and the same clock, and neither measures on a machine the other has
warmed or filled; each one's CPU is its own processes'. The cost: they share the 2 cores, so each
is slowed by the other as a busy machine would slow it.
Cellar: as the service runs, a private redis, one poller `celery worker -Q polls`, one worker for
the rest (rollup, housekeeping) and `celery beat` (benchmarks/fig_scale.py starts them), every
switch discovered first. The other: Debian's /usr/bin/prometheus-snmp-exporter (module walking
the same columns, benchmarks/promstack.py) scraped by Debian's /usr/bin/prometheus every 15 s,
block durations 5 minutes (--smoke 1 minute; min = max, so the head is cut within the run).
Sample: one counter value at one poll (8 counters a port; uptime and discontinuity times are
stored by both but not counted). Cellar: the readings of traffic_sample rows polled in a window;
Prometheus: count_over_time of the 8 counter metrics over the window.
a: CPU seconds per 1,000 samples, the window cut into --runs parts. Cellar: worker, poller, beat,
redis, the backends of the benchmark database (scanned at 20 Hz, the harness's own excluded) and
the cluster's postmaster and shared processes (checkpointer, WAL writer, autovacuum); Prometheus:
exporter and prometheus (/proc utime + stime of every thread).
b: bytes on disk per sample once settled. Cellar: the switches' polls settled into blocks by
collector/archive/settle.settle_switch_day (what `cellar.settle` does once a day is past the late
window, forced here for today), hypertable_size of traffic_settled_poll + traffic_settled_series
(after - before) over the readings settled. Prometheus: its TSDB snapshot (admin API, the head
written as a block), chunks + index + meta + tombstones over the counter samples in it.
c: one series (a port's received octets) over the whole run: Cellar's /traffic/api/data raw
(Django test client, in process), Prometheus's /api/v1/query_range at the poll step (HTTP on
loopback): wall time of each read.
"""
from __future__ import annotations

import math
import os
import statistics
import time
from datetime import UTC, datetime

from benchmarks import db, procstat
from benchmarks import fig_scale as fs
from benchmarks import promstack as ps
from benchmarks.core import Context, Measure

PORTS_PER_SWITCH = 48
SETTLED = ("traffic_settled_poll", "traffic_settled_series")


def _switches(n: int, agent_port: int, interval: int) -> list[str]:
    from collector.inventory.models import Switch

    names = [f"sbs-ip-{i:04d}" for i in range(n)]
    Switch.objects.bulk_create([Switch(name=name, community="ip48", profile="if-mib", address="127.0.0.1",
                                       snmp_port=agent_port, poll_interval_s=interval, timeout_s=2.0, retries=1)
                                for name in names])
    return names


def _sql(query: str, params=None):
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall() if cur.description else []


def _settled_bytes() -> int:
    return sum(_sql(f"SELECT coalesce(hypertable_size('{t}'), 0)")[0][0] for t in SETTLED)


# Counter values only: a row also holds each port's ifCounterDiscontinuityTime (a series of kind
# "discontinuity"), which Prometheus stores too and neither side counts as a sample.
COUNTER_READINGS = """
SELECT coalesce(sum(k.n), 0) FROM traffic_sample s JOIN (
    SELECT l.id, count(*) AS n FROM traffic_layout l CROSS JOIN LATERAL unnest(l.series_ids) AS u(sid)
      JOIN traffic_series se ON se.id = u.sid WHERE se.kind = 'counter' GROUP BY l.id) k ON k.id = s.layout_id
 WHERE s.time >= to_timestamp(%s) AND s.time < to_timestamp(%s)"""


def _readings(lo: float, hi: float) -> int:
    return int(_sql(COUNTER_READINGS, [lo, hi])[0][0])


def _start_prometheus(ctx: Context, names: list[str], agent_port: int, interval: int) -> list[fs.Proc]:
    exporter_port, prom_port = fs.free_port(), fs.free_port()
    exp_cmd, prom_cmd = ps.commands(ctx.work, exporter_port, prom_port, "1m" if ctx.smoke else "5m")
    ps.generate(ctx.work, "ip48", 2.0, 1)        # timeout and retries as the switches have them in Cellar
    (ctx.work / "prometheus.yml").write_text(ps.prometheus_yml(names, f"127.0.0.1:{agent_port}",
                                                               f"127.0.0.1:{exporter_port}", interval))
    procs = [fs.Proc("exporter", exp_cmd, dict(os.environ), ctx.work / "exporter.log"),
             fs.Proc("prometheus", prom_cmd, dict(os.environ), ctx.work / "prometheus.log")]
    ps.wait_ready(prom_port, procs[1].alive)
    ctx.cache["sbs_prom_port"] = prom_port
    return procs


def _warm_up(ctx: Context, procs: list[fs.Proc], n: int, port: int) -> None:
    deadline = time.monotonic() + ctx.size(40, 240)
    while time.monotonic() < deadline:           # every switch polled twice by both
        fs.check_alive(procs)
        counts = fs.polls_so_far()
        if len(counts) == n and min(counts.values()) >= 2 and ps.scalar(port, 'count(up{job="snmp"} == 1)',
                                                                         time.time()) == n:
            return
        time.sleep(1.0)
    raise RuntimeError(f"warm-up incomplete: {len(fs.polls_so_far())} of {n} switches polled by Cellar")


def _measure(ctx: Context, cellar: list[fs.Proc], prom: list[fs.Proc], window: float) -> list[dict]:
    own = fs.own_backend()
    postmaster = procstat.parent_of(own)
    out = []
    for _ in range(ctx.runs):
        # the benchmark database's backends and the cluster's shared processes (checkpointer, WAL
        # writer, autovacuum): another database of the cluster is not this pipeline's
        shared = procstat.Sampler()
        shared.poll(fs.db_pids()[1] + [postmaster or 0])
        pg = procstat.TitleSampler(f" {db.dbname_of(ctx.db_url)} ", exclude=(own,), parent=postmaster).start()
        cpu0 = {p.name: procstat.cpu_seconds(p.pid) or 0.0 for p in cellar + prom}
        lo, t0 = time.time(), time.monotonic()
        while time.monotonic() - t0 < window / ctx.runs:
            time.sleep(1.0)
            shared.poll(fs.db_pids()[1] + [postmaster or 0])
            fs.check_alive(cellar + prom)
        cpu = {p.name: (procstat.cpu_seconds(p.pid) or 0.0) - cpu0[p.name] for p in cellar + prom}
        shared.poll(fs.db_pids()[1] + [postmaster or 0])
        cpu["postgres"] = pg.stop() + shared.total()
        out.append({"lo": lo, "hi": time.time(), "cpu": cpu})
        ctx.log("  16 window: " + ", ".join(f"{k} {v:.2f} s" for k, v in cpu.items()))
    return out


def _settle(day_los: list[datetime]) -> dict[str, int]:
    """The run's polls settled into blocks: the settled tables' bytes added, the counter readings
    settled (those that left traffic_sample), the blocks' own bytes, what traffic_sample took before."""
    from collector.archive import settle

    before, raw_bytes = _settled_bytes(), _sql("SELECT coalesce(hypertable_size('traffic_sample'), 0)")[0][0]
    counters = _readings(0, 4e9)
    report = settle.SettleReport()
    for lo in day_los:
        for (sid,) in _sql("SELECT DISTINCT switch_id FROM traffic_sample ORDER BY 1"):
            settle.settle_switch_day(sid, lo, report)
    left = _readings(0, 4e9)
    return {"bytes": _settled_bytes() - before, "readings": counters - left, "all_values": report.readings,
            "block_bytes": report.bytes, "left": left, "raw_bytes": raw_bytes, "raw_readings": counters}


def _cellar_reads(ctx: Context, name: str, lo: float, hi: float) -> tuple[list[float], int, list[float]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from collector.archive.models import Series
    from collector.reader import catalog, queries
    from webapp.access import roles

    user, _ = get_user_model().objects.get_or_create(username="bench-sidebyside")
    roles.grant(user, "viewer")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    sid = Series.objects.get(switch__name=name, port__if_index=1, direction="in", metric="octets").id
    iso = [datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z") for t in (lo, hi)]
    url = f"/traffic/api/data?s={sid}&start={iso[0]}&end={iso[1]}&res=raw&p95=0"
    walls, points, bare = [], 0, []
    for _ in range(ctx.runs + 1):                       # the first read warms the caches: not counted
        t0 = time.perf_counter()
        r = client.get(url)
        walls.append(time.perf_counter() - t0)
        if r.status_code != 200:
            raise RuntimeError(f"{url}: {r.status_code} {r.content[:300]!r}")
        points = r.json()["series"][0]["n_points"]
        # the reader alone (settled blocks decoded, no plan, statistics or JSON): where the time goes
        t0 = time.perf_counter()
        queries.fetch_raw(catalog.load_series([sid]), *(datetime.fromtimestamp(t, UTC) for t in (lo, hi)))
        bare.append(time.perf_counter() - t0)
    return walls[1:], points, bare[1:]


def run(ctx: Context) -> list[Measure]:
    from collector.inventory.models import Switch

    db.empty_traffic(ctx)
    _sql("TRUNCATE " + ", ".join(SETTLED))
    Switch.objects.all().delete()
    ports = int(os.environ.get("CELLAR_BENCH_SBS_PORTS") or ctx.size(480, 2000))
    interval = ctx.size(5, 15)
    window = float(os.environ.get("CELLAR_BENCH_SBS_WINDOW") or ctx.size(30, 600))
    n = math.ceil(ports / PORTS_PER_SWITCH)
    cellar: list[fs.Proc] = []
    prom: list[fs.Proc] = []
    try:
        agent, agent_port = fs.start_swarm_agent(ctx)
        cellar.append(agent)
        names = _switches(n, agent_port, interval)
        ctx.log(f"  16 {n} IP switches ({n * PORTS_PER_SWITCH:,} ports): discovering")
        discovered = fs.discover_all()
        cellar += fs.start_services(ctx, 1)
        prom += _start_prometheus(ctx, names, agent_port, interval)
        port = ctx.cache["sbs_prom_port"]
        started = time.time()
        _warm_up(ctx, cellar + prom, n, port)
        ctx.log(f"  16 warm-up done in {time.time() - started:.0f} s; measuring {window:.0f} s")
        windows = _measure(ctx, cellar[1:], prom, window)
        end = time.time()
        for p in reversed(cellar[1:]):        # beat, workers, redis: no poll after this
            p.stop()
        prom[0].stop()                         # the exporter: scrapes fail (only `up` and friends stored)
        for w in windows:
            w["cellar_samples"] = _readings(w["lo"], w["hi"])
            w["prom_samples"] = ps.counter_samples(port, w["lo"], w["hi"])
        stored = ps.counter_samples(port, started - 3600, end + 60)
        appended = ps.self_metric(port, "prometheus_tsdb_head_samples_appended_total")
        first = _sql("SELECT extract(epoch FROM min(time)) FROM traffic_sample")[0][0]
        days = sorted({datetime.fromtimestamp(t // 86400 * 86400, UTC) for t in (float(first), end)})
        rollups = sum(_sql(f"SELECT coalesce(hypertable_size('traffic_rollup_{t}'), 0)")[0][0]
                      for t in ("1m", "15m", "1h", "1d"))
        settled = _settle(days)
        snap = ps.snapshot(port, ctx.work / "tsdb")
        prom_parts, live_parts = ps.blocks(snap), ps.blocks(ctx.work / "tsdb")
        lo = max(float(first), started)
        cread = _cellar_reads(ctx, names[0], lo, end)
        query = f'ifHCInOctets{{instance="{names[0]}",ifIndex="1"}}'
        prom_reads = [ps.read_series(port, query, lo, end, interval) for _ in range(ctx.runs + 1)][1:]
    finally:
        for p in reversed(prom + cellar):
            p.stop()
    ctx.info["16"] = {"switches": n, "ports": n * PORTS_PER_SWITCH, "interval_s": interval, "window_s": window,
                      "discovery_s": round(discovered), "cellar_settled": settled, "cellar_rollup_bytes": rollups,
                      "prom_counter_samples": stored, "prom_samples_appended": appended,
                      "prom_snapshot": prom_parts, "prom_data_dir": live_parts}
    return _figures(ctx, windows, (settled, rollups),
                    (prom_parts, live_parts, stored, appended), cread, prom_reads)


def _figures(ctx: Context, windows: list[dict], cel: tuple, prm: tuple, cread: tuple, pread: list) -> list[Measure]:
    info = ctx.info["16"]
    what = f"{info['ports']:,} ports every {info['interval_s']} s, {info['window_s'] / 60:g} min"
    cel_kinds = ("poller0", "worker0", "beat", "redis", "postgres")
    c_rate = [sum(w["cpu"][k] for k in cel_kinds) / w["cellar_samples"] * 1000 for w in windows]
    p_rate = [(w["cpu"]["exporter"] + w["cpu"]["prometheus"]) / w["prom_samples"] * 1000 for w in windows]
    a = Measure("16a", f"Beside snmp_exporter + Prometheus: CPU per 1,000 samples, whole pipeline ({what})",
                "CPU s", c_rate, p_rate, "snmp_exporter + prometheus", [c / p for c, p in zip(c_rate, p_rate)],
                "Cellar / Prometheus", higher_is_better=False)
    per = {k: statistics.median(w["cpu"][k] / w["cellar_samples"] * 1000 for w in windows)
           for k in cel_kinds}
    per_p = {k: statistics.median(w["cpu"][k] / w["prom_samples"] * 1000 for w in windows)
             for k in ("exporter", "prometheus")}
    a.notes.append("by process (CPU s per 1,000 samples, median): " + ", ".join(
        f"{k} {v:.3f}" for k, v in {**per, **per_p}.items()) + "; samples per window: Cellar "
        + ", ".join(f"{w['cellar_samples']:,}" for w in windows) + ", Prometheus "
        + ", ".join(f"{w['prom_samples']:,}" for w in windows))
    b = _storage(what, cel, prm)
    reads, points, bare = cread
    c_ms = [r * 1000 for r in reads]
    p_ms = [w * 1000 for w, _ in pread]
    c = Measure("16c", f"Beside snmp_exporter + Prometheus: one series over the whole run, raw ({what})", "ms",
                c_ms, p_ms, "Prometheus query_range", [x / y for x, y in zip(c_ms, p_ms)], "Cellar / Prometheus",
                higher_is_better=False)
    c.notes.append(f"points returned: Cellar {points}, Prometheus {pread[0][1]}; Cellar in process (Django test "
                   f"client), Prometheus over HTTP on loopback; Cellar's reader alone (queries.fetch_raw, the "
                   f"settled blocks decoded) {statistics.median(bare) * 1000:.1f} ms median")
    return [a, b, c]


def _storage(what: str, cel: tuple, prm: tuple) -> Measure:
    st, rollups = cel
    parts, live, stored, appended = prm
    prom_bytes = parts["chunks"] + parts["index"] + parts["meta"]
    n = max(1, st["readings"])
    cb, pb = st["bytes"] / n, prom_bytes / max(1, stored)
    b = Measure("16b", f"Beside snmp_exporter + Prometheus: bytes on disk per sample once settled ({what})", "B",
                [cb], [pb], "Prometheus blocks (chunks + index + meta)", [cb / pb], "Cellar / Prometheus",
                "<= 1 B", met=cb <= 1.0, higher_is_better=False)
    b.notes.append(f"Cellar: {st['readings']:,} counter readings settled ({st['all_values']:,} values with the "
                   f"discontinuity times) into {st['bytes']:,} B of traffic_settled_* ({st['block_bytes'] / n:.2f} "
                   f"B/sample of block payload, the rest row, index and page overhead; over all values "
                   f"{st['bytes'] / max(1, st['all_values']):.2f}); before settling traffic_sample took "
                   f"{st['raw_bytes'] / max(1, st['raw_readings']):.2f} B/sample; {st['left']:,} readings stay "
                   f"unsettled (each switch's newest row); the rollup tiers took another {rollups:,} B "
                   f"({rollups / n:.2f} B/sample), which Prometheus has no equivalent of")
    b.notes.append(f"Prometheus: {stored:,} counter samples ({appended:,.0f} samples appended in all, with "
                   f"uptime, discontinuity times and scrape meta series) in {parts['blocks']} blocks: chunks "
                   f"{parts['chunks']:,} B, index {parts['index']:,} B, meta {parts['meta']:,} B "
                   f"({parts['chunks'] / max(1, stored):.2f} B/sample in chunks alone; over all samples "
                   f"{prom_bytes / max(1.0, appended):.2f}); the live data directory at the end: "
                   f"{live['blocks']} blocks of {live['chunks'] + live['index'] + live['meta']:,} B, WAL "
                   f"{live['wal']:,} B, head chunks {live['chunks_head']:,} B (the blocks with that WAL: "
                   f"{(prom_bytes + live['wal']) / max(1, stored):.2f} B/sample)")
    return b
