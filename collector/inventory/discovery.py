"""Discovery: walk a switch and bring its ports, VPs, VCs and cross-connects into the inventory.

Everything seen is created or updated; what the agent no longer lists is marked gone (its
series and samples stay). What a profile walks and how it is parsed is data (the profile's
`discovery:` section, collector/core/snapshot.py). Attaching the archive's series to what was
found is the archive's business (collector/archive/series_links.py); poller/actions.discover
runs both.

Discovery keeps what it learned when part of it fails. Each table is walked on its own: a table
that could not be walked (timeout, error) is reported in `DiscoveryReport.failures`, the port
fields that come from it keep their stored values, and nothing is marked gone but ports, and
those only when the port table itself was walked (absence of an answer is not evidence of
absence). Values are fitted to their columns before they are written (text cut to the column's
length, numbers out of the column's range left empty, each counted in `report.fitted`), so one
strange value never costs the rest of the switch.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models, transaction
from django.utils import timezone

from collector.core.aio import run_async
from collector.core.detect import detect_profile
from collector.core.neighbours import parse_neighbours
from collector.core.profiles import Profile, get_profile, object_by_name
from collector.core.snapshot import PARSERS, PORT_FIELD_SOURCES, PORT_TABLE, Snapshot, num, text
from collector.core.snmp_types import SnmpError
from collector.inventory import topology
from collector.inventory.models import CrossConnect, Discovered, Port, Switch, VirtualChannel, VirtualPath
from collector.inventory.ports import unique_names
from collector.inventory.sync import differs, sync_rows

log = logging.getLogger(__name__)
FACT_SCALARS = ("sysDescr", "sysObjectID", "sysUpTime", "sysName")
# Tables real agents answer out of OID order (LLDP-MIB: by local port): walked without the order
# check, each row read once (collector/core/snmp.py walk(ordered=False)).
UNORDERED_TABLES = {"lldpRemChassisId", "lldpLocPortId"}
# Fore-Switch-MIB switchType (and boardModel) values.
FORE_TYPES = {1: "ASX-100", 2: "ASX-200", 4: "ASX-200WG", 5: "ASX-200BX", 6: "ASX-200BXE", 8: "ASX-1000",
              15: "TNX-210", 16: "TNX-1100", 17: "ASX-1200", 18: "ASX-4000", 20: "ESX-3000", 22: "ASX-150"}
PORT_FIELDS = ("if_index", "agent_name", "label", "description", "hw_index", "port_type", "is_atm", "speed_bps",
               "capacity_cells", "admin_status", "oper_status", "status_since", "max_bw_in", "alloc_bw_in",
               "max_bw_out", "alloc_bw_out", "max_vpcs", "max_vccs", "neighbor_address", "neighbor_ifname")
# A cross-connect's identity (its unique constraint, with the switch).
XC_KEY = ("kind", "in_port_id", "in_vpi", "in_vci", "out_port_id", "out_vpi", "out_vci")
# The port fields link inference reads (collector/inventory/topology.network: names, labels, type).
LINK_FIELDS = frozenset({"agent_name", "label", "description", "port_type"})


@dataclass
class DiscoveryReport:
    switch: str
    profile: str
    counts: dict[str, int] = field(default_factory=dict)
    gone: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)      # "ifXTable (1.3.6.1.2.1.31.1.1.1): timeout ..."
    fitted: int = 0                                         # values cut or left empty to fit their column
    renamed: int = 0
    claims: int = 0                                         # neighbour claims stored as link evidence
    unmatched: dict[str, int] = field(default_factory=dict)  # neighbour rows not matched to a port, by reason
    # Whether what link inference reads changed (ports new, gone or renamed, their LINK_FIELDS, the
    # switch's sysName or identity, its neighbour claims): no change, no inference run needed.
    topology_changed: bool = False

    @property
    def complete(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        parts = [f"{n} {k}" for k, n in self.counts.items()]
        parts += [f"{n} {k} gone" for k, n in self.gone.items() if n]
        if self.renamed:
            parts.append(f"{self.renamed} ports renamed")
        if self.fitted:
            parts.append(f"{self.fitted} values fitted to their columns")
        if self.claims:
            parts.append(f"{self.claims} neighbour claims")
        if self.unmatched:
            parts.append(f"{sum(self.unmatched.values())} neighbour rows not matched to a port")
        text_ = f"{self.switch} ({self.profile}): " + ", ".join(parts)
        if self.failures:
            text_ += "; NOT WALKED: " + "; ".join(self.failures)
        return text_


def _tables(profile: Profile) -> dict[str, list[str]]:
    """Discovery columns grouped by table (the column OID without its last arc), in order."""
    tables: dict[str, list[str]] = {}
    for name in profile.discovery_columns:
        tables.setdefault(object_by_name(name).oid.rsplit(".", 1)[0], []).append(name)
    return tables


async def read_switch(switch: Switch) -> tuple[str, dict, Snapshot, set[str], list[str]]:
    """(profile, scalars, snapshot, columns not walked, failure lines). SnmpError propagates only
    when nothing at all could be read (the scalars)."""
    async with switch.snmp_session() as session:
        profile_name = switch.profile if switch.profile != "auto" else await detect_profile(session)
        profile = get_profile(profile_name)
        oids = {object_by_name(n).instance_oid: n for n in FACT_SCALARS + profile.discovery_facts}
        scalars = {oids[o]: v for o, v in (await session.get(list(oids))).items() if o in oids}
        walked: dict = {}
        failed: set[str] = set()
        failures: list[str] = []
        for table, names in _tables(profile).items():
            try:
                walked.update(await session.walk([object_by_name(c).oid for c in names],
                                                 ordered=not UNORDERED_TABLES & set(names)))
            except SnmpError as exc:
                failed.update(names)
                failures.append(f"{', '.join(names[:3])}{' ...' if len(names) > 3 else ''} ({table}): {exc}")
        snap = PARSERS[profile.discovery_parser](walked)
        snap.neighbours = parse_neighbours(walked, scalars, snap.ports)
        snap.facts["walked"] = {n for n in profile.discovery_columns if n not in failed}
        return profile_name, scalars, snap, failed, failures


def _version(value: object) -> str:
    """FORE packs versions as 0xMMmmpp (softwareVersion 0x030001 = 3.0.1)."""
    if type(value) is not int:
        return ""
    return f"{value >> 16 & 0xff}.{value >> 8 & 0xff}.{value & 0xff}" if value > 0xff else str(value)


def _since(now, age_cs: int | None):
    return now - timedelta(seconds=age_cs / 100) if age_cs is not None else None


def _int_range(f: models.Field) -> tuple[int | None, int | None]:
    low, high = connection.ops.integer_field_range(f.get_internal_type())
    for v in f.validators:
        if isinstance(v, MinValueValidator):
            low = v.limit_value if low is None else max(low, v.limit_value)
        elif isinstance(v, MaxValueValidator):
            high = v.limit_value if high is None else min(high, v.limit_value)
    return low, high


def fit(model: type[models.Model], values: dict) -> tuple[dict, int]:
    """Values cut or emptied to fit the model's columns (text length, integer range); how many."""
    fitted = 0
    out = dict(values)
    for name, value in values.items():
        f = model._meta.get_field(name)
        if not isinstance(f, models.Field):
            raise TypeError(f"{model.__name__}.{name} is not a column (discovery writes columns only)")
        max_length = getattr(f, "max_length", None)
        if isinstance(value, str) and max_length and len(value) > max_length:
            out[name] = value[:max_length]
            fitted += 1
        elif type(value) is int:
            low, high = _int_range(f)
            if (low is not None and value < low) or (high is not None and value > high):
                out[name] = None
                fitted += 1
    return out, fitted


