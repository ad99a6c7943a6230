"""The port table of a switch (tables 2b / 2c): one row per port with its state, bandwidth,
VPs/VCs in use now and at peak, current rate, counter value and total since the archive began.

Built from what webapp.status.queries reads (the latest poll, the series index, the totals, the
start of the archive), in a fixed number of queries whatever the number of ports.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from django.utils import timezone

from collector.core.facts import CELL_BITS, CELL_BYTES, flag_words
from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath
from collector.reader.latest import Latest, archive_starts, latest_samples
from collector.reader.totals import Totals, totals
from webapp.status import pathtrace as pt
from webapp.status.queries import NetworkData, SeriesIndex, series_index

N = TypeVar("N", int, float)

# --------------------------------------------------------------------------- peaks


def peak_concurrent(intervals) -> int:
    """Most intervals [start, end) open at one time (end None = still open)."""
    events = []
    for start, end in intervals:
        if start is None:
            continue
        events.append((start, 1))
        if end is not None:
            events.append((end, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    cur = best = 0
    for _, step in events:
        cur += step
        best = max(best, cur)
    return best


# --------------------------------------------------------------------------- ports (tables 2b / 2c)


@dataclass
class PortRow:
    port: Port
    neighbors: list = field(default_factory=list)
    vps_now: int = 0
    vps_peak: int = 0
    vcs_now: int = 0
    vcs_peak: int = 0
    kbps_in: float | None = None
    kbps_out: float | None = None
    flags_in: int = 0
    flags_out: int = 0
    count_in: int | None = None
    count_out: int | None = None
    count_unit: str = "cells"
    count_derived: bool = False
    mb_in: float | None = None
    mb_out: float | None = None
    state_seconds: float | None = None
    alloc_in: float | None = None      # Mb/s
    alloc_out: float | None = None
    max_in: float | None = None
    max_out: float | None = None
    measured: bool = False

    @property
    def free_in(self) -> float | None:
        return None if self.max_in is None or self.alloc_in is None else max(0.0, self.max_in - self.alloc_in)

    @property
    def free_out(self) -> float | None:
        return None if self.max_out is None or self.alloc_out is None else max(0.0, self.max_out - self.alloc_out)

    @property
    def flag_text_in(self) -> str:
        return flag_words(self.flags_in)

    @property
    def flag_text_out(self) -> str:
        return flag_words(self.flags_out)


def cells_mbps(cells: int | float | None) -> float | None:
    return None if cells is None else cells * CELL_BITS / 1e6


def port_sort_key(port) -> tuple:
    return (0, int(port.key), port.name) if str(port.key).isdigit() else (1, 0, port.name)


@dataclass
class PortTable:
    rows: list[PortRow]
    latest: Latest | None
    archive_start: datetime | None
    atm: bool
    totals: Totals | None = None


def port_table(switch: Switch, net: pt.Network | None = None, include_gone: bool = False,
               port_ids=None, data: NetworkData | None = None) -> PortTable:
    """Tables 2b/2c for one switch (8 queries + what `net` cost; 6 when `data` already holds the
    switch's latest poll and series)."""
    now = timezone.now()
    qs = Port.objects.filter(switch=switch)
    if not include_gone:
        qs = qs.filter(gone_at__isnull=True)
    if port_ids is not None:
        qs = qs.filter(id__in=list(port_ids))
    ports = sorted(qs, key=port_sort_key)
    for p in ports:
        p.switch = switch   # no query per row for str(port)
    vp_life = defaultdict(list)
    vc_life = defaultdict(list)
    for port_id, first, gone in VirtualPath.objects.filter(switch=switch).values_list(
            "port_id", "first_seen", "gone_at"):
        vp_life[port_id].append((first, gone))
    for port_id, first, gone in VirtualChannel.objects.filter(switch=switch).values_list(
            "port_id", "first_seen", "gone_at"):
        vc_life[port_id].append((first, gone))
    if data is not None and data.idx is not None and switch.id in set(data.idx.switch_of.values()) | set(data.latest):
        idx, latest = data.idx, data.latest.get(switch.id)
    else:
        idx = series_index([switch.id])
        latest = latest_samples([switch.id]).get(switch.id)
    wanted = set(idx.port.values()) | {s for lst in idx.vp_by_port.values() for s in lst}
    tot = totals([switch.id], wanted)
    start = archive_starts([switch.id]).get(switch.id)
    rows = []
    for p in ports:
        r = PortRow(p)
        if net is not None:
            r.neighbors = net.neighbors.get(p.id, [])
        r.vps_now = sum(1 for _, g in vp_life[p.id] if g is None)
        r.vps_peak = peak_concurrent(vp_life[p.id])
        r.vcs_now = sum(1 for _, g in vc_life[p.id] if g is None)
        r.vcs_peak = peak_concurrent(vc_life[p.id])
        if p.status_since:
            r.state_seconds = max(0.0, (now - p.status_since).total_seconds())
        r.alloc_in, r.alloc_out = cells_mbps(p.alloc_bw_in), cells_mbps(p.alloc_bw_out)
        r.max_in = cells_mbps(p.max_bw_in) if p.max_bw_in is not None else (
            cells_mbps(p.capacity_cells) if p.is_atm and p.capacity_cells
            else (p.speed_bps / 1e6 if p.speed_bps else None))
        r.max_out = cells_mbps(p.max_bw_out) if p.max_bw_out is not None else r.max_in
        _port_traffic(r, p, idx, latest, tot)
        rows.append(r)
    return PortTable(rows, latest, start, any(p.is_atm for p in ports), tot)


def _total(values: list[N | None]) -> N | None:
    """The sum of the values, None when one of them is unknown."""
    known = [v for v in values if v is not None]
    return sum(known) if len(known) == len(values) else None


def _port_traffic(r: PortRow, p: Port, idx: SeriesIndex, latest: Latest | None, tot: Totals) -> None:
    for direction in ("in", "out"):
        cells = idx.port.get((p.id, "cells", direction))
        octets = idx.port.get((p.id, "octets", direction))
        vp_cells = idx.vp_by_port.get((p.id, "cells", direction), [])
        kbps = count = mb = None
        flags = 0
        derived = False
        unit = "cells" if p.is_atm else "octets"
        if latest is not None:
            if octets is not None and latest.values.get(octets) is not None:
                rate, flags = latest.rate(octets)
                kbps = None if rate is None else rate * 8 / 1000
            elif cells is not None:
                rate, flags = latest.rate(cells)
                kbps = None if rate is None else rate * CELL_BITS / 1000
            elif vp_cells:
                rates = [latest.rate(s) for s in vp_cells]
                vp_rate = _total([v for v, _ in rates])
                if vp_rate is not None:
                    kbps = vp_rate * CELL_BITS / 1000
                for _, f in rates:
                    flags |= f
            if p.is_atm:
                if cells is not None:
                    count = latest.raw(cells)
                elif vp_cells and (vp_count := _total([latest.raw(s) for s in vp_cells])) is not None:
                    count, derived = vp_count, True
                elif octets is not None and (octet_count := latest.raw(octets)) is not None:
                    count, derived = octet_count // CELL_BYTES, True
            elif octets is not None:
                count = latest.raw(octets)
        if cells is not None and cells in tot:
            mb = tot[cells] * CELL_BITS / 1e6
        elif octets is not None and octets in tot:
            mb = tot[octets] * 8 / 1e6
        elif vp_cells and any(s in tot for s in vp_cells):
            mb = sum(tot.get(s, 0) for s in vp_cells) * CELL_BITS / 1e6
        if direction == "in":
            r.kbps_in, r.flags_in, r.count_in, r.mb_in = kbps, flags, count, mb
        else:
            r.kbps_out, r.flags_out, r.count_out, r.mb_out = kbps, flags, count, mb
        r.count_unit = unit
        r.count_derived = r.count_derived or derived
        r.measured = r.measured or kbps is not None or count is not None
