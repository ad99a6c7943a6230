"""Device profiles: WHAT to poll, as data. How to poll is collector/core/snmp.py and poll.py.

A profile is one YAML file (mibs/profiles/<name>.yaml, or a file in a directory named by
CELLAR_PROFILE_DIRS): how to recognise the device (sysObjectID prefixes, a probe column and its
place in the probing order), the counter objects to walk with the entity each belongs to (port,
virtual path, virtual channel), direction and unit, the 32-bit fallback of a 64-bit object, the
scalars that give the agent's uptime, the objects whose change proves a counter reset, and what
discovery walks. Objects are named MODULE::object (IF-MIB::ifHCInOctets; a bare name is accepted
when one module defines it); their OIDs, syntaxes and index layouts come from the compiled MIB
modules, mibs/compiled/*.yaml (written from the MIB texts of mibs/ by `manage.py mib add`,
collector/mibc), or from an `objects:` section of the profile itself. A series is named by the
bare object name (names are unique over every loaded module: a module that redefines another's
object is refused). Everything is loaded and validated once, at start-up (never on the poll
path): adding a device is adding its MIB texts and one profile file.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
MIBS_DIR = ROOT / "mibs"                      # the MIB texts, by vendor (mibs/README.md)
COMPILED_DIR = MIBS_DIR / "compiled"          # their compact form: what this module loads
PROFILES_DIR = MIBS_DIR / "profiles"          # the device profiles shipped with Cellar
SYNTAXES = {"Integer32", "Gauge32", "Counter32", "Counter64", "TimeTicks", "TimeStamp",
            "DisplayString", "OctetString", "ObjectIdentifier", "IpAddress"}
COUNTER_WIDTH = {"Counter32": 32, "Counter64": 64}
# What a counter counts: a port (indexed by its key: FORE portNumber or ifIndex), a VP (port, VPI),
# a VC (port, VPI, VCI), or a port indexed by the agent's hardware port table (FORE hwPortTable:
# board, module, port), which discovery records on the port (Port.hw_index).
ENTITIES = ("port", "vp", "vc", "hwport")
DIRECTIONS = ("in", "out")
UNITS = ("cells", "octets", "packets", "events")
# The inventory parsers of collector/core/snapshot.py (PARSERS), by the name a profile uses.
DISCOVERY_PARSERS = ("fore", "interfaces", "atm2")
METRIC_WORD = re.compile(r"[a-z][a-z0-9_]{0,31}")


class ProfileError(Exception):
    """A profile or an object definition is inconsistent (raised at start-up, not at poll time),
    or a profile asked for does not exist."""


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
    metric: str                   # what it counts: METRICS (mibs/README.md says what each means)
    unit: str                     # "cells" | "octets" | "packets" | "events"
    fallback: str | None = None   # 32-bit column used when the 64-bit one is not answered (SNMPv1, old agents)
    unreliable: bool = False      # seed 002: FORE reject/overflow counts were unreliable; shown and flagged
    optional: bool = False        # only some hardware answers it (FORE shared-memory modules)


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str                               # short label (choices in forms)
    description: str
    sys_object_ids: tuple[str, ...]          # sysObjectID prefixes that select it under "auto"
    probe: str                               # a column whose presence confirms the profile
    probe_order: int                         # "auto" probes unknown agents in this order (low first)
    uptime: tuple[str, ...]                  # scalars giving agent uptime; the first answered wins
    counters: tuple[Counter, ...]
    discovery_parser: str                    # one of DISCOVERY_PARSERS
    discovery_columns: tuple[str, ...]       # inventory columns discovery walks
    discovery_facts: tuple[str, ...] = ()    # extra scalars discovery reads (FORE versions ...)
    reset_time: str | None = None            # scalar TimeStamp: changes when all counters were reset
    row_discontinuity: str | None = None     # column TimeStamp per port (ifCounterDiscontinuityTime)
    entity_of_index: dict[str, int] = field(default_factory=dict)  # entity -> index components
    source: str = ""                         # the file it came from

    def counter(self, object_name: str) -> Counter | None:
        for c in self.counters:
            if c.object == object_name:
                return c
        return None


@dataclass
class Registry:
    objects: dict[str, MibObject]
    profiles: dict[str, Profile]
    modules: dict[str, set[str]] = field(default_factory=dict)      # module -> the object names it defines
    notifications: dict[str, str] = field(default_factory=dict)     # "MODULE::name" -> OID
    by_oid: dict[str, MibObject] = field(init=False)

    def __post_init__(self) -> None:
        self.by_oid = {o.oid: o for o in self.objects.values()}


def _parse_object(where: str, name: str, spec: Any, module: str) -> MibObject:
    if not isinstance(spec, dict):
        raise ProfileError(f"{where}: object {name} must be a mapping")
    oid = str(spec.get("oid", ""))
    if not oid or not all(part.isdigit() for part in oid.split(".")):
        raise ProfileError(f"{where}: {name} has an invalid oid {oid!r}")
    if spec.get("syntax") not in SYNTAXES:
        raise ProfileError(f"{where}: {name} has unknown syntax {spec.get('syntax')!r}")
    index = tuple(spec.get("index") or ())
    scalar = bool(spec.get("scalar", False))
    if scalar == bool(index):
        raise ProfileError(f"{where}: {name} must be a scalar or have an index, not both/neither")
    return MibObject(name, oid, spec["syntax"], index, scalar, module)


def _add_objects(registry: Registry, where: str, doc: dict, default_module: str) -> None:
    module = str(doc.get("module", default_module))
    names = registry.modules.setdefault(module, set())
    for name, spec in (doc.get("objects") or {}).items():
        obj = _parse_object(where, name, spec, module)
        old = registry.objects.get(name)
        # One name, one object: the same OID, read the same way (collector/mibc/build.py same_object).
        if old is not None and ((old.oid, old.scalar, len(old.index), old.width)
                                != (obj.oid, obj.scalar, len(obj.index), obj.width)):
            raise ProfileError(f"{where}: object {name} already defined differently in {old.module}")
        registry.objects.setdefault(name, obj)
        names.add(name)
    for name, spec in (doc.get("notifications") or {}).items():
        oid = str(spec.get("oid", "")) if isinstance(spec, dict) else ""
        if not oid or not all(part.isdigit() for part in oid.split(".")):
            raise ProfileError(f"{where}: notification {name} has an invalid oid {oid!r}")
        registry.notifications[f"{module}::{name}"] = oid


def _str_tuple(where: str, key: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise ProfileError(f"{where}: {key} must be a list of names")
    return tuple(str(v) for v in value)


COUNTER_KEYS = {"object", "entity", "direction", "metric", "unit", "fallback", "unreliable", "optional"}
PROFILE_KEYS = {"name", "title", "description", "detect", "uptime", "reset_time", "row_discontinuity",
                "entities", "counters", "discovery", "objects", "module"}


def _parse_profile(where: str, doc: dict) -> Profile:
    """The profile as written: object references still as written (MODULE::object or bare)."""
    unknown = set(doc) - PROFILE_KEYS
    if unknown:
        raise ProfileError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    name = doc.get("name")
    if not isinstance(name, str) or not name or name == "auto" or not name.replace("-", "").isalnum():
        raise ProfileError(f"{where}: name must be a word of letters, digits and dashes (not 'auto')")
    if len(name) > 16:
        raise ProfileError(f"{where}: name {name!r} is longer than 16 characters")
    detect = doc.get("detect") or {}
    discovery = doc.get("discovery") or {}
    counters = []
    for i, c in enumerate(doc.get("counters") or []):
        if (not isinstance(c, dict) or set(c) - COUNTER_KEYS
                or not {"object", "entity", "direction", "metric", "unit"} <= set(c)):
            raise ProfileError(f"{where}: counter {i + 1} needs object, entity, direction, metric and unit "
                               f"(and may have fallback, unreliable, optional)")
        counters.append(Counter(str(c["object"]), str(c["entity"]), str(c["direction"]), str(c["metric"]),
                                str(c["unit"]), c.get("fallback"), bool(c.get("unreliable", False)),
                                bool(c.get("optional", False))))
    if not counters:
        raise ProfileError(f"{where}: a profile polls at least one counter")
    entities = doc.get("entities") or {}
    if not isinstance(entities, dict) or not all(isinstance(v, int) for v in entities.values()):
        raise ProfileError(f"{where}: entities maps port/vp/vc/hwport to their number of index components")
    return Profile(
        name=name, title=str(doc.get("title") or name), description=str(doc.get("description") or ""),
        sys_object_ids=_str_tuple(where, "detect.sys_object_ids", detect.get("sys_object_ids")),
        probe=str(detect.get("probe") or ""), probe_order=int(detect.get("probe_order", 100)),
        uptime=_str_tuple(where, "uptime", doc.get("uptime") or ["SNMPv2-MIB::sysUpTime"]),
        counters=tuple(counters),
        discovery_parser=str(discovery.get("parser") or ""),
        discovery_columns=_str_tuple(where, "discovery.columns", discovery.get("columns")),
        discovery_facts=_str_tuple(where, "discovery.facts", discovery.get("facts")),
        reset_time=doc.get("reset_time"), row_discontinuity=doc.get("row_discontinuity"),
        entity_of_index=dict(entities), source=where)


def _resolver(where: str, registry: Registry):
    """MODULE::object (or a bare name one module defines) -> the object's name, checked."""
    def ref(text: str) -> str:
        if "::" in text:
            module, _, name = text.partition("::")
            if module not in registry.modules:
                raise ProfileError(f"{where}: {text}: no MIB module {module} is compiled (mibs/compiled/; "
                                   f"add its text with `manage.py mib add`)")
            if name not in registry.modules[module]:
                raise ProfileError(f"{where}: {text}: module {module} defines no object {name!r}")
            return name
        if text not in registry.objects:
            raise ProfileError(f"{where}: object {text!r} is not defined (by a MIB module of mibs/compiled/ "
                               f"or the profile's objects:)")
        return text
    return ref


