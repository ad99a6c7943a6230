"""The notifications (traps) Cellar understands: what to do with each is mibs/notifications.yaml
(MODULE::notification -> effect), its OID is the compiled MIB module's (mibs/compiled/*.yaml). Pure.

Effects (what the trap receiver, collector/events/traps.py, does):
- reboot: the agent restarted (coldStart, warmStart): an event on the switch;
- port_state: a port went up or down (linkUp, linkDown): the port is the instance of the
  ifIndex-indexed varbinds; its new state is the ifOperStatus varbind, else the entry's `state`;
- pvc_failures: PVCs failed on an interface (ATM2-MIB): an event on the port, discovery asked for;
- note: recorded only.
A trap whose OID is not here is an unknown trap: stored with its varbinds, shown, never dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core import profiles
from collector.core.profiles import MIBS_DIR, ProfileError, object_by_name, object_by_oid
from collector.core.snapshot import IF_STATUS

EFFECTS = ("reboot", "port_state", "pvc_failures", "note")
IF_INDEX_OBJECTS = ("ifIndex",)


@dataclass(frozen=True)
class Notification:
    name: str
    oid: tuple[int, ...]
    effect: str
    module: str
    state: str = ""              # port_state: the state when the trap carries no ifOperStatus


EFFECTS_FILE = MIBS_DIR / "notifications.yaml"


def _load() -> dict[tuple[int, ...], Notification]:
    import yaml

    found: dict[tuple[int, ...], Notification] = {}
    compiled = profiles.registry().notifications
    doc = yaml.safe_load(EFFECTS_FILE.read_text()) or {}
    for ref, spec in (doc.get("notifications") or {}).items():
        module, _, name = str(ref).partition("::")
        if not name:
            raise ProfileError(f"{EFFECTS_FILE.name}: {ref}: name a notification as MODULE::notification")
        oid_text = compiled.get(str(ref))
        if oid_text is None:
            raise ProfileError(f"{EFFECTS_FILE.name}: {ref}: no compiled MIB module defines this notification")
        if not isinstance(spec, dict) or spec.get("effect") not in EFFECTS:
            raise ProfileError(f"{EFFECTS_FILE.name}: {ref}: effect must be one of {', '.join(EFFECTS)}")
        oid = tuple(int(p) for p in oid_text.split("."))
        found[oid] = Notification(name, oid, spec["effect"], module, str(spec.get("state", "")))
    return found


NOTIFICATIONS = _load()


def find(oid: tuple[int, ...] | None) -> Notification | None:
    return NOTIFICATIONS.get(oid) if oid else None


@dataclass(frozen=True)
class Named:
    """A varbind named by the MIB files: object name and instance suffix (None: not known)."""
    name: str | None
    instance: tuple[int, ...]
    value: object


def name_varbind(oid: tuple[int, ...], value: object) -> Named:
    for cut in range(len(oid) - 1, max(len(oid) - 8, 1), -1):
        obj = object_by_oid(".".join(map(str, oid[:cut])))
        if obj is not None:
            return Named(obj.name, oid[cut:], value)
    return Named(None, (), value)


def if_index_of(varbinds: list[tuple[tuple[int, ...], object]]) -> int | None:
    """The interface a trap is about: the instance of its first ifIndex-indexed varbind."""
    for oid, value in varbinds:
        n = name_varbind(oid, value)
        if n.name is not None and len(n.instance) == 1 and _indexed_by_if_index(n.name):
            return n.instance[0]
    return None


def _indexed_by_if_index(name: str) -> bool:
    return object_by_name(name).index == IF_INDEX_OBJECTS


def port_state(note: Notification, varbinds: list[tuple[tuple[int, ...], object]]) -> tuple[str, str]:
    """(oper status, admin status or "") a port_state trap says, by the IF-MIB words."""
    oper, admin = note.state, ""
    for oid, value in varbinds:
        n = name_varbind(oid, value)
        if n.name == "ifOperStatus" and isinstance(value, int):
            oper = IF_STATUS.get(value, str(value))
        elif n.name == "ifAdminStatus" and isinstance(value, int):
            admin = IF_STATUS.get(value, str(value))
    return oper, admin


def value_text(value: object) -> str:
    """A varbind value as stored in an event's data (octets as text when printable, else hex)."""
    if isinstance(value, bytes):
        text = value.decode("ascii", "replace")
        return text if value.isascii() and text.isprintable() else "0x" + value.hex()
    return "" if value is None else str(value)
