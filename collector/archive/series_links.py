"""Which port, VP or VC a series counts, and at what capacity.

A series is created by the first poll that reads it (ingest.py), possibly before discovery has
seen its port; after each discovery `link_series` attaches every series of the switch to the
entity its index names and refreshes its capacity (a port's speed may have changed). Both use
`Entities`: the switch's ports, VPs and VCs read once for a batch, never once per series (the
first poll of a 1,000-port switch creates thousands).
"""
from __future__ import annotations

from collector.archive.models import Series
from collector.core.facts import capacity_per_s
from collector.core.profiles import get_profile
from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath

Found = tuple[Port | None, VirtualPath | None, VirtualChannel | None]


class Entities:
    """The switch's ports, VPs and VCs by their agent index (VPs and VCs read when first asked)."""

    def __init__(self, switch: Switch):
        self.switch = switch
        self.ports: dict[str, Port] = {}
        self.hw_ports: dict[str, Port] = {}          # by hwPortTable index (entity hwport)
        for p in Port.objects.filter(switch=switch).order_by("pk"):
            self.ports.setdefault(p.key, p)          # as .first(): the lowest pk
            if p.hw_index:
                self.hw_ports.setdefault(p.hw_index, p)
        self._vps: dict[tuple[int, int], VirtualPath] | None = None
        self._vcs: dict[tuple[int, int, int], VirtualChannel] | None = None

    def vp(self, port: Port, vpi: int) -> VirtualPath | None:
        if self._vps is None:
            self._vps = {}
            for v in VirtualPath.objects.filter(port__switch=self.switch).order_by("pk"):
                self._vps.setdefault((v.port_id, v.vpi), v)
        return self._vps.get((port.pk, vpi))

    def vc(self, port: Port, vpi: int, vci: int) -> VirtualChannel | None:
        if self._vcs is None:
            self._vcs = {}
            for v in VirtualChannel.objects.filter(port__switch=self.switch).order_by("pk"):
                self._vcs.setdefault((v.port_id, v.vpi, v.vci), v)
        return self._vcs.get((port.pk, vpi, vci))

    def of(self, entity: str, index: str) -> Found:
        """(port, VP, VC) named by a series index "port[.vpi[.vci]]" of an entity kind (hwport: the
        port's hardware table index, "board.module.port")."""
        if entity == "hwport":
            return self.hw_ports.get(index), None, None
        parts = index.split(".")
        port = self.ports.get(parts[0])
        if port is None or entity == "port":
            return port, None, None
        vpi = int(parts[1])
        if entity == "vp":
            return port, self.vp(port, vpi), None
        return port, None, self.vc(port, vpi, int(parts[2]))


def link_series(switch: Switch) -> int:
    """Attach the switch's counter series to the entities discovery now knows and refresh their
    capacities; returns how many series changed."""
    profile = get_profile(switch.effective_profile)
    entity_of = {c.object: c.entity for c in profile.counters}
    known = Entities(switch)
    changed = 0
    for series in Series.objects.filter(switch=switch, kind="counter"):
        entity = entity_of.get(series.object_name)
        if entity is None:
            continue
        port, vp, vc = known.of(entity, series.index)
        cap = capacity_per_s(series.unit, port.speed_bps, port.capacity_cells) if port else None
        if (series.port_id, series.vp_id, series.vc_id, series.capacity_per_s) != (
                getattr(port, "pk", None), getattr(vp, "pk", None), getattr(vc, "pk", None), cap):
            series.port, series.vp, series.vc, series.capacity_per_s = port, vp, vc, cap
            series.save(update_fields=["port", "vp", "vc", "capacity_per_s"])
            changed += 1
    return changed
