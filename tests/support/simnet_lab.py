"""Helpers shared by the simnet tests (net-snmp CLI wrappers, state dirs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NETSNMP = bool(shutil.which("snmpget") and shutil.which("snmpbulkwalk") and shutil.which("snmpwalk"))


def make_state_dir(tag: str) -> Path:
    """A state dir the agents can read after dropping to `nobody` (pytest's tmp_path
    lives under a 0700 directory)."""
    d = Path(tempfile.mkdtemp(prefix=f"cellar-simnet-{tag}-", dir="/tmp"))
    os.chmod(d, 0o755)
    return d


# --------------------------------------------------------------------------- net-snmp helpers

_LINE = re.compile(r"^(\.[0-9.]+) = (?:([A-Za-z0-9-]+): )?(.*)$")


def parse_value(kind: str | None, text: str):
    kind = kind or "STRING"                 # net-snmp prints an empty string as `= ""`
    if kind == "Timeticks":
        return kind, int(text[1:text.index(")")])
    if kind in ("Counter32", "Counter64", "Gauge32", "INTEGER"):
        return kind, int(text.split()[0])
    if kind == "STRING":
        return kind, text[1:-1] if text.startswith('"') else text
    return kind, text.strip()


def parse_output(out: str) -> dict:
    res = {}
    for line in out.splitlines():
        mt = _LINE.match(line)
        if not mt or "No more variables" in line or "No Such" in line:
            continue
        res[mt.group(1)[1:]] = parse_value(mt.group(2), mt.group(3))
    return res


def snmp(cmd: str, sw: dict, *oids: str, timeout: float = 2.0, retries: int = 1,
         address: str | None = None):
    """Run a net-snmp command against a manifest switch.  Returns (t_before, t_after,
    {oid: (type, value)})."""
    args = [cmd, "-v2c", "-c", sw["community"], "-On", "-Oe", "-m", "", "-t", str(timeout),
            "-r", str(retries), f"{address or sw['address']}:{sw['port']}", *oids]
    t0 = time.time()
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    t1 = time.time()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {p.stderr.strip()}")
    return t0, t1, parse_output(p.stdout)


# --------------------------------------------------------------------------- network namespaces

# Cellar's own host checks (collector/poller/hostcheck.py), run by a child process inside a
# namespace: ICMP and TCP of each (address, port), one JSON line each.
_CHECK_IN_NETNS = """
import json, sys
import django
django.setup()
from collector.poller import hostcheck
for address, port in json.loads(sys.argv[1]):
    icmp, tcp = hostcheck.check_icmp(address), hostcheck.check_tcp(address, port)
    print(json.dumps({"address": address, "icmp": icmp.reachable, "tcp": tcp.reachable, "error": tcp.error}))
"""


def host_checks_in_netns(ns: str, targets: list[tuple[str, int]]) -> list[dict]:
    """hostcheck.check_icmp and check_tcp of each target, from inside the namespace `ns`."""
    import json
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings", "PYTHONPATH": str(ROOT)}
    p = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", _CHECK_IN_NETNS, json.dumps(targets)],
                       capture_output=True, text=True, timeout=30 + 8 * len(targets), cwd=ROOT, env=env,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError(f"host checks in {ns} failed: {p.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def root_netns_snapshot() -> dict[str, list[str]]:
    """The root namespace's addresses, links and routes (`ip -o addr`, `ip -o link`, `ip route show
    table all`). Links that other test runs on this machine make and remove meanwhile (snmpd_lab's
    cl<pid>, the benchmarks' cb<pid>...) are left out, with their addresses and routes."""
    out = {}
    for key, argv in (("addr", ["ip", "-o", "addr"]), ("link", ["ip", "-o", "link"]),
                      ("route", ["ip", "route", "show", "table", "all"])):
        text = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=True).stdout
        out[key] = sorted(line for line in text.splitlines() if not _OTHER_LABS.search(line))
    return out


_OTHER_LABS = re.compile(r"\b(?:dev )?c[lb]\d+\w*[:@ ]|\bdev c[lb]\d+\w*\b")