def apply_facts(switch: Switch, profile_name: str, scalars: dict) -> bool:
    """Store the switch's scalars; returns whether its sysName (which link inference reads) changed."""
    now = timezone.now()
    sys_name = switch.sys_name
    switch.detected_profile = profile_name
    switch.sys_descr = text(scalars.get("sysDescr"))
    switch.sys_object_id = text(scalars.get("sysObjectID"))
    switch.sys_name = text(scalars.get("sysName"))
    switch.uptime_cs = num(scalars.get("sysUpTime"))
    switch.uptime_at = now
    if get_profile(profile_name).discovery_parser == "fore":
        kind = num(scalars.get("switchType"))
        switch.switch_type = FORE_TYPES.get(kind, "FORE ASX") if kind is not None else "FORE ASX"
        # The packed integer gives "3.0.1" as in `show version`; the text may carry a build tag.
        switch.software_version = _version(scalars.get("softwareVersion")) or text(scalars.get("softwareVersionText"))
        hw = num(scalars.get("hardwareVersion"))
        switch.hardware_version = f"{hw >> 4 & 0xf}.{hw & 0xf}" if hw is not None else ""
        switch.port_count = num(scalars.get("numberOfPorts"))
    else:
        switch.switch_type = switch.sys_descr.split(",")[0]
    for name in ("sys_descr", "sys_object_id", "sys_name", "switch_type", "software_version", "hardware_version"):
        fitted, _ = fit(Switch, {name: getattr(switch, name)})
        setattr(switch, name, fitted[name])
    switch.discovered_at = now
    switch.save()
    return switch.sys_name != sys_name


