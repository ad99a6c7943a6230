"""snmprec records and the builder the table modules fill.

The tags of snmprec values, `Record` (one OID of a recording) and its `Series` (a value that
grows linearly with time), OID helpers, the `Builder` with which `simnet.fore_tables` and
`simnet.standard_tables` collect the records of a switch, and the system group every
recording starts with.  `simnet.recording` sorts, checks and renders them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .model import TICKS_PER_SECOND

TAG_INTEGER = 2
TAG_OCTETS = 4
TAG_OID = 6
TAG_IPADDRESS = 64
TAG_COUNTER32 = 65
TAG_GAUGE32 = 66
TAG_TIMETICKS = 67
TAG_COUNTER64 = 70

SYNTAX = {TAG_COUNTER32: ("Counter32", 32), TAG_COUNTER64: ("Counter64", 64),
          TAG_TIMETICKS: ("TimeTicks", 32)}

# Placed after every table of every recording, so a GETNEXT/GETBULK past the last real
# object has a successor inside the file.
SENTINEL_OID = (1, 3, 6, 1, 4, 1, 32473, 999, 0)
SENTINEL_VALUE = "end-of-simnet-recording"


@dataclass(frozen=True)
class Series:
    """A value that grows linearly with time (counter or uptime)."""
    initial: int
    rate: int
    direction: str | None = None        # "in" | "out" | None
    labels: tuple = ()                  # (("port", "A1"), ...) for humans and tests


@dataclass(frozen=True)
class Record:
    oid: tuple
    tag: int
    value: object = None                # static value (ignored when series is set)
    name: str = ""                      # MIB object name
    column: tuple = ()                  # OID of the column/scalar (oid = column + index)
    series: Series | None = None

    @property
    def index(self) -> tuple:
        return self.oid[len(self.column):]


def oid_t(dotted: str) -> tuple:
    return tuple(int(x) for x in dotted.strip(".").split("."))


def oid_s(oid: Iterable[int]) -> str:
    return ".".join(str(x) for x in oid)


class Builder:
    """Collects records; `fresh` = just rebooted (every series and timestamp starts at 0)."""

    def __init__(self, fresh: bool):
        self.fresh = fresh
        self.records: list[Record] = []

    def static(self, column: str | tuple, index: tuple, tag: int, value, name: str):
        col = oid_t(column) if isinstance(column, str) else tuple(column)
        self.records.append(Record(col + tuple(index), tag, value, name, col))

    def stamp(self, column, index, ticks: int, name: str):
        """A static TimeTicks timestamp (TimeStamp / ifLastChange): 0 after a reboot."""
        self.static(column, index, TAG_TIMETICKS, 0 if self.fresh else ticks, name)

    def grow(self, column, index, tag: int, initial: int, rate: int, name: str,
             direction: str | None = None, **labels):
        col = oid_t(column) if isinstance(column, str) else tuple(column)
        width = SYNTAX[tag][1]
        init = 0 if self.fresh else initial % (2 ** width)
        s = Series(init, rate, direction, tuple(sorted(labels.items())))
        self.records.append(Record(col + tuple(index), tag, None, name, col, s))

    def uptime(self, column, index, ticks: int, name: str, **labels):
        self.grow(column, index, TAG_TIMETICKS, ticks, TICKS_PER_SECOND, name, **labels)


def static_text(b: Builder, column, index, value: str, name: str):
    b.static(column, index, TAG_OCTETS, value, name)


def static_int(b: Builder, column, index, value: int, name: str):
    b.static(column, index, TAG_INTEGER, int(value), name)


# --------------------------------------------------------------------------- system group

SYSTEM = "1.3.6.1.2.1.1"


def system_group(b: Builder, sw) -> None:
    static_text(b, SYSTEM + ".1", (0,), sw.sys_descr, "sysDescr")
    b.static(SYSTEM + ".2", (0,), TAG_OID, sw.sys_object_id, "sysObjectID")
    b.uptime(SYSTEM + ".3", (0,), sw.uptime_ticks, "sysUpTime")
    static_text(b, SYSTEM + ".4", (0,), "noc@cellar.invalid", "sysContact")
    static_text(b, SYSTEM + ".5", (0,), sw.sys_name, "sysName")
    static_text(b, SYSTEM + ".6", (0,), sw.sys_location, "sysLocation")
    static_int(b, SYSTEM + ".7", (0,), 2 if sw.profile != "if-mib" else 6, "sysServices")
