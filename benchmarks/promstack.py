"""Debian's prometheus-snmp-exporter scraped by Debian's prometheus, for figure 16.

The exporter's snmp.yml is made by Debian's own generator (/usr/bin/prometheus-snmp-generator, in
the same package) from the MIB sources Cellar ships (mibs/ietf: Debian has the IETF MIBs only in
non-free's snmp-mibs-downloader). Its module walks the objects Cellar's if-mib profile reads over
SNMPv2c, named from the profile (the 64-bit octet and unicast-packet counters, the 32-bit discard
and error counters, ifCounterDiscontinuityTime, sysUpTime): `generate` checks the OIDs it got
against collector/core/poll.columns_to_walk.
Prometheus scrapes the exporter the standard way: one job, one target per switch, the switch's
agent address passed as ?target= and the scrape address rewritten to the exporter. Every swarm
switch answers on the same UDP address (simnet/swarm.py tells them apart by community only), so
the targets differ by a `switch` label, which becomes the instance label.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

EXPORTER = "/usr/bin/prometheus-snmp-exporter"
GENERATOR = "/usr/bin/prometheus-snmp-generator"
PROMETHEUS = "/usr/bin/prometheus"
MIBS = Path(__file__).resolve().parent.parent / "mibs" / "ietf"
MODULE = "cellar_if_mib"
# The counters of Cellar's if-mib profile as the exporter names them (a sample is one of these).
COUNTERS = ("ifHCInOctets", "ifHCOutOctets", "ifHCInUcastPkts", "ifHCOutUcastPkts", "ifInDiscards",
            "ifOutDiscards", "ifInErrors", "ifOutErrors")


def generate(work: Path, community: str, timeout_s: float, retries: int) -> Path:
    """snmp.yml by Debian's generator for the objects Cellar polls; checked against Cellar's walk."""
    import yaml

    from collector.core.poll import columns_to_walk
    from collector.core.profiles import get_profile, object_by_name

    profile = get_profile("if-mib")
    names = [c.object for c in profile.counters] + [profile.row_discontinuity or ""] + list(profile.uptime)
    module = {"walk": [n.split("::")[-1] for n in names], "version": 2, "max_repetitions": 25,
              "retries": retries, "timeout": f"{timeout_s:g}s", "auth": {"community": community}}
    (work / "generator.yml").write_text(json.dumps({"modules": {MODULE: module}}, indent=1))
    got = subprocess.run([GENERATOR, "generate"], cwd=work, env={**os.environ, "MIBDIRS": str(MIBS)},
                         capture_output=True, text=True, timeout=120)
    out = work / "snmp.yml"
    if got.returncode != 0 or not out.exists():
        raise RuntimeError(f"prometheus-snmp-generator failed: {got.stderr[-2000:]}")
    made = yaml.safe_load(out.read_text())[MODULE]
    uptime = {object_by_name(n).oid + ".0" for n in profile.uptime}
    if set(made["walk"]) != set(columns_to_walk(profile, "2c")) or set(made.get("get", [])) != uptime:
        raise RuntimeError(f"snmp.yml walks {made['walk']} and gets {made.get('get')}; Cellar walks "
                           f"{columns_to_walk(profile, '2c')} and gets {uptime}")
    if not set(COUNTERS) <= {m["name"] for m in made["metrics"] if m["type"] == "counter"}:
        raise RuntimeError(f"snmp.yml lacks counters of {COUNTERS}")
    return out


def prometheus_yml(switches: list[str], agent: str, exporter: str, interval_s: int) -> str:
    job = {"job_name": "snmp", "metrics_path": "/snmp", "params": {"module": [MODULE]},
           "scrape_interval": f"{interval_s}s", "scrape_timeout": f"{min(10, interval_s - 1)}s",
           "static_configs": [{"targets": [agent], "labels": {"switch": name}} for name in switches],
           "relabel_configs": [
               {"source_labels": ["__address__"], "target_label": "__param_target"},
               {"source_labels": ["switch"], "target_label": "instance"},
               {"regex": "switch", "action": "labeldrop"},
               {"target_label": "__address__", "replacement": exporter}]}
    return json.dumps({"global": {"scrape_interval": f"{interval_s}s"}, "scrape_configs": [job]}, indent=1)


def commands(work: Path, exporter_port: int, prom_port: int, block: str) -> tuple[list[str], list[str]]:
    """(exporter, prometheus) command lines. Block durations `block` (min = max): the head is cut
    into a block once it spans 1.5 of them, within the run, and blocks are never merged."""
    for binary in (EXPORTER, GENERATOR, PROMETHEUS):
        if not os.access(binary, os.X_OK):
            raise RuntimeError(f"{binary} missing: scripts/provision.sh installs prometheus and "
                               "prometheus-snmp-exporter")
    exporter = [EXPORTER, f"--config.file={work / 'snmp.yml'}", f"--web.listen-address=127.0.0.1:{exporter_port}",
                "--log.level=warn"]
    prometheus = [PROMETHEUS, f"--config.file={work / 'prometheus.yml'}", f"--storage.tsdb.path={work / 'tsdb'}",
                  f"--storage.tsdb.min-block-duration={block}", f"--storage.tsdb.max-block-duration={block}",
                  "--storage.tsdb.retention.time=2d", f"--web.listen-address=127.0.0.1:{prom_port}",
                  "--web.enable-admin-api", "--log.level=warn"]
    return exporter, prometheus


def api(port: int, path: str, params: dict | None = None, post: bool = False, timeout: float = 60) -> dict:
    url = f"http://127.0.0.1:{port}{path}"
    data = urllib.parse.urlencode(params or {})
    if post:
        req = urllib.request.Request(url, data=data.encode(), method="POST")
    else:
        req = urllib.request.Request(f"{url}?{data}" if data else url)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = json.loads(r.read())
    except urllib.error.HTTPError as exc:
        raise RuntimeError(f"prometheus {path} {params}: {exc.code} {exc.read()[:500]!r}") from exc
    if body.get("status") != "success":
        raise RuntimeError(f"prometheus {path}: {body}")
    return body["data"]


def wait_ready(port: int, alive, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError("prometheus exited")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("prometheus not ready")


def scalar(port: int, query: str, at: float) -> float:
    got = api(port, "/api/v1/query", {"query": query, "time": f"{at:.3f}"})["result"]
    return float(got[0]["value"][1]) if got else 0.0


def counter_samples(port: int, lo: float, hi: float) -> int:
    """Counter values scraped with timestamps in (lo, hi]: one per counter and scrape (metric by
    metric: count_over_time drops the name, and the columns share their labels)."""
    span = max(1, int(hi - lo))
    return sum(int(scalar(port, f"sum(count_over_time({name}[{span}s]))", hi)) for name in COUNTERS)


def self_metric(port: int, name: str) -> float:
    """A value of Prometheus's own /metrics (e.g. prometheus_tsdb_head_samples_appended_total)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#") and line[len(name)] in " {")


