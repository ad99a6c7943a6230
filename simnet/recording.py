"""Pure functions: simulated switch -> snmprec records / text, and manifest series.

The records of each kind of switch come from the table modules (`simnet.fore_tables`: the
FORE enterprise MIB; `simnet.standard_tables`: IF-MIB, ATM-MIB, ATM2-MIB), built with
`simnet.records` (record types, tags, the builder, the system group).  Here they are sorted
and checked, rendered as snmprec text, and listed as the growing series of the manifest.

snmprec line format (snmpsim 1.2.2, `snmpsim/grammar/snmprec.py`): ``OID|TAG|VALUE`` with
tags 2 Integer32, 4 OctetString (``4x`` = hex value), 6 OID, 64 IpAddress, 65 Counter32,
66 Gauge32, 67 TimeTicks, 70 Counter64.  Growing values use the numeric variation module
(``snmpsim/variation/numeric.py``)::

    OID|65:numeric|atime=1,rate=R,offset=-R*T0,initial=I,wrap=1,max=4294967296

With ``atime`` the module uses absolute wall-clock time t (time.time() in the agent), so
the served value is, in float arithmetic exactly as snmpsim evaluates it::

    v = (t * R) + float(-R*T0)       # function = identity of t*rate, then += offset
    v = v + float(I)                 # += initial
    if v > max: v = v % max          # wrap=1 (min is 0); max = 2**width
    value = int(v)                   # pyasn1 Counter32/Counter64/TimeTicks(float) truncates

i.e. value(t) = (I + R*(t - T0)) mod 2**width, independent of when the agent process
started (without ``atime`` the time base would be the agent's module import time, which
is not knowable from outside).  `simnet.manifest.expected_value` implements this.
Series with rate 0 are written as static values (``OID|65|I``).
"""

from __future__ import annotations

import string

from .atm_model import AtmSwitch
from .fore_tables import fore_records
from .model import ForeSwitch, IfSwitch
from .records import SENTINEL_OID, SENTINEL_VALUE, SYNTAX, TAG_IPADDRESS, TAG_OCTETS, TAG_OID, Record, Series, oid_s
from .standard_tables import atm2_records, ifmib_records

# --------------------------------------------------------------------------- rendering

def switch_records(sw, fresh: bool = False) -> list[Record]:
    """All records of a switch, sorted numerically by OID (no sentinel)."""
    if isinstance(sw, ForeSwitch):
        recs = fore_records(sw, fresh)
    elif isinstance(sw, AtmSwitch):
        recs = atm2_records(sw, fresh)
    elif isinstance(sw, IfSwitch):
        recs = ifmib_records(sw, fresh)
    else:
        raise TypeError(type(sw))
    recs.sort(key=lambda r: r.oid)
    for a, b in zip(recs, recs[1:]):
        if a.oid == b.oid:
            raise ValueError(f"{sw.name}: duplicate OID {oid_s(a.oid)} ({a.name}, {b.name})")
    if recs[-1].oid >= SENTINEL_OID:
        raise ValueError("sentinel OID must follow every record")
    return recs


_PLAIN = set(string.ascii_letters + string.digits + " .,:;/_-+()<>#@=")


def _format_value(r: Record) -> tuple[str, str]:
    v = r.value
    if r.tag == TAG_OCTETS:
        raw = v if isinstance(v, bytes) else str(v).encode("ascii")
        text = raw.decode("ascii", "replace")
        if raw and (not set(text) <= _PLAIN or text != text.strip()):
            return "4x", raw.hex()
        if isinstance(v, bytes) and raw:
            return "4x", raw.hex()
        return "4", text
    if r.tag in (TAG_OID, TAG_IPADDRESS):
        return str(r.tag), str(v)
    if not isinstance(v, int):          # every other static value is a number (records.Builder)
        raise TypeError(f"{r.name}: value {v!r} of tag {r.tag} is not an integer")
    return str(r.tag), str(int(v))


def numeric_args(series: Series, tag: int, start_time: int) -> str:
    """The numeric-variation argument string for a growing record."""
    width = SYNTAX[tag][1]
    return (f"atime=1,rate={series.rate},offset={-series.rate * start_time},"
            f"initial={series.initial},wrap=1,max={2 ** width}")


def render_line(r: Record, start_time: int) -> str:
    oid = oid_s(r.oid)
    if r.series is not None:
        if r.series.rate:
            return f"{oid}|{r.tag}:numeric|{numeric_args(r.series, r.tag, start_time)}"
        return f"{oid}|{r.tag}|{r.series.initial}"
    tag, value = _format_value(r)
    return f"{oid}|{tag}|{value}"


def render(records: list[Record], start_time: int) -> str:
    """snmprec text for `records` (already sorted) with the sentinel appended."""
    if int(start_time) != start_time:
        raise ValueError("start_time must be an integer epoch second")
    lines = [render_line(r, int(start_time)) for r in records]
    lines.append(f"{oid_s(SENTINEL_OID)}|4|{SENTINEL_VALUE}")
    return "\n".join(lines) + "\n"


def series_entries(records: list[Record], start_time: int) -> list[dict]:
    """Manifest entries for every Counter32/Counter64 record and every growing TimeTicks."""
    out = []
    for r in records:
        if r.series is None:
            continue
        syntax, width = SYNTAX[r.tag]
        if syntax == "TimeTicks" and not r.series.rate:
            continue
        s = r.series
        wraps_at = None
        if s.rate:
            wraps_at = start_time + (2 ** width - s.initial) / s.rate
        out.append({
            "object": r.name,
            "oid": oid_s(r.oid),
            "index": oid_s(r.index),
            "syntax": syntax,
            "width": width,
            "direction": s.direction,
            "initial": s.initial,
            "rate": s.rate,
            "wraps_at": wraps_at,
            "labels": dict(s.labels),
        })
    return out
