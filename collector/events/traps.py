"""What a received trap does (the receiver: collector/events/trapd.py). Never raises for bad input.

1. decode (collector/core/traps.py); unreadable: a "trap_rejected" event with the reason;
2. the agent: the switches whose address is the datagram's source address (names resolved);
   none: rejected, "unknown agent";
3. its credentials against each such switch's (collector/inventory/secrets.py, decrypted here
   only): the v1/v2c community, or the v3 user, level and keys (MAC, decryption); none
   matches: rejected with what failed; more than one switch matches: rejected as ambiguous;
4. its meaning (collector/core/notifications.py): linkUp/linkDown set the port's state at once
   (inventory/states.py) and record a port_state event; coldStart/warmStart a reboot; ATM2-MIB
   PVC failures an event on the port and a discovery of the switch (VP/VC states at once); an
   OID not known: an "unknown_trap" event with its varbinds. Secrets are never stored or logged.
"""
from __future__ import annotations

import hmac
import logging
import socket
import threading
import time
from dataclasses import dataclass, replace

from django.db import close_old_connections
from django.utils import timezone

from collector.archive.series_links import link_series
from collector.core import notifications, traps
from collector.core.traps import Message, TrapError, UsmUser
from collector.events import changes
from collector.events.record import record_event
from collector.inventory import discovery
from collector.inventory.models import Port, Switch
from collector.inventory.states import set_port_state

log = logging.getLogger(__name__)
MAX_VARBINDS = 50            # varbinds kept in an event's data
MAX_VALUE = 200              # characters of one value kept
RESOLVE_TTL_S = 300.0        # switch names are resolved at most this often
REFRESH_MIN_S = 30.0         # a PVC trap rediscovers its switch at most this often


@dataclass(frozen=True)
class Outcome:
    kind: str                # the event's kind
    message: str
    switch_id: int | None = None
    accepted: bool = False   # credentials checked and matched
    inform: bool = False     # an accepted v2c inform: the receiver answers it


_resolved: dict[str, tuple[float, set[str]]] = {}


def addresses_of(address: str) -> set[str]:
    """The IPv4/IPv6 addresses a switch's address names (itself when it is one)."""
    hit = _resolved.get(address)
    if hit is not None and time.monotonic() - hit[0] < RESOLVE_TTL_S:
        return hit[1]
    try:
        found = {str(ai[4][0]) for ai in socket.getaddrinfo(address, None, proto=socket.IPPROTO_UDP)}
    except OSError:
        found = set()
    found.add(address)
    _resolved[address] = (time.monotonic(), found)
    return found


def _named(varbinds: list) -> list[list]:
    out = []
    for oid, value in varbinds[:MAX_VARBINDS]:
        n = notifications.name_varbind(oid, value)
        where = (n.name + ("." + ".".join(map(str, n.instance)) if n.instance else "")) if n.name else ".".join(
            map(str, oid))
        out.append([where, notifications.value_text(value)[:MAX_VALUE]])
    return out


def _reject(src: str, reason: str, m: Message | None = None) -> Outcome:
    oid = m.trap_oid if m is not None else None
    note = notifications.find(oid)
    what = note.name if note else (".".join(map(str, oid)) if oid else "a datagram")
    data = {"agent": src, "reason": reason, "trap_oid": ".".join(map(str, oid)) if oid else None,
            "version": {0: "v1", 1: "v2c", 3: "v3"}.get(m.version) if m is not None else None,
            "user": m.user if m is not None and m.version == 3 else None,
            "varbinds": _named(m.varbinds) if m is not None else []}
    message = f"{what} from {src} rejected: {reason}"
    if _admit_reject(src):
        record_event("trap_rejected", message=message, source="trap", data=data)
    return Outcome("trap_rejected", message)


# Rejected datagrams are stored one by one up to REJECT_MAX per source per REJECT_WINDOW_S; past
# that they are counted, and one event per source and window says how many (flush_rejects, from
# the receiver's minute loop): a flood of garbage cannot fill the table, and is still on record.
REJECT_WINDOW_S = 600.0
REJECT_MAX = 60
_rejects: dict[str, list] = {}       # source -> [window start (monotonic), stored, suppressed]
_rejects_lock = threading.Lock()


def _admit_reject(src: str) -> bool:
    now = time.monotonic()
    with _rejects_lock:
        w = _rejects.get(src)
        if w is not None and now - w[0] >= REJECT_WINDOW_S:
            _flush_one(src, w)
            w = None
        if w is None:
            w = _rejects[src] = [now, 0, 0]
        if w[1] < REJECT_MAX:
            w[1] += 1
            return True
        w[2] += 1
        return False


def _flush_one(src: str, w: list) -> None:
    if w[2]:
        record_event("trap_rejected", source="trap", data={"agent": src, "suppressed": w[2],
                                                           "reason": "too many rejected datagrams"},
                     message=f"{w[2]} more datagrams from {src} rejected in {REJECT_WINDOW_S / 60:.0f} min, not "
                             f"stored one by one (more than {REJECT_MAX} a window)")
    _rejects.pop(src, None)


def flush_rejects(force: bool = False) -> None:
    """Record the counts of windows that ended (all of them with force: the receiver stops)."""
    now = time.monotonic()
    with _rejects_lock:
        for src, w in list(_rejects.items()):
            if force or now - w[0] >= REJECT_WINDOW_S:
                _flush_one(src, w)


