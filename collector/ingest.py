"""PollResult -> stored sample row: series and layouts, previous row, derivation, write or spool.

Derivation happens once, here, at ingest: the previous stored row of the switch (the latest
one older than this poll) gives the baseline, collector/poll.build_row computes deltas and
flags, collector/writer writes the row. If the database is unreachable the raw PollResult is
spooled to local disk and replayed, in order, when it answers again (collector/spool.py).
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.db import InterfaceError, OperationalError, close_old_connections, connection

from collector import spool, writer
from collector.counters import CounterSpec, i64_to_u64
from collector.poll import PollResult, PreviousRow, SeriesKey, SeriesSlot, build_row
from collector.profiles import Counter, get_profile
from webapp.inventory.models import Port, Switch, VirtualChannel, VirtualPath
from webapp.traffic.models import Layout, Series

log = logging.getLogger(__name__)
DB_DOWN = (OperationalError, InterfaceError)
CATALOG_TTL_S = 60.0   # discovery may change capacities or link entities; re-read at most this stale


@dataclass
class _Catalog:
    loaded_at: float
    by_key: dict[SeriesKey, Series]
    layouts: dict[str, int]            # digest -> layout id
    layout_ids: dict[int, list[int]]   # layout id -> series ids


_catalogs: dict[int, _Catalog] = {}


def forget(switch_id: int) -> None:
    """Drop the cached catalog (after discovery, or in tests)."""
    _catalogs.pop(switch_id, None)


def _catalog(switch_id: int) -> _Catalog:
    cat = _catalogs.get(switch_id)
    if cat is None or time.monotonic() - cat.loaded_at > CATALOG_TTL_S:
        series = Series.objects.filter(switch_id=switch_id)
        cat = _Catalog(time.monotonic(), {(s.object_name, s.index): s for s in series}, {}, {})
        _catalogs[switch_id] = cat
    return cat


def capacity(port: Port | None, unit: str) -> int | None:
    """Units per second a port can carry at most: the bound above which a rate is flagged."""
    if port is None:
        return None
    if unit == "cells":
        if port.capacity_cells:
            return port.capacity_cells
        return int(port.speed_bps / (53 * 8)) if port.speed_bps else None
    if not port.speed_bps:
        return None
    if unit == "octets":
        return port.speed_bps // 8
    # Packets: the smallest Ethernet frame plus preamble and gap is 84 bytes on the wire; a
    # 64-byte bound stays safe for non-Ethernet media.
    return max(1, port.speed_bps // (8 * 64))


def _entities(switch: Switch, entity: str, index: str) -> tuple[Port | None, VirtualPath | None, VirtualChannel | None]:
    parts = index.split(".")
    port = Port.objects.filter(switch=switch, key=parts[0]).first()
    if port is None or entity == "port":
        return port, None, None
    vpi = int(parts[1])
    if entity == "vp":
        return port, VirtualPath.objects.filter(port=port, vpi=vpi).first(), None
    vc = VirtualChannel.objects.filter(port=port, vpi=vpi, vci=int(parts[2])).first()
    return port, None, vc


def _counter_of(profile_name: str, object_name: str) -> Counter | None:
    for counter in get_profile(profile_name).counters:
        if counter.object == object_name:
            return counter
    return None


def _create_series(switch: Switch, profile_name: str, result: PollResult, keys: list[SeriesKey]) -> None:
    """Series the poll saw first: attach them to the port/VP/VC discovery knows, if any yet."""
    new = []
    for key in keys:
        object_name, index = key
        counter = _counter_of(profile_name, object_name)
        if counter is None:   # a discontinuity-time column or scalar
            port = Port.objects.filter(switch=switch, key=index).first() if index != "0" else None
            new.append(Series(switch=switch, object_name=object_name, index=index, kind="discontinuity",
                              port=port, metric="discontinuity", unit="ticks", width=32))
            continue
        port, vp, vc = _entities(switch, counter.entity, index)
        new.append(Series(
            switch=switch, object_name=object_name, index=index, kind="counter", port=port, vp=vp, vc=vc,
            direction=counter.direction, metric=counter.metric, unit=counter.unit,
            width=result.readings[key].width, capacity_per_s=capacity(port, counter.unit)))
    Series.objects.bulk_create(new, ignore_conflicts=True)


def _reset_key(profile_name: str, key: SeriesKey) -> SeriesKey | None:
    profile = get_profile(profile_name)
    if profile.reset_time:
        return (profile.reset_time, "0")
    if profile.row_discontinuity:
        return (profile.row_discontinuity, key[1].split(".")[0])
    return None


def resolve_slots(switch: Switch, profile_name: str, result: PollResult) -> tuple[int, list[SeriesSlot]]:
    """The layout (ordered series) of this poll, creating series and layout when new."""
    cat = _catalog(switch.id)
    keys = sorted(result.readings) + sorted(result.discontinuity)
    unknown = [k for k in keys if k not in cat.by_key]
    if unknown:
        _create_series(switch, profile_name, result, unknown)
        forget(switch.id)
        cat = _catalog(switch.id)
    slots = []
    for key in keys:
        s = cat.by_key[key]
        reading = result.readings.get(key)
        if s.kind == "counter" and reading is not None and reading.width != s.width:
            # The agent switched between a 64-bit column and its 32-bit fallback: a new epoch.
            Series.objects.filter(pk=s.pk).update(width=reading.width)
            s.width = reading.width
        spec = CounterSpec(s.width, s.capacity_per_s) if s.kind == "counter" else None
        reset_key = _reset_key(profile_name, key) if spec else None
        reset_id = cat.by_key[reset_key].id if reset_key in cat.by_key else None
        slots.append(SeriesSlot(s.id, key, spec, reset_key if reset_id else None, reset_id))
    ids = [s.series_id for s in slots]
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()
    layout_id = cat.layouts.get(digest)
    if layout_id is None:
        layout, _ = Layout.objects.get_or_create(switch_id=switch.id, digest=digest, defaults={"series_ids": ids})
        layout_id = cat.layouts[digest] = layout.id
        cat.layout_ids[layout_id] = list(layout.series_ids)
    return layout_id, slots


def previous_row(switch_id: int, before: float) -> PreviousRow | None:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT extract(epoch FROM s.time)::float8, s.uptime_cs, s.raw, l.series_ids "
            "FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
            "WHERE s.switch_id = %s AND s.time < %s ORDER BY s.time DESC LIMIT 1",
            [switch_id, writer.to_datetime(before)])
        row = cur.fetchone()
    if row is None:
        return None
    at, uptime_cs, raw, series_ids = row
    values = {sid: (None if v is None else i64_to_u64(v)) for sid, v in zip(series_ids, raw)}
    return PreviousRow(at, uptime_cs, values)


def ingest(result: PollResult) -> int:
    """Derive and write one poll; returns rows written (0 when it was already stored)."""
    switch = Switch.objects.get(pk=result.switch_id)
    profile_name = switch.effective_profile
    layout_id, slots = resolve_slots(switch, profile_name, result)
    prev = previous_row(switch.id, result.at)
    row = build_row(result, layout_id, slots, prev, float(switch.poll_interval_s))
    return writer.write_samples([row])


def ingest_or_spool(result: PollResult) -> str:
    """'written' | 'duplicate' | 'spooled'. A database outage spools instead of losing the poll."""
    try:
        if spool.pending(result.switch_id):
            spool.append(result)
            spool.drain(result.switch_id, ingest)
            return "written" if not spool.pending(result.switch_id) else "spooled"
        return "written" if ingest(result) else "duplicate"
    except DB_DOWN as exc:
        log.warning("database unavailable, spooling poll of switch %s: %s", result.switch_id, exc.__class__.__name__)
        close_old_connections()
        if not spool.pending(result.switch_id) or not _already_spooled(result):
            spool.append(result)
        return "spooled"


def _already_spooled(result: PollResult) -> bool:
    # drain() stops at the first failing result and keeps it: do not append it a second time.
    last = spool.last(result.switch_id)
    return last is not None and last.at == result.at