def _apply_ports(switch: Switch, snap: Snapshot, failed: AbstractSet[str], parser: str, now,
                 report: DiscoveryReport) -> dict[str, Port]:
    """Create or update the ports of the snapshot in bulk (a few queries for 1,300 ports), with
    unique names over every port the switch ever had, keeping fields whose columns failed."""
    if_last_change = snap.facts.get("if_last_change", {})
    existing = {p.key: p for p in Port.objects.filter(switch=switch)}
    keep = {f for f, sources in PORT_FIELD_SOURCES[parser].items() if failed & set(sources)}
    seen: dict[str, dict] = {}
    for p in snap.ports:
        age = p.state_age_cs
        changed_cs = if_last_change.get(p.key)
        if age is None and changed_cs is not None and switch.uptime_cs is not None:
            age = max(0, switch.uptime_cs - changed_cs)
        values = {f: getattr(p, f) for f in PORT_FIELDS if f not in ("agent_name", "status_since")}
        values.update(agent_name=p.name, status_since=_since(now, age))
        values, fitted = fit(Port, values)
        report.fitted += fitted
        seen[p.key] = {f: v for f, v in values.items() if not (f in keep and p.key in existing)}
    agents = {k: p.agent_name or p.name for k, p in existing.items()}
    agents.update({k: v.get("agent_name") or agents.get(k) or k for k, v in seen.items()})
    if_indexes = {k: p.if_index for k, p in existing.items()}
    if_indexes.update({k: v.get("if_index", if_indexes.get(k)) for k, v in seen.items()})
    names = unique_names((k, agents[k], if_indexes.get(k)) for k in agents)
    # Counted before the ports take their new names: series and history follow the port (its key).
    report.renamed = sum(1 for k, p in existing.items() if p.name != names[k])
    new, changed, touched, fields = [], [], [], {"name", "gone_at", "last_seen"}
    for key, values in seen.items():
        port = existing.get(key)
        if port is None:
            port = Port(switch=switch, key=key, first_seen=now, name=names[key], last_seen=now, **values)
            new.append(port)
            continue
        diff = {f for f, v in values.items() if differs(getattr(port, f), v)}
        if diff or port.name != names[key] or port.gone_at is not None:
            report.topology_changed |= bool(diff & LINK_FIELDS) or port.name != names[key] or port.gone_at is not None
            for f in diff:
                setattr(port, f, values[f])
            port.name, port.last_seen, port.gone_at = names[key], now, None
            changed.append(port)
            fields |= diff
        else:
            touched.append(port.pk)
    for key, port in existing.items():
        if key not in seen and port.name != names[key]:
            port.name = names[key]
            changed.append(port)
    report.topology_changed |= bool(new)
    with transaction.atomic():
        # Only what changed is written (a rediscovery of an unchanged switch: one UPDATE of last_seen).
        if changed:
            Port.objects.bulk_update(changed, sorted(fields), batch_size=500)
        if touched:
            Port.objects.filter(pk__in=touched).update(last_seen=now)
        Port.objects.bulk_create(new, batch_size=500)
    return {p.key: p for p in Port.objects.filter(switch=switch, key__in=list(seen))}


