"""An agent for any compiled MIB module, built by code: the records of its tables' columns.

Adding a device is adding its MIB texts and a profile (mibs/README.md); to test that without the
device, an agent must answer the vendor's objects. Given a compiled module (mibs/compiled/, or a
directory named by CELLAR_PROFILE_DIRS, loaded by collector.core.profiles) and the instances of
its rows, `records` answers every read-only column of those rows: counters grow at a rate known
to the test (`rate(name, index)`), other columns answer a constant of their syntax. Merged with a
switch's records (simnet.recording.switch_records) and rendered (simnet.recording.render), it is
one snmprec file snmpsim serves.

    recs = vendor.records("CISCO-ATM-EXT-MIB", {3: [(1, 0, 100), (2, 0, 100)]},
                          rate=lambda name, index: 7 if name.endswith("Dropped") else 100)
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from collector.core import profiles

from .records import (
    TAG_COUNTER32,
    TAG_COUNTER64,
    TAG_GAUGE32,
    TAG_INTEGER,
    TAG_IPADDRESS,
    TAG_OCTETS,
    TAG_OID,
    TAG_TIMETICKS,
    Builder,
    Record,
)

GROWING = {"Counter32": TAG_COUNTER32, "Counter64": TAG_COUNTER64}
CONSTANT = {"Integer32": (TAG_INTEGER, 1), "Gauge32": (TAG_GAUGE32, 1), "TimeTicks": (TAG_TIMETICKS, 0),
            "TimeStamp": (TAG_TIMETICKS, 0), "DisplayString": (TAG_OCTETS, "simnet"),
            "OctetString": (TAG_OCTETS, "simnet"), "ObjectIdentifier": (TAG_OID, "0.0"),
            "IpAddress": (TAG_IPADDRESS, "0.0.0.0")}


def columns(module: str) -> list[profiles.MibObject]:
    """The module's columns (not scalars), in OID order, as the loaded registry has them."""
    reg = profiles.registry()
    objs = [reg.objects[n] for n in reg.modules.get(module, ())]
    return sorted((o for o in objs if not o.scalar), key=lambda o: tuple(int(x) for x in o.oid.split(".")))


def records(module: str, instances: Mapping[int, Iterable[tuple[int, ...]]],
            rate: Callable[[str, tuple[int, ...]], int], initial: Callable[[str, tuple[int, ...]], int] | None = None,
            only: Iterable[str] | None = None) -> list[Record]:
    """Records answering `module`'s columns: `instances` maps a number of index components to the
    indexes of every row with that many (a column of 3 index components gets the 3-tuples); `only`:
    just these columns (names). Columns an index object of their row names are not answered
    (not-accessible in SMIv2: they are never read)."""
    if module not in profiles.registry().modules:
        raise KeyError(f"no compiled module {module} (manage.py mib add its text first)")
    wanted = set(only) if only is not None else None
    b = Builder(fresh=False)
    index_names = {name for o in columns(module) for name in o.index}
    for obj in columns(module):
        if obj.name in index_names or (wanted is not None and obj.name not in wanted):
            continue
        for index in instances.get(len(obj.index), ()):
            if obj.syntax in GROWING:
                start = initial(obj.name, index) if initial else 1000
                b.grow(obj.oid, tuple(index), GROWING[obj.syntax], start, rate(obj.name, tuple(index)), obj.name,
                       None, row=".".join(map(str, index)))
            else:
                tag, value = CONSTANT[obj.syntax]
                b.static(obj.oid, tuple(index), tag, value, obj.name)
    return b.records
