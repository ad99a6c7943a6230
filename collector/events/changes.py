"""Events from discovery: ports, VPs and VCs appearing or vanishing, and their states changing.

poller/actions.discover takes `capture(switch_id)` before discovery and hands it to `record(...)`
after: the difference is what discovery found changed. Discovery itself (collector/inventory)
stays unaware of events. On a switch's first discovery (nothing known before) one event says
what was found; when more than BULK objects of a kind change at once (a board replaced, a
table that came back) one switch-level event lists them, instead of one row per object.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from collector.events.record import record_event
from collector.inventory.models import Port, VirtualChannel, VirtualPath

BULK = 50                 # more changes of one kind than this in one discovery: one summary event
LISTED = 200              # names kept in a summary event's data


@dataclass
class Known:
    """What the inventory said of one switch's ports, VPs and VCs: id -> (label, status, present)."""
    switch_id: int
    ports: dict[int, tuple[str, str, str, bool]] = field(default_factory=dict)   # name, oper, admin, present
    vps: dict[int, tuple[str, int, str, bool]] = field(default_factory=dict)     # label, port id, status, present
    vcs: dict[int, tuple[str, int, str, bool]] = field(default_factory=dict)


def capture(switch_id: int) -> Known:
    k = Known(switch_id)
    for pid, name, oper, admin, gone in Port.objects.filter(switch_id=switch_id).values_list(
            "id", "name", "oper_status", "admin_status", "gone_at"):
        k.ports[pid] = (name, oper, admin, gone is None)
    for vid, port_id, pname, vpi, status, gone in VirtualPath.objects.filter(switch_id=switch_id).values_list(
            "id", "port_id", "port__name", "vpi", "status", "gone_at"):
        k.vps[vid] = (f"{pname} VP {vpi}", port_id, status, gone is None)
    for vid, port_id, pname, vpi, vci, status, gone in VirtualChannel.objects.filter(
            switch_id=switch_id).values_list("id", "port_id", "port__name", "vpi", "vci", "status", "gone_at"):
        k.vcs[vid] = (f"{pname} {vpi}/{vci}", port_id, status, gone is None)
    return k


def record(before: Known, at: datetime | None = None) -> int:
    """Compare the inventory now with `before`; record the events. Returns how many."""
    at = at or timezone.now()
    after = capture(before.switch_id)
    sw = before.switch_id
    if not any(present for *_, present in before.ports.values()) and after.ports:
        n = sum(1 for *_, p in after.ports.values() if p)
        record_event("discovery_added", at=at, switch_id=sw, source="discovery",
                     message=f"first discovery: {n} ports, {sum(1 for *_, p in after.vps.values() if p)} VPs, "
                             f"{sum(1 for *_, p in after.vcs.values() if p)} VCs",
                     data={"ports": n})
        return 1
    count = 0
    for what, old, new in (("port", before.ports, after.ports), ("VP", before.vps, after.vps),
                           ("VC", before.vcs, after.vcs)):
        added = [i for i, v in new.items() if v[-1] and not (i in old and old[i][-1])]
        removed = [i for i, v in old.items() if v[-1] and i in new and not new[i][-1]]
        changed = [i for i, v in new.items() if v[-1] and i in old and old[i][-1] and _status(what, old[i]) != _status(
            what, v)]
        count += _record_set(sw, at, what, "discovery_added", added, new, "appeared")
        count += _record_set(sw, at, what, "discovery_removed", removed, new, "vanished from the agent")
        count += _record_changes(sw, at, what, changed, old, new)
    return count


def _status(what: str, v: tuple) -> str:
    return v[1] if what == "port" else v[2]


def _ids(what: str, obj_id: int, v: tuple) -> dict:
    if what == "port":
        return {"port_id": obj_id}
    return {"port_id": v[1], ("vp_id" if what == "VP" else "vc_id"): obj_id}


def _record_set(sw: int, at: datetime, what: str, kind: str, ids: list[int], rows: dict, verb: str) -> int:
    if not ids:
        return 0
    if len(ids) > BULK:
        names = sorted(rows[i][0] for i in ids)
        record_event(kind, at=at, switch_id=sw, source="discovery", message=f"{len(ids)} {what}s {verb}",
                     data={"what": what, "count": len(ids), "names": names[:LISTED]})
        return 1
    for i in ids:
        record_event(kind, at=at, switch_id=sw, source="discovery", message=f"{what} {rows[i][0]} {verb}",
                     data={"what": what}, **_ids(what, i, rows[i]))
    return len(ids)


def _record_changes(sw: int, at: datetime, what: str, ids: list[int], old: dict, new: dict) -> int:
    if not ids:
        return 0
    kind = {"port": "port_state", "VP": "vp_state", "VC": "vc_state"}[what]
    if len(ids) > BULK:
        record_event(kind, at=at, switch_id=sw, source="discovery", message=f"{len(ids)} {what}s changed state",
                     data={"count": len(ids), "changes": [[new[i][0], _status(what, old[i]), _status(what, new[i])]
                                                          for i in ids][:LISTED]})
        return 1
    for i in ids:
        was, now = _status(what, old[i]) or "unknown", _status(what, new[i]) or "unknown"
        extra = f" (admin {new[i][2]})" if what == "port" and new[i][2] and new[i][2] != old[i][2] else ""
        record_event(kind, at=at, switch_id=sw, source="discovery", message=f"{what} {new[i][0]} {was} -> {now}{extra}",
                     data={"from": was, "to": now}, **_ids(what, i, new[i]))
    return len(ids)