def _resolve(profile: Profile, registry: Registry) -> Profile:
    """The profile with every object reference as the bare name a series keeps."""
    ref = _resolver(profile.source, registry)
    counters = tuple(replace(c, object=ref(c.object), fallback=ref(c.fallback) if c.fallback else None)
                     for c in profile.counters)
    return replace(
        profile, probe=ref(profile.probe) if profile.probe else "", uptime=tuple(map(ref, profile.uptime)),
        counters=counters, discovery_columns=tuple(map(ref, profile.discovery_columns)),
        discovery_facts=tuple(map(ref, profile.discovery_facts)),
        reset_time=ref(profile.reset_time) if profile.reset_time else None,
        row_discontinuity=ref(profile.row_discontinuity) if profile.row_discontinuity else None)


def _validate(profile: Profile, objects: dict[str, MibObject]) -> None:
    where = profile.source

    def obj(name: str) -> MibObject:
        return objects[name]                     # resolved: defined

    if not profile.probe:
        raise ProfileError(f"{where}: detect.probe names a column whose presence confirms the profile")
    for name in filter(None, (profile.reset_time, profile.row_discontinuity)):
        if obj(name).syntax not in ("TimeStamp", "TimeTicks"):
            raise ProfileError(f"{where}: {name} is not a TimeStamp")
    if profile.discovery_parser not in DISCOVERY_PARSERS:
        raise ProfileError(f"{where}: discovery.parser must be one of {', '.join(DISCOVERY_PARSERS)}")
    for counter in profile.counters:
        if counter.entity not in ENTITIES or counter.entity not in profile.entity_of_index:
            raise ProfileError(f"{where}: {counter.object}: entity {counter.entity!r} is not in entities")
        if counter.direction not in DIRECTIONS or counter.unit not in UNITS:
            raise ProfileError(f"{where}: {counter.object}: direction in {DIRECTIONS}, unit in {UNITS}")
        if not METRIC_WORD.fullmatch(counter.metric):
            raise ProfileError(f"{where}: {counter.object}: metric {counter.metric!r} must be a word of "
                               f"lower-case letters, digits and _ (at most 32)")
        for name in filter(None, (counter.object, counter.fallback)):
            o = obj(name)
            if o.width is None:
                raise ProfileError(f"{where}: {name} is not a counter ({o.syntax})")
            if len(o.index) != profile.entity_of_index[counter.entity]:
                raise ProfileError(f"{where}: {name} index {o.index} does not fit entity {counter.entity}")
        if counter.fallback and (obj(counter.object).width != 64 or obj(counter.fallback).width != 32):
            raise ProfileError(f"{where}: {counter.object}: a fallback is the 32-bit column of a 64-bit one")
    seen: set[str] = set()
    for counter in profile.counters:
        if counter.object in seen:
            raise ProfileError(f"{where}: {counter.object} is polled twice")
        seen.add(counter.object)