def read_series(port: int, query: str, lo: float, hi: float, step: int) -> tuple[float, int]:
    """(seconds, points) of a query_range over HTTP, the response parsed as a client would."""
    t0 = time.perf_counter()
    got = api(port, "/api/v1/query_range", {"query": query, "start": f"{lo:.3f}", "end": f"{hi:.3f}",
                                            "step": f"{step}s"})["result"]
    wall = time.perf_counter() - t0
    if len(got) != 1:
        raise RuntimeError(f"{query}: {len(got)} series")
    return wall, len(got[0]["values"])


def dir_bytes(path: Path) -> int:
    """Bytes of the files under path, as allocated on disk (st_blocks), like du."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.lstat(Path(root) / f).st_blocks * 512
    return total


def blocks(path: Path) -> dict[str, int]:
    """Bytes of the persisted blocks under a TSDB directory, by part (chunks, index, meta, tombstones),
    and of the write-ahead log and the head's memory-mapped chunks."""
    out = {"chunks": 0, "index": 0, "meta": 0, "blocks": 0, "wal": 0, "chunks_head": 0}
    for d in sorted(path.iterdir()) if path.exists() else []:
        if d.is_dir() and (d / "meta.json").exists():
            out["blocks"] += 1
            out["chunks"] += dir_bytes(d / "chunks")
            out["index"] += os.lstat(d / "index").st_blocks * 512
            out["meta"] += sum(os.lstat(d / f).st_blocks * 512 for f in ("meta.json", "tombstones")
                               if (d / f).exists())
        elif d.name in ("wal", "chunks_head"):
            out[d.name] = dir_bytes(d)
    return out


def snapshot(port: int, tsdb: Path) -> Path:
    """The whole TSDB written as blocks, the head included (admin API): what compaction would leave
    of the head, measured without waiting for it."""
    name = api(port, "/api/v1/admin/tsdb/snapshot", {"skip_head": "false"}, post=True, timeout=300)["name"]
    return tsdb / "snapshots" / name