def _apply_atm(switch: Switch, snap: Snapshot, ports: dict[str, Port], now,
               report: DiscoveryReport) -> tuple[set[int], set[int], set[int]]:
    """VPs, VCs and cross-connects of the snapshot on the ports found, each table in a few queries
    (collector/inventory/sync.py); returns the ids seen of each."""
    # Keys: (port id, VPI) of a VP, (port id, VPI, VCI) of a VC.
    vp_rows: dict[tuple[int, ...], VirtualPath] = {
        (v.port_id, v.vpi): v for v in VirtualPath.objects.filter(switch=switch)}
    vc_rows: dict[tuple[int, ...], VirtualChannel] = {
        (v.port_id, v.vpi, v.vci): v for v in VirtualChannel.objects.filter(switch=switch)}
    vps: dict[tuple[int, ...], tuple[dict[str, Any], dict[str, Any]]] = {(ports[vp.port_key].pk, vp.vpi): (
        {"switch_id": switch.pk, "port_id": ports[vp.port_key].pk, "vpi": vp.vpi},
        {"status": vp.status, "alloc_bw": vp.alloc_bw, "max_bw": vp.max_bw, "up_since": _since(now, vp.age_cs)})
        for vp in snap.paths if vp.port_key in ports}
    vcs: dict[tuple[int, ...], tuple[dict[str, Any], dict[str, Any]]] = {(ports[vc.port_key].pk, vc.vpi, vc.vci): (
        {"switch_id": switch.pk, "port_id": ports[vc.port_key].pk, "vpi": vc.vpi, "vci": vc.vci},
        {"status": vc.status, "service_category": vc.service_category, "alloc_bw": vc.alloc_bw,
         "aal_type": vc.aal_type, "up_since": _since(now, vc.age_cs)})
        for vc in snap.channels if vc.port_key in ports}
    xcs = [xc for xc in snap.cross_connects if xc.in_port in ports and xc.out_port in ports]
    # FORE lists counters on the input side only; a cross-connect's output endpoint still exists:
    # created when missing (status from the cross-connect), left as it is when known.
    for xc in xcs:
        out = ports[xc.out_port].pk
        if xc.kind == "vc":
            if xc.out_vci is None:     # the parsers give every VC cross-connect both VCIs
                raise ValueError(f"VC cross-connect {xc.name!r} on {switch.name} has no output VCI")
            key = (out, xc.out_vpi, xc.out_vci)
            if key not in vcs and key not in vc_rows:
                vcs[key] = ({"switch_id": switch.pk, "port_id": out, "vpi": xc.out_vpi, "vci": xc.out_vci},
                            {"status": xc.status})
        elif (out, xc.out_vpi) not in vps and (out, xc.out_vpi) not in vp_rows:
            vps[(out, xc.out_vpi)] = ({"switch_id": switch.pk, "port_id": out, "vpi": xc.out_vpi},
                                      {"status": xc.status})
    seen = []
    tables: tuple[tuple[type[Discovered], Mapping[tuple[int, ...], Discovered], Mapping[tuple[int, ...], Any]], ...] = (
        (VirtualPath, vp_rows, vps), (VirtualChannel, vc_rows, vcs))
    for model, rows, wanted in tables:
        result, fitted = sync_rows(model, rows, wanted, now, fit)
        report.fitted += fitted
        seen.append({r.pk for r in result.rows.values()}
                    | {rows[k].pk for k in _out_endpoints(xcs, ports, model is VirtualChannel) if k in rows})
    xc_rows = {tuple(getattr(x, k) for k in XC_KEY): x for x in CrossConnect.objects.filter(switch=switch)}
    wanted_xc: dict[tuple[Any, ...], tuple[dict[str, Any], dict[str, Any]]] = {}
    for xc in xcs:
        ident = {"switch_id": switch.pk, "kind": xc.kind, "in_port_id": ports[xc.in_port].pk, "in_vpi": xc.in_vpi,
                 "in_vci": xc.in_vci, "out_port_id": ports[xc.out_port].pk, "out_vpi": xc.out_vpi,
                 "out_vci": xc.out_vci}
        wanted_xc[tuple(ident[k] for k in XC_KEY)] = (
            ident, {"name": xc.name, "status": xc.status, "up_since": _since(now, xc.age_cs)})
    result, fitted = sync_rows(CrossConnect, xc_rows, wanted_xc, now, fit)
    report.fitted += fitted
    return seen[0], seen[1], {r.pk for r in result.rows.values()}