def _authenticate(m: Message, candidates: list[Switch]) -> tuple[list[Switch], list[str]]:
    ok, why = [], []
    for sw in candidates:
        if m.version in (0, 1):
            if sw.snmp_version == "3":
                why.append(f"{sw.name} uses SNMPv3")
            elif hmac.compare_digest(str(sw.community).encode(), m.community):
                ok.append(sw)
            else:
                why.append(f"wrong community for {sw.name}")
        else:
            if sw.snmp_version != "3":
                why.append(f"{sw.name} uses SNMPv{sw.snmp_version}, not v3")
                continue
            try:
                traps.usm_open(m, UsmUser(sw.v3_user, sw.auth_proto, str(sw.auth_key), sw.priv_proto,
                                          str(sw.priv_key)))
                ok.append(sw)
            except TrapError as exc:
                why.append(f"{sw.name}: {exc}")
    return ok, why


def handle(data: bytes, src: str) -> Outcome:
    """Everything one datagram from `src` (an IP address) does; records its event."""
    try:
        m = traps.decode(data)
    except TrapError as exc:
        return _reject(src, str(exc))
    candidates = [sw for sw in Switch.objects.all() if src in addresses_of(sw.address)]
    if not candidates:
        return _reject(src, f"unknown agent {src} (no switch has this address)", m)
    if m.version == 3 and m.pdu_type == traps.INFORM:
        return _reject(src, "SNMPv3 informs are not accepted (send v3 traps)", m)
    ok, why = _authenticate(m, candidates)
    if not ok:
        return _reject(src, "; ".join(why), m)
    if len(ok) > 1:
        return _reject(src, f"ambiguous: {len(ok)} switches at {src} accept these credentials "
                            f"({', '.join(s.name for s in ok)}); give each agent its own address", m)
    return replace(apply(ok[0], m, src), inform=m.pdu_type == traps.INFORM)


def apply(sw: Switch, m: Message, src: str) -> Outcome:
    now = timezone.now()
    oid = m.trap_oid
    note = notifications.find(oid)
    oid_text = ".".join(map(str, oid)) if oid else "(no snmpTrapOID)"
    data = {"agent": src, "trap_oid": oid_text, "trap": note.name if note else None,
            "version": {0: "v1", 1: "v2c", 3: "v3"}[m.version], "uptime_cs": m.uptime_cs,
            "varbinds": _named(m.varbinds)}
    if note is None:
        msg = f"unknown trap {oid_text} from {sw.name} ({len(m.varbinds)} varbinds)"
        record_event("unknown_trap", at=now, switch_id=sw.id, message=msg, source="trap", data=data)
        return Outcome("unknown_trap", msg, sw.id, True)
    if note.effect == "reboot":
        msg = f"{note.name} trap: agent restarted"
        record_event("reboot", at=now, switch_id=sw.id, message=msg, source="trap", data=data)
        return Outcome("reboot", msg, sw.id, True)
    if note.effect in ("port_state", "pvc_failures"):
        return _port_trap(sw, m, note, now, data)
    msg = f"{note.name} trap from {sw.name}"
    record_event("trap", at=now, switch_id=sw.id, message=msg, source="trap", data=data)
    return Outcome("trap", msg, sw.id, True)


def _port_trap(sw: Switch, m: Message, note: notifications.Notification, now, data: dict) -> Outcome:
    if_index = notifications.if_index_of(m.varbinds)
    port = None
    if if_index is not None:
        port = (Port.objects.filter(switch=sw, if_index=if_index).order_by("gone_at").first()
                or Port.objects.filter(switch=sw, key=str(if_index)).first())
    if port is None:
        msg = f"{note.name} trap from {sw.name}: no port with ifIndex {if_index}"
        record_event("trap", at=now, switch_id=sw.id, message=msg, source="trap", data=data)
        return Outcome("trap", msg, sw.id, True)
    if note.effect == "pvc_failures":
        counts = {n.name: n.value for n in (notifications.name_varbind(o, v) for o, v in m.varbinds)
                  if n.name and n.name.startswith("atmIntf")}
        vcs, vps = counts.get("atmIntfCurrentlyFailingPVcls", "?"), counts.get("atmIntfCurrentlyFailingPVpls", "?")
        msg = f"{note.name}: PVC failures on port {port.name} (currently failing: {vcs} VCs, {vps} VPs); rediscovered"
        record_event("vc_state", at=now, switch_id=sw.id, port_id=port.id, message=msg, source="trap", data=data)
        refresh_soon(sw.id)
        return Outcome("vc_state", msg, sw.id, True)
    oper, admin = notifications.port_state(note, m.varbinds)
    old, new = set_port_state(port.id, oper, admin, now)
    msg = (f"port {port.name} {old or 'unknown'} -> {new or 'unknown'} ({note.name} trap)" if old != new
           else f"port {port.name} {new or 'unknown'} ({note.name} trap; already so)")
    data.update({"from": old, "to": new})
    record_event("port_state", at=now, switch_id=sw.id, port_id=port.id, message=msg, source="trap", data=data)
    return Outcome("port_state", msg, sw.id, True)


_refreshing: dict[int, float] = {}
_refresh_lock = threading.Lock()


def refresh_soon(switch_id: int) -> None:
    """Rediscover the switch in a thread (VP/VC states, their events), at most every
    REFRESH_MIN_S per switch."""
    with _refresh_lock:
        last = _refreshing.get(switch_id)
        if last is not None and time.monotonic() - last < REFRESH_MIN_S:
            return
        _refreshing[switch_id] = time.monotonic()
    threading.Thread(target=refresh, args=(switch_id,), daemon=True, name=f"trap-refresh-{switch_id}").start()


def refresh(switch_id: int) -> None:
    try:
        sw = Switch.objects.get(pk=switch_id)
        before = changes.capture(sw.id)
        discovery.discover(sw)
        changes.record(before)
        link_series(sw)
    except Exception:          # the trap is recorded; a failed refresh waits for the scheduled discovery
        log.exception("rediscovery of switch %s after a trap failed", switch_id)
    finally:
        close_old_connections()