def _yaml_files(dirs: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for d in dirs:
        if not d.is_dir():
            raise ProfileError(f"profile directory {d} does not exist")
        files += sorted(d.glob("*.yaml"))
    return files


# libyaml's safe loader where PyYAML has it: the compiled modules (~600 lines) load in a third of the time.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(path: Path) -> dict:
    try:
        doc = yaml.load(path.read_text(), Loader=_LOADER)        # a safe loader (see _LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise ProfileError(f"{path.name}: cannot read: {exc}") from None
    if not isinstance(doc, dict):
        raise ProfileError(f"{path.name}: not a YAML mapping")
    return doc


def load(extra_dirs: Iterable[Path] = (), compiled_dir: Path = COMPILED_DIR,
         profiles_dir: Path = PROFILES_DIR) -> Registry:
    """The compiled MIB modules and the profiles, plus `extra_dirs`. In an extra directory a file
    with `name:` is a profile (it may define `objects:` of its own), a file with `module:` and
    `objects:` only is a compiled module (as `manage.py mib add --into DIR` writes). Any
    inconsistency: ProfileError, naming the file and the object."""
    registry = Registry({}, {})
    for path in _yaml_files([compiled_dir]):
        _add_objects(registry, path.name, _read(path), path.stem)
    docs: list[tuple[str, dict]] = []
    for path in _yaml_files([profiles_dir, *extra_dirs]):
        doc = _read(path)
        if "name" in doc:
            docs.append((str(path), doc))
        elif "objects" not in doc:
            raise ProfileError(f"{path.name}: neither a profile (name:) nor a compiled module (module:, objects:)")
        _add_objects(registry, path.name, doc, path.stem)
    registry.__post_init__()
    for where, doc in docs:
        profile = _resolve(_parse_profile(where, doc), registry)
        if profile.name in registry.profiles:
            raise ProfileError(f"{where}: profile {profile.name} is already defined in "
                               f"{registry.profiles[profile.name].source}")
        _validate(profile, registry.objects)
        registry.profiles[profile.name] = profile
    return registry


_registry: Registry = load()


def use_directories(extra_dirs: Iterable[str | Path]) -> None:
    """Load the built-in profiles plus those of `extra_dirs` (settings CELLAR_PROFILE_DIRS, at
    start-up); the previous set stays if anything is wrong (ProfileError)."""
    global _registry
    _registry = load([Path(d) for d in extra_dirs])


def registry() -> Registry:
    return _registry


def object_by_name(name: str) -> MibObject:
    """An object by its name, bare (ifHCInOctets) or MODULE::object."""
    try:
        return _registry.objects[name.partition("::")[2] or name]
    except KeyError:
        raise ProfileError(f"object {name!r} is not defined by a compiled MIB module (mibs/compiled/)") from None


def object_by_oid(oid: str) -> MibObject | None:
    return _registry.by_oid.get(oid)


def get_profile(name: str) -> Profile:
    try:
        return _registry.profiles[name]
    except KeyError:
        raise ProfileError(f"unknown profile {name!r} (known: {', '.join(_registry.profiles)})") from None


def profile_names() -> tuple[str, ...]:
    """"auto" and every loaded profile, for the CLI and forms."""
    return ("auto", *sorted(_registry.profiles))


def choices() -> list[tuple[str, str]]:
    """Model field choices (a callable, so a new profile file needs no migration)."""
    return [("auto", "auto (by sysObjectID and probing)")] + [
        (p.name, p.title) for p in sorted(_registry.profiles.values(), key=lambda p: (p.probe_order, p.name))]


def profile_for_sys_object_id(sys_object_id: str) -> Profile | None:
    """The profile whose sysObjectID prefix matches (the longest prefix wins), or None."""
    best: tuple[int, Profile] | None = None
    for profile in _registry.profiles.values():
        for prefix in profile.sys_object_ids:
            if (sys_object_id == prefix or sys_object_id.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[0]):
                best = (len(prefix), profile)
    return best[1] if best else None


def probe_order() -> list[Profile]:
    """The order in which "auto" probes an unknown agent: the most specific first."""
    return sorted(_registry.profiles.values(), key=lambda p: (p.probe_order, p.name))
