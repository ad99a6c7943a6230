"""Device profiles: WHAT to poll, as data. How to poll is collector/snmp.py and poll.py.

A profile names the counter objects of one kind of device, the entity each belongs to (port,
virtual path, virtual channel), its direction and unit, the 32-bit fallback of a 64-bit
object, the scalars that give the agent's uptime, and the objects whose change proves a
counter reset. Objects are referred to by name; their OIDs, syntaxes and index layouts come
from mibs/*.yaml, loaded once when this module is imported (never on the poll path).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

MIBS_DIR = Path(__file__).resolve().parent.parent / "mibs"
SYNTAXES = {"Integer32", "Gauge32", "Counter32", "Counter64", "TimeTicks", "TimeStamp",
            "DisplayString", "OctetString", "ObjectIdentifier", "IpAddress"}
COUNTER_WIDTH = {"Counter32": 32, "Counter64": 64}


class ProfileError(Exception):
    """A profile or a mibs/ definition is inconsistent (caught at import, not at poll time)."""


@dataclass(frozen=True, slots=True)
class MibObject:
    name: str
    oid: str
    syntax: str
    index: tuple[str, ...] = ()
    scalar: bool = False
    module: str = ""

    @property
    def width(self) -> int | None:
        return COUNTER_WIDTH.get(self.syntax)

    @property
    def instance_oid(self) -> str:
        """The OID to GET for a scalar."""
        return f"{self.oid}.0" if self.scalar else self.oid


@dataclass(frozen=True, slots=True)
class Counter:
    """One counter column a profile polls."""
    object: str
    entity: str                   # "port" | "vp" | "vc"
    direction: str                # "in" (received by the switch) | "out" (transmitted)
    metric: str                   # "cells" | "octets" | "ucast_pkts" | "discards" | "errors" | "rejected_cells" | "lost_cells"
    unit: str                     # "cells" | "octets" | "packets"
    fallback: str | None = None   # 32-bit column used when the 64-bit one is not answered (SNMPv1, old agents)
    unreliable: bool = False      # seed 002: FORE reject/overflow counts were unreliable; shown and flagged
    optional: bool = False        # only some hardware answers it (FORE shared-memory modules)


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    description: str
    sys_object_ids: tuple[str, ...]          # sysObjectID prefixes that select it under "auto"
    probe: str                               # a column whose presence confirms the profile
    uptime: tuple[str, ...]                  # scalars giving agent uptime; the first answered wins
    counters: tuple[Counter, ...]
    reset_time: str | None = None            # scalar TimeStamp: changes when all counters were reset
    row_discontinuity: str | None = None     # column TimeStamp per port (ifCounterDiscontinuityTime)
    entity_of_index: dict[str, int] = field(default_factory=dict)  # entity -> index components

    def columns(self, snmp_version: str) -> list[str]:
        """Counter objects to walk first: 64-bit columns are useless over SNMPv1 (no Counter64)."""
        names = []
        for c in self.counters:
            if snmp_version == "1" and c.fallback and object_by_name(c.object).width == 64:
                names.append(c.fallback)
            else:
                names.append(c.object)
        if self.row_discontinuity:
            names.append(self.row_discontinuity)
        return names


def _load_objects(mibs_dir: Path) -> dict[str, MibObject]:
    objects: dict[str, MibObject] = {}
    for path in sorted(mibs_dir.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        module = doc.get("module", path.stem)
        for name, spec in (doc.get("objects") or {}).items():
            if name in objects:
                raise ProfileError(f"{path.name}: object {name} already defined in {objects[name].module}")
            oid = str(spec.get("oid", ""))
            if not oid or not all(part.isdigit() for part in oid.split(".")):
                raise ProfileError(f"{path.name}: {name} has an invalid oid {oid!r}")
            if spec.get("syntax") not in SYNTAXES:
                raise ProfileError(f"{path.name}: {name} has unknown syntax {spec.get('syntax')!r}")
            index = tuple(spec.get("index") or ())
            scalar = bool(spec.get("scalar", False))
            if scalar == bool(index):
                raise ProfileError(f"{path.name}: {name} must be a scalar or have an index, not both/neither")
            objects[name] = MibObject(name, oid, spec["syntax"], index, scalar, module)
    return objects


OBJECTS: dict[str, MibObject] = _load_objects(MIBS_DIR)
_BY_OID: dict[str, MibObject] = {o.oid: o for o in OBJECTS.values()}


def object_by_name(name: str) -> MibObject:
    try:
        return OBJECTS[name]
    except KeyError:
        raise ProfileError(f"object {name!r} is not defined in mibs/") from None


def object_by_oid(oid: str) -> MibObject | None:
    return _BY_OID.get(oid)


_IF_COUNTERS = (
    Counter("ifHCInOctets", "port", "in", "octets", "octets", fallback="ifInOctets"),
    Counter("ifHCOutOctets", "port", "out", "octets", "octets", fallback="ifOutOctets"),
    Counter("ifHCInUcastPkts", "port", "in", "ucast_pkts", "packets", fallback="ifInUcastPkts"),
    Counter("ifHCOutUcastPkts", "port", "out", "ucast_pkts", "packets", fallback="ifOutUcastPkts"),
    Counter("ifInDiscards", "port", "in", "discards", "packets"),
    Counter("ifOutDiscards", "port", "out", "discards", "packets"),
    Counter("ifInErrors", "port", "in", "errors", "packets"),
    Counter("ifOutErrors", "port", "out", "errors", "packets"),
)

PROFILES: dict[str, Profile] = {
    "fore-asx": Profile(
        name="fore-asx",
        description="FORE Systems ASX-200/1000 (Fore-Switch-MIB): cells per port, per input VP and VP/VC",
        sys_object_ids=("1.3.6.1.4.1.326.2.2",),
        probe="portReceivedCells",
        uptime=("sysUpTime", "switchUptime"),
        reset_time="switchCounterResetTime",
        entity_of_index={"port": 1, "vp": 2, "vc": 3},
        counters=(
            Counter("portReceivedCells", "port", "in", "cells", "cells"),
            Counter("portTransmittedCells", "port", "out", "cells", "cells"),
            Counter("pathCells", "vp", "in", "cells", "cells"),
            Counter("pathRejectedCells", "vp", "in", "rejected_cells", "cells", unreliable=True),
            Counter("chanCells", "vc", "in", "cells", "cells"),
            Counter("chanRejectedCells", "vc", "in", "rejected_cells", "cells", unreliable=True),
            # Output-side per-connection counts exist only on shared-memory network modules.
            Counter("pathShmem2TxCells", "vp", "out", "cells", "cells", optional=True),
            Counter("vcShmem2TransmittedCells", "vc", "out", "cells", "cells", optional=True),
            Counter("vcShmem2TotalLostCells", "vc", "out", "lost_cells", "cells", unreliable=True, optional=True),
            Counter("portShmem3OverflowLostCells", "port", "out", "lost_cells", "cells", unreliable=True, optional=True),
        ),
    ),
    "atm2": Profile(
        name="atm2",
        description="Standard ATM switch (ATM-MIB, ATM2-MIB statistics, AAL5 per-VC octets, IF-MIB ports)",
        sys_object_ids=(),
        probe="atmVclStatTotalCellIns",
        uptime=("sysUpTime",),
        row_discontinuity="ifCounterDiscontinuityTime",
        entity_of_index={"port": 1, "vp": 2, "vc": 3},
        counters=_IF_COUNTERS[:2] + (
            Counter("atmVplStatTotalCellIns", "vp", "in", "cells", "cells"),
            Counter("atmVplStatTotalCellOuts", "vp", "out", "cells", "cells"),
            Counter("atmVplStatTotalDiscards", "vp", "in", "discards", "cells"),
            Counter("atmVclStatTotalCellIns", "vc", "in", "cells", "cells"),
            Counter("atmVclStatTotalCellOuts", "vc", "out", "cells", "cells"),
            Counter("atmVclStatTotalDiscards", "vc", "in", "discards", "cells"),
            Counter("cAal5VccHCInOctets", "vc", "in", "octets", "octets", fallback="atmAal5VclInOctets", optional=True),
            Counter("cAal5VccHCOutOctets", "vc", "out", "octets", "octets", fallback="atmAal5VclOutOctets", optional=True),
        ),
    ),
    "if-mib": Profile(
        name="if-mib",
        description="IP switch or router interfaces (IF-MIB ifTable/ifXTable, 64-bit with 32-bit fallback)",
        sys_object_ids=(),
        probe="ifDescr",
        uptime=("sysUpTime",),
        row_discontinuity="ifCounterDiscontinuityTime",
        entity_of_index={"port": 1},
        counters=_IF_COUNTERS,
    ),
}
PROFILE_NAMES = ("auto", *PROFILES)


def _validate() -> None:
    for profile in PROFILES.values():
        for name in (profile.probe, *profile.uptime, profile.reset_time, profile.row_discontinuity):
            if name:
                object_by_name(name)
        for counter in profile.counters:
            for name in filter(None, (counter.object, counter.fallback)):
                obj = object_by_name(name)
                if obj.width is None:
                    raise ProfileError(f"{profile.name}: {name} is not a counter ({obj.syntax})")
                if len(obj.index) != profile.entity_of_index[counter.entity]:
                    raise ProfileError(f"{profile.name}: {name} index {obj.index} does not fit entity {counter.entity}")


_validate()


@lru_cache(maxsize=None)
def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ProfileError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})") from None


def profile_for_sys_object_id(sys_object_id: str) -> Profile | None:
    """The profile whose sysObjectID prefix matches, or None (then probing decides)."""
    for profile in PROFILES.values():
        for prefix in profile.sys_object_ids:
            if sys_object_id == prefix or sys_object_id.startswith(prefix + "."):
                return profile
    return None


# Order in which "auto" probes an unknown agent: the most specific first.
PROBE_ORDER = ("fore-asx", "atm2", "if-mib")
