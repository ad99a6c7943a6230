"""Discovery: walk a switch and bring its ports, VPs, VCs and cross-connects into the inventory.

Everything seen is created or updated; what the agent no longer lists is marked gone (its
series and samples stay). A table that could not be walked (timeout, error) marks nothing
gone: absence of an answer is not evidence of absence. What a profile walks and how it is
parsed is data (the profile's `discovery:` section, collector/core/snapshot.py). Attaching the
archive's series to what was found is the archive's business (collector/archive/series_links.py);
collector/poller/actions.discover runs both.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from collector.core.aio import run_async
from collector.core.detect import detect_profile
from collector.core.profiles import get_profile, object_by_name
from collector.core.snapshot import PARSERS, Snapshot, fore_port_name, num, text
from collector.inventory.models import CrossConnect, Link, Port, Switch, VirtualChannel, VirtualPath

log = logging.getLogger(__name__)
FACT_SCALARS = ("sysDescr", "sysObjectID", "sysUpTime", "sysName")
FORE_TYPES = {1: "ASX-100", 2: "ASX-200", 3: "ASX-1000", 4: "ASX-200WG", 5: "ASX-200BX", 6: "ASX-200BXE"}


@dataclass
class DiscoveryReport:
    switch: str
    profile: str
    counts: dict[str, int] = field(default_factory=dict)
    gone: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{n} {k}" for k, n in self.counts.items()]
        gone = [f"{n} {k} gone" for k, n in self.gone.items() if n]
        return f"{self.switch} ({self.profile}): " + ", ".join(parts + gone)


async def read_switch(switch: Switch) -> tuple[str, dict, Snapshot]:
    async with switch.snmp_session() as session:
        profile_name = switch.profile if switch.profile != "auto" else await detect_profile(session)
        profile = get_profile(profile_name)
        oids = {object_by_name(n).instance_oid: n for n in FACT_SCALARS + profile.discovery_facts}
        scalars = {oids[o]: v for o, v in (await session.get(list(oids))).items() if o in oids}
        walked = await session.walk([object_by_name(c).oid for c in profile.discovery_columns])
        return profile_name, scalars, PARSERS[profile.discovery_parser](walked)


def _version(value: object) -> str:
    """FORE packs versions as 0xMMmmpp (softwareVersion 0x030001 = 3.0.1)."""
    if type(value) is not int:
        return ""
    return f"{value >> 16 & 0xff}.{value >> 8 & 0xff}.{value & 0xff}" if value > 0xff else str(value)


def _since(now, age_cs: int | None):
    return now - timedelta(seconds=age_cs / 100) if age_cs is not None else None


def apply_facts(switch: Switch, profile_name: str, scalars: dict) -> None:
    now = timezone.now()
    switch.detected_profile = profile_name
    switch.sys_descr = text(scalars.get("sysDescr"))
    switch.sys_object_id = text(scalars.get("sysObjectID"))
    switch.sys_name = text(scalars.get("sysName"))
    switch.uptime_cs = num(scalars.get("sysUpTime"))
    switch.uptime_at = now
    if get_profile(profile_name).discovery_parser == "fore":
        switch.switch_type = FORE_TYPES.get(num(scalars.get("switchType")), "FORE ASX")
        # The packed integer gives "3.0.1" as in `show version`; the text may carry a build tag.
        switch.software_version = _version(scalars.get("softwareVersion")) or text(scalars.get("softwareVersionText"))
        hw = num(scalars.get("hardwareVersion"))
        switch.hardware_version = f"{hw >> 4 & 0xf}.{hw & 0xf}" if hw is not None else ""
        switch.port_count = num(scalars.get("numberOfPorts"))
    else:
        switch.switch_type = switch.sys_descr.split(",")[0][:64]
    switch.discovered_at = now
    switch.save()


def _upsert(model, switch: Switch, lookup: dict, values: dict, now) -> object:
    obj, _ = model.objects.update_or_create(**lookup, defaults={**values, "last_seen": now, "gone_at": None})
    return obj


def apply_snapshot(switch: Switch, snap: Snapshot) -> DiscoveryReport:
    now = timezone.now()
    report = DiscoveryReport(switch.name, switch.detected_profile)
    if_last_change = snap.facts.get("if_last_change", {})
    with transaction.atomic():
        ports: dict[str, Port] = {}
        for p in snap.ports:
            age = p.state_age_cs
            if age is None and if_last_change.get(p.key) is not None and switch.uptime_cs is not None:
                age = max(0, switch.uptime_cs - if_last_change[p.key])
            values = {k: getattr(p, k) for k in (
                "if_index", "name", "label", "description", "port_type", "is_atm", "speed_bps", "capacity_cells",
                "admin_status", "oper_status", "max_bw_in", "alloc_bw_in", "max_bw_out", "alloc_bw_out",
                "max_vpcs", "max_vccs", "neighbor_address", "neighbor_ifname")}
            values["status_since"] = _since(now, age)
            ports[p.key] = _upsert(Port, switch, {"switch": switch, "key": p.key}, values, now)
        seen_vp, seen_vc, seen_xc = set(), set(), set()
        for vp in snap.paths:
            if vp.port_key in ports:
                obj = _upsert(VirtualPath, switch, {"port": ports[vp.port_key], "vpi": vp.vpi}, {
                    "switch": switch, "status": vp.status, "alloc_bw": vp.alloc_bw, "max_bw": vp.max_bw,
                    "up_since": _since(now, vp.age_cs)}, now)
                seen_vp.add(obj.pk)
        for vc in snap.channels:
            if vc.port_key in ports:
                obj = _upsert(VirtualChannel, switch, {"port": ports[vc.port_key], "vpi": vc.vpi, "vci": vc.vci}, {
                    "switch": switch, "status": vc.status, "service_category": vc.service_category,
                    "alloc_bw": vc.alloc_bw, "aal_type": vc.aal_type, "up_since": _since(now, vc.age_cs)}, now)
                seen_vc.add(obj.pk)
        for xc in snap.cross_connects:
            if xc.in_port not in ports or xc.out_port not in ports:
                continue
            out_port = ports[xc.out_port]
            # FORE lists counters on the input side only; the output endpoint still exists.
            if xc.kind == "vc":
                seen_vc.add(VirtualChannel.objects.get_or_create(
                    port=out_port, vpi=xc.out_vpi, vci=xc.out_vci, defaults={"switch": switch, "status": xc.status,
                                                                             "last_seen": now})[0].pk)
            else:
                seen_vp.add(VirtualPath.objects.get_or_create(
                    port=out_port, vpi=xc.out_vpi, defaults={"switch": switch, "status": xc.status,
                                                             "last_seen": now})[0].pk)
            obj = _upsert(CrossConnect, switch, {
                "switch": switch, "kind": xc.kind, "in_port": ports[xc.in_port], "in_vpi": xc.in_vpi,
                "in_vci": xc.in_vci, "out_port": out_port, "out_vpi": xc.out_vpi, "out_vci": xc.out_vci},
                {"name": xc.name, "status": xc.status, "up_since": _since(now, xc.age_cs)}, now)
            seen_xc.add(obj.pk)
        seen_ports = {p.pk for p in ports.values()}
        for label, model, seen in (("ports", Port, seen_ports), ("VPs", VirtualPath, seen_vp),
                                   ("VCs", VirtualChannel, seen_vc), ("cross-connects", CrossConnect, seen_xc)):
            report.counts[label] = len(seen)
            report.gone[label] = model.objects.filter(switch=switch, gone_at__isnull=True).exclude(
                pk__in=seen).update(gone_at=now)
        _link_neighbours(switch, ports.values())
    return report


def _link_neighbours(switch: Switch, ports) -> None:
    """ILMI neighbour data names the switch (by IP) and interface at the far end of a port."""
    for port in ports:
        if not port.neighbor_address:
            continue
        far_switch = Switch.objects.filter(address=port.neighbor_address).exclude(pk=switch.pk).first()
        if far_switch is None:
            continue
        far = None
        if port.neighbor_ifname:
            # ILMI reports the far interface as the far agent names it: a FORE BNP ("1D1")
            # is our port "D1"; an ifName is our port name as is.
            names = {port.neighbor_ifname, fore_port_name(port.neighbor_ifname, None, 0)}
            far = Port.objects.filter(switch=far_switch, name__in=names).first()
        if far and not Link.objects.filter(a_port=far, b_port=port).exists():
            Link.objects.get_or_create(a_port=port, b_port=far, defaults={"source": "ilmi"})


def discover(switch: Switch) -> DiscoveryReport:
    """Walk the switch and apply what it answered; SnmpError/ProfileError propagate."""
    profile_name, scalars, snap = run_async(read_switch(switch))
    apply_facts(switch, profile_name, scalars)
    report = apply_snapshot(switch, snap)
    log.info("discovery %s", report.summary())
    return report