def _out_endpoints(xcs, ports: dict[str, Port], channels: bool) -> list[tuple]:
    """The keys of the cross-connects' output endpoints (VCs or VPs)."""
    return [(ports[x.out_port].pk, x.out_vpi, x.out_vci) if channels else (ports[x.out_port].pk, x.out_vpi)
            for x in xcs if (x.kind == "vc") == channels]


def apply_snapshot(switch: Switch, snap: Snapshot, failed: AbstractSet[str] = frozenset(),
                   failures: list[str] | None = None) -> DiscoveryReport:
    now = timezone.now()
    report = DiscoveryReport(switch.name, switch.detected_profile, failures=list(failures or []))
    parser = get_profile(switch.detected_profile).discovery_parser
    if PORT_TABLE[parser] in failed:
        return report                  # no port list: nothing to create, update or mark gone
    with transaction.atomic():
        ports = _apply_ports(switch, snap, failed, parser, now, report)
        seen_vp, seen_vc, seen_xc = _apply_atm(switch, snap, ports, now, report)
        seen_ports = {p.pk for p in ports.values()}
        for label, model, seen in (("ports", Port, seen_ports), ("VPs", VirtualPath, seen_vp),
                                   ("VCs", VirtualChannel, seen_vc), ("cross-connects", CrossConnect, seen_xc)):
            report.counts[label] = len(seen)
            if label == "ports" or not failed:
                report.gone[label] = model.objects.filter(switch=switch, gone_at__isnull=True).exclude(
                    pk__in=seen).update(gone_at=now)
        report.topology_changed |= bool(report.gone.get("ports"))
        if snap.neighbours is not None:
            if snap.neighbours.identity.as_json() != switch.identity:
                switch.identity = snap.neighbours.identity.as_json()
                switch.save(update_fields=["identity"])
                report.topology_changed = True
            report.claims, claims_changed = topology.store_claims(switch, snap.neighbours, ports,
                                                                  set(snap.facts.get("walked") or ()))
            report.topology_changed |= claims_changed
            report.unmatched = dict(snap.neighbours.unmatched)
    return report


def discover(switch: Switch) -> DiscoveryReport:
    """Walk the switch and apply what it answered. SnmpError/ProfileError propagate when the agent
    answers nothing usable; a table that failed is in the report (report.complete is False)."""
    profile_name, scalars, snap, failed, failures = run_async(read_switch(switch))
    renamed = apply_facts(switch, profile_name, scalars)
    report = apply_snapshot(switch, snap, failed, failures)
    report.topology_changed |= renamed
    (log.warning if failures else log.info)("discovery %s", report.summary())
    return report
