"""The manifest written by `python -m simnet up` (DIR/manifest.json) and helpers to use it.

Schema "cellar-simnet/1" (all times are Unix epoch seconds)::

  {
    "schema": "cellar-simnet/1",
    "state_dir": "/abs/state/dir",
    "base_port": 16100,
    "supervisor_pid": 1234 | null,       # process running the agents (null: not running)
    "updated_at": 1795313032.5,
    "wrap_in": 60.0, "wrap64_in": 90.0,  # near-wrap settings used
    "formula": "value(t) = int(((t*rate) + float(-rate*start_time)) + float(initial)) ...",
    "switches": [{
        "name": "asx200bx",               # also the snmprec file name and the community
        "community": "asx200bx",
        "address": "127.0.0.1", "port": 16100,
        "mgmt_address": "127.0.1.1",      # the agent answers on this loopback address too;
                                          # it is what ILMI neighbours report
        "profile": "fore-asx" | "atm2" | "if-mib",
        "sys_object_id": "1.3.6.1.4.1.326.2.2.5", "sys_name": "...",
        "start_time": 1795313032,         # integer T0 of the recording's counters
        "boot_count": 0,                  # incremented by every simulated reboot
        "pid": 4321 | null, "running": true,
        "recording": "data/asx200bx/asx200bx.snmprec",   # relative to state_dir
        "log": "logs/asx200bx.log",
        "series": [{
            "object": "portReceivedCells",    # MIB object name
            "oid": "1.3.6.1.4.1.326.2.2.2.1.2.2.1.12.0",
            "index": "0",                     # instance suffix of oid
            "syntax": "Counter32" | "Counter64" | "TimeTicks",
            "width": 32 | 64,
            "direction": "in" | "out" | null,
            "initial": 68000000,              # value at start_time
            "rate": 140010,                   # per second (integer); 0 = constant
            "wraps_at": 1795340000.1 | null,  # first time value reaches 2**width
            "labels": {"port": "A1"}          # port / vpi / vci / ifindex ...
        }, ...]
    }, ...],
    "hosts": [{"name": "mauchly-atm.ukans", "address": "127.0.0.11", "reachable": true,
               "tcp_port": 16100 | null, "method": "loopback" | "netns-veth" |
               "closed-port", "description": "..."}],
    "links": [{"a_switch": "asx200bx", "a_port": "A4", "b_switch": "asx200bx-b",
               "b_port": "A4", "kind": "atm-trunk"}],
    "pvc_paths": [{"name": "mauchly->houdini", "source": ..., "destination": ...,
                   "hops": [{"switch": "asx200bx-b", "in": ["A1", 0, 210],
                             "out": ["A4", 0, 210]}, ...], "rate": 85000}],
    "losses": [{"switch": "asx200bx-b", "port": "A1", "vpi": 0, "vci": 210, "rate": 400,
                "kind": "overflow"}],        # simnet/losses.py: cells lost at known hops
    "near_wrap": {"counter32": {"switch", "object", "oid", "wraps_at"},
                  "counter64": {...}}
  }
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

SCHEMA = "cellar-simnet/1"
FORMULA = ("value(t) = int(v) where v = ((t*rate) + float(-rate*start_time)) + float(initial), "
           "then if v > 2**width: v = v % 2**width  (float arithmetic as in snmpsim's numeric "
           "variation with atime; = (initial + rate*(t - start_time)) mod 2**width up to float "
           "rounding). rate == 0: value = initial.")


def expected_value(series: dict, start_time: int | float, t: float) -> int:
    """The value the agent serves at wall-clock time `t`, computed exactly as snmpsim 1.2.2's
    numeric variation does (see simnet.recording)."""
    rate = series["rate"]
    initial = series["initial"]
    if not rate:
        return int(initial)
    width = series["width"]
    mx = float(2 ** width)
    v = t * float(rate)
    v += float(-rate * int(start_time))
    v += float(initial)
    if v < 0:
        v = 0.0
    elif v > mx:
        v %= mx
    return int(v)


def float_error_bound(series: dict, start_time: int | float, t: float) -> int:
    """Upper bound of |expected_value - (initial + rate*(t - start_time)) mod 2**width|
    caused by float rounding: 1 for cell counters and TimeTicks, tens of octets for
    Counter32 octets at Gb/s rates, ~2-4 k near 2**64."""
    rate, initial = series["rate"], series["initial"]
    if not rate:
        return 0
    terms = (t * rate, rate * start_time, initial + rate * (t - start_time), float(initial))
    return math.ceil(sum(math.ulp(abs(x)) for x in terms)) + 1


def unwrapped_value(series: dict, start_time: int | float, t: float) -> float:
    """initial + rate*(t - start_time) without wrapping (real arithmetic)."""
    return series["initial"] + series["rate"] * (t - start_time)


def counter_delta(a: int, b: int, width: int) -> int:
    """b - a modulo 2**width (one wrap allowed)."""
    return (b - a) % (2 ** width)


def load(state_dir: str | os.PathLike) -> dict:
    with open(Path(state_dir) / "manifest.json") as f:
        return json.load(f)


def write(state_dir: str | os.PathLike, manifest: dict) -> None:
    """Atomic write (readers never see a partial file)."""
    path = Path(state_dir) / "manifest.json"
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def switch(manifest: dict, name: str) -> dict:
    for s in manifest["switches"]:
        if s["name"] == name:
            return s
    raise KeyError(name)


def find_series(sw: dict, obj: str, **labels) -> dict:
    """The unique series of object `obj` whose labels include `labels`."""
    hits = [s for s in sw["series"] if s["object"] == obj
            and all(s["labels"].get(k) == v for k, v in labels.items())]
    if len(hits) != 1:
        raise KeyError(f"{sw['name']} {obj} {labels}: {len(hits)} matches")
    return hits[0]


def series_by_oid(sw: dict) -> dict:
    return {s["oid"]: s for s in sw["series"]}
