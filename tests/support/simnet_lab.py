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
