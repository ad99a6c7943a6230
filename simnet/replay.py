"""Real recordings made to move: a copy of an snmprec file whose counters grow at known rates.

Recordings of real devices (tests/data/recordings/real/) are snapshots: every counter and the
uptime are frozen, so two polls would see no traffic and an agent whose uptime never advances
(which Cellar rightly reads as a restart). `moving_copy` rewrites a recording for snmpsim's
numeric variation module: sysUpTime advances 100 ticks per second, and every IF-MIB counter
Cellar polls (ifTable and ifXTable octets, packets, discards, errors) grows from its recorded
value at a rate chosen per counter, below the interface's speed. Everything else stays as
recorded, including values a counter column should not hold (a string, a negative number):
the real agent answered them and Cellar must cope. The rates come back as a manifest, so a test
can compare what Cellar archived with the truth.
"""
from __future__ import annotations

import bz2
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

IF_TABLE = "1.3.6.1.2.1.2.2.1."
IF_X_TABLE = "1.3.6.1.2.1.31.1.1.1."
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
# Counter columns that move, by table: column number -> (unit, 64-bit?).
IF_COUNTERS = {10: ("octets", False), 11: ("packets", False), 13: ("packets", False), 14: ("packets", False),
               16: ("octets", False), 17: ("packets", False), 19: ("packets", False), 20: ("packets", False)}
IF_X_COUNTERS = {6: ("octets", True), 7: ("packets", True), 10: ("octets", True), 11: ("packets", True)}
COUNTER_TAGS = ("65", "70")         # Counter32, Counter64 (a 32-bit column may answer either)


@dataclass
class Recording:
    """What moving_copy wrote: the file, its community, and the rate of every moving counter."""
    path: Path
    community: str
    start_time: int
    rates: dict[str, int] = field(default_factory=dict)       # OID -> units per second
    tags: dict[str, str] = field(default_factory=dict)        # OID -> tag as recorded ("65", "70")


def read_lines(path: Path) -> list[str]:
    """The snmprec lines of a plain or bz2-compressed recording."""
    raw = bz2.decompress(path.read_bytes()) if path.suffix == ".bz2" else path.read_bytes()
    return raw.decode("latin-1").splitlines()


def community_of(path: Path) -> str:
    """snmpsim serves NAME.snmprec[.bz2] under the community NAME."""
    return path.name.split(".snmprec")[0]


def _speeds(lines: list[str]) -> dict[str, int]:
    """ifIndex -> bits/s from ifHighSpeed (Mb/s) or ifSpeed, as the agent recorded them."""
    speed: dict[str, int] = {}
    high: dict[str, int] = {}
    for line in lines:
        oid, _, rest = line.partition("|")
        tag, _, value = rest.partition("|")
        if not value.isdigit():
            continue
        if oid.startswith(IF_TABLE + "5."):
            speed[oid[len(IF_TABLE) + 2:]] = int(value)
        elif oid.startswith(IF_X_TABLE + "15."):
            high[oid[len(IF_X_TABLE) + 3:]] = int(value) * 1_000_000
    for index, bps in high.items():
        if bps and (speed.get(index, 0) >= 4_294_967_295 or not speed.get(index)):
            speed[index] = bps
    return speed


def rate_for(oid: str, unit: str, speed_bps: int) -> int:
    """A rate per counter that is stable across runs, well below the interface's capacity
    (1-4 % of it for octets, a fiftieth of that for packets; speedless interfaces get a
    small fixed scale), so nothing is flagged over capacity."""
    h = int(hashlib.sha256(oid.encode()).hexdigest()[:8], 16)
    octets_capacity = speed_bps // 8 if speed_bps else 400_000
    octets = max(50, octets_capacity * (1 + h % 4) // 100)
    return octets if unit == "octets" else max(1, octets // 50)


def _moving(oid: str) -> tuple[str, bool] | None:
    """(unit, 64-bit column?) of an IF-MIB counter instance Cellar polls, else None."""
    for prefix, table in ((IF_TABLE, IF_COUNTERS), (IF_X_TABLE, IF_X_COUNTERS)):
        if oid.startswith(prefix):
            column, _, index = oid[len(prefix):].partition(".")
            if column.isdigit() and int(column) in table and index:
                return table[int(column)]
    return None


def numeric(tag: str, initial: int, rate: int, start_time: int, width: int) -> str:
    """snmpsim numeric variation: value = initial + rate * (now - start_time), modulo 2**width."""
    return (f"{tag}:numeric|atime=1,rate={rate},offset={-rate * start_time},initial={initial % 2 ** width},"
            f"wrap=1,max={2 ** width}")


def moving_copy(src: Path, dst_dir: Path, start_time: int) -> Recording:
    """Write DST_DIR/<community>.snmprec with moving counters and uptime; return its manifest."""
    lines = read_lines(src)
    speeds = _speeds(lines)
    rec = Recording(dst_dir / f"{community_of(src)}.snmprec", community_of(src), start_time)
    out = []
    for line in lines:
        oid, sep, rest = line.partition("|")
        tag, _, value = rest.partition("|")
        kind = _moving(oid) if tag in COUNTER_TAGS and value.isdigit() else None
        if oid == SYS_UPTIME and tag == "67" and value.isdigit():
            out.append(f"{oid}|{numeric(tag, int(value), 100, start_time, 32)}")
        elif kind is not None:
            unit, _ = kind
            index = oid.rsplit(".", 1)[-1]
            rate = rate_for(oid, unit, speeds.get(index, 0))
            width = 64 if tag == "70" else 32       # the type the agent answers, whatever the column
            out.append(f"{oid}|{numeric(tag, int(value), rate, start_time, width)}")
            rec.rates[oid] = rate
            rec.tags[oid] = tag
        else:
            out.append(line)
    dst_dir.mkdir(parents=True, exist_ok=True)
    write_if_changed(rec.path, "\n".join(out) + "\n")
    return rec


def write_if_changed(path: Path, text: str) -> None:
    """Leave an unchanged file alone: snmpsim keeps its index (minutes for big files) by mtime."""
    if not path.exists() or path.read_text(encoding="latin-1") != text:
        path.write_text(text, encoding="latin-1")
