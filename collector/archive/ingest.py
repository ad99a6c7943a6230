"""PollResult -> stored sample row: series and layouts, previous row, derivation, write or spool.

Derivation happens once, here, at ingest: the previous stored row of the switch (the latest
one older than this poll) gives the baseline, collector/core/rows.RowPlan computes deltas and
flags, collector/archive/writer writes the row. If the database is unreachable the raw
PollResult is spooled to local disk and replayed, in order, when it answers again (spool.py).
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.db import InterfaceError, OperationalError, close_old_connections, connection

from collector.archive import settle, spool, writer
from collector.archive.models import Layout, Series
from collector.archive.series_links import Entities
from collector.core.counters import CounterSpec
from collector.core.facts import Flag, capacity_per_s, to_u64_list
from collector.core.poll import PollResult
from collector.core.profiles import get_profile
from collector.core.readings import SeriesKey
from collector.core.rows import PreviousRow, RowPlan, SampleRow, SeriesSlot
from collector.inventory.models import Switch

log = logging.getLogger(__name__)
DB_DOWN = (OperationalError, InterfaceError)
CATALOG_TTL_S = 60.0   # discovery may change capacities or link entities; re-read at most this stale


@dataclass(slots=True)
class _SeriesRec:
    """What ingest needs of a Series row (read with values_list: no model instances)."""
    id: int
    kind: str
    width: int
    capacity_per_s: int | None


@dataclass
class SwitchCatalog:
    loaded_at: float
    by_key: dict[SeriesKey, _SeriesRec]
    layouts: dict[str, int]            # digest -> layout id
    layout_ids: dict[int, list[int]]   # layout id -> series ids
    # The layout of the last poll, precomputed (rows.RowPlan), with the widths its readings had:
    # the next poll with the same keys in the same order and the same widths reuses it.
    plan: RowPlan | None = None
    plan_widths: list[int] | None = None
    # hash() of the Series rows as read (not the rows: ~500 tuples a switch, 100 MB at 100,000
    # ports): an unchanged reload keeps the plan. None: never equal (a width changed here).
    signature: int | None = None
    digest: str | None = None          # the same rows' digest in the database (refresh_catalogs)
    # The last row this process wrote for the switch: (stored time, layout id, uptime, the row as
    # PreviousRow). previous_row() uses it only after the database confirms that this row is
    # still the latest one before the poll.
    last_row: tuple[datetime, int, int | None, PreviousRow] | None = None
    # Series whose width changed since the last row written: their next delta is withheld (WIDTH).
    width_changed: set[int] = field(default_factory=set)


_catalogs: dict[int, SwitchCatalog] = {}
# Rows written with a reboot, reset, width change or wrap, per switch, until the poller takes them
# (take_flagged) to record them as events (collector/events): bounded, the oldest dropped first.
FLAGGED_KEEP = 100
WATCHED_FLAGS = int(Flag.REBOOT | Flag.RESET | Flag.WIDTH | Flag.WRAP)
_flagged: dict[int, list[tuple[float, int | None, list[int], list[int]]]] = {}


def take_flagged(switch_id: int) -> list[tuple[float, int | None, list[int], list[int]]]:
    """(poll time, uptime_cs, series ids, flags) of the rows written since the last call that carry
    a reboot, reset, width change or wrap, oldest first; forgotten once taken."""
    return _flagged.pop(switch_id, [])


def forget(switch_id: int) -> None:
    """Drop the cached catalog and last row (after discovery, or in tests)."""
    _catalogs.pop(switch_id, None)


def forget_all() -> None:
    """Drop every cached catalog (a test's database is emptied under this process)."""
    _catalogs.clear()
    _flagged.clear()


def catalog_of(switch_id: int) -> SwitchCatalog:
    cat = _catalogs.get(switch_id)
    if cat is None or time.monotonic() - cat.loaded_at > CATALOG_TTL_S:
        rows = list(Series.objects.filter(switch_id=switch_id).order_by().values_list(
            "id", "object_name", "index", "kind", "width", "capacity_per_s"))
        signature = hash(tuple(sorted(rows)))
        if cat is not None and cat.signature == signature:
            cat.loaded_at = time.monotonic()       # nothing changed: keep the layouts and the plan
        else:
            cat = SwitchCatalog(time.monotonic(), {(o, i): _SeriesRec(sid, k, w, c) for sid, o, i, k, w, c in rows},
                           {}, {}, signature=signature)
        _catalogs[switch_id] = cat
    return cat


# The Series rows' digest, computed in the database: what refresh_catalogs compares.
_DIGESTS_SQL = """
    SELECT switch_id, md5(string_agg(concat_ws(' ', id, object_name, "index", kind, width,
                                               coalesce(capacity_per_s, -1)), ',' ORDER BY id))
    FROM traffic_series WHERE switch_id = ANY(%s) GROUP BY switch_id"""


def refresh_catalogs(switch_ids: list[int]) -> None:
    """Re-check in one statement the catalogs of these switches that are older than CATALOG_TTL_S:
    one whose Series rows are unchanged is kept a TTL more; a changed one is read again. Each switch
    read all its Series rows every minute before: at 100,000 ports ~35 reads of ~500 rows a second,
    a tenth of a poller's CPU (docs/benchmarks.md, figure 6); now a digest per switch, computed in
    the database, for a slot's switches at once. The database being down leaves them as they are."""
    now = time.monotonic()
    stale = [sid for sid in switch_ids
             if (cat := _catalogs.get(sid)) is not None and now - cat.loaded_at > CATALOG_TTL_S]
    if not stale:
        return
    try:
        with connection.cursor() as cur:
            cur.execute(_DIGESTS_SQL, [stale])
            digests = dict(cur.fetchall())
    except DB_DOWN:
        return
    for sid in stale:
        cat = _catalogs[sid]
        digest = digests.get(sid)
        if digest is not None and digest == cat.digest:
            cat.loaded_at = now
            continue
        cat.loaded_at = -CATALOG_TTL_S                   # read again now (the plan kept if unchanged)
        catalog_of(sid).digest = digest


def _create_series(switch: Switch, profile_name: str, result: PollResult, keys: list[SeriesKey]) -> None:
    """Series the poll saw first: attach them to the port/VP/VC discovery knows, if any yet."""
    new = []
    known = Entities(switch)
    profile = get_profile(profile_name)
    for key in keys:
        object_name, index = key
        counter = profile.counter(object_name)
        if counter is None:   # a discontinuity-time column or scalar
            port = known.ports.get(index) if index != "0" else None
            new.append(Series(switch=switch, object_name=object_name, index=index, kind="discontinuity",
                              port=port, metric="discontinuity", unit="ticks", width=32))
            continue
        port, vp, vc = known.of(counter.entity, index)
        new.append(Series(
            switch=switch, object_name=object_name, index=index, kind="counter", port=port, vp=vp, vc=vc,
            direction=counter.direction, metric=counter.metric, unit=counter.unit,
            width=result.readings[key].width,
            capacity_per_s=capacity_per_s(counter.unit, port.speed_bps, port.capacity_cells) if port else None))
    Series.objects.bulk_create(new, ignore_conflicts=True)


def _reset_key(profile_name: str, key: SeriesKey) -> SeriesKey | None:
    profile = get_profile(profile_name)
    if profile.reset_time:
        return (profile.reset_time, "0")
    if profile.row_discontinuity:
        return (profile.row_discontinuity, key[1].split(".")[0])
    return None


def resolve_plan(switch: Switch, profile_name: str, result: PollResult) -> RowPlan:
    """resolve_slots as a RowPlan; the last one is reused while the poll's keys, their order
    and their widths are those it was made from (the usual case: one dict-free check)."""
    cat = catalog_of(switch.id)
    plan = cat.plan
    if plan is not None and plan.matches(result):
        widths = [r.width for r in result.readings.values()]
        if widths == cat.plan_widths:
            return plan
    layout_id, slots = resolve_slots(switch, profile_name, result)
    cat = catalog_of(switch.id)
    cat.plan = RowPlan(layout_id, slots, tuple(result.readings), tuple(result.discontinuity))
    cat.plan_widths = [r.width for r in result.readings.values()]
    return cat.plan


def resolve_slots(switch: Switch, profile_name: str, result: PollResult) -> tuple[int, list[SeriesSlot]]:
    """The layout (ordered series) of this poll, creating series and layout when new."""
    cat = catalog_of(switch.id)
    keys = sorted(result.readings) + sorted(result.discontinuity)
    unknown = [k for k in keys if k not in cat.by_key]
    if unknown:
        _create_series(switch, profile_name, result, unknown)
        forget(switch.id)
        cat = catalog_of(switch.id)
    slots = []
    for key in keys:
        s = cat.by_key[key]
        reading = result.readings.get(key)
        if s.kind == "counter" and reading is not None and reading.width != s.width:
            # The agent switched between a 64-bit column and its 32-bit fallback (or changed the
            # type it answers): the two columns count apart, so the next row starts a new epoch.
            Series.objects.filter(pk=s.id).update(width=reading.width)
            s.width = reading.width
            cat.signature = None
            cat.width_changed.add(s.id)
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
    """The latest stored row of the switch older than `before`.

    When it is the row this process wrote last (the database says which row it is: its time),
    the copy kept in memory is used instead of reading and decoding its arrays again.
    """
    cat = _catalogs.get(switch_id)
    cached = cat.last_row if cat is not None else None
    with connection.cursor() as cur:
        if cached is not None:
            cur.execute("SELECT time, layout_id, uptime_cs FROM traffic_sample WHERE switch_id = %s AND time < %s "
                        "ORDER BY time DESC LIMIT 1", [switch_id, writer.to_datetime(before)])
            row = cur.fetchone()
            if row is None:
                return None
            if tuple(row) == cached[:3]:
                return cached[3]
        cur.execute(
            "SELECT extract(epoch FROM s.time)::float8, s.uptime_cs, s.raw, l.series_ids, s.layout_id "
            "FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
            "WHERE s.switch_id = %s AND s.time < %s ORDER BY s.time DESC LIMIT 1",
            [switch_id, writer.to_datetime(before)])
        row = cur.fetchone()
    if row is None:
        return None
    at, uptime_cs, raw, series_ids, layout_id = row
    return PreviousRow(at, uptime_cs, None, layout_id, list(series_ids), to_u64_list(raw))


def _withhold_width_changes(row: SampleRow, series_ids: list[int], changed: set[int]) -> None:
    """A value read from the counter's other column is a new epoch: no delta, flag WIDTH (a gap
    flag of the interval stays)."""
    keep = int(Flag.GAP)
    for i, sid in enumerate(series_ids):
        if sid in changed:
            row.delta[i] = None
            row.flags[i] = int(Flag.WIDTH) | (row.flags[i] & keep)


def ingest(result: PollResult, switch: Switch | None = None) -> int:
    """Derive and write one poll; returns rows written (0 when it was already stored).

    `switch`: the row as the caller just read it (runner.poll_once); read here when omitted.
    """
    if switch is None or switch.pk != result.switch_id:
        switch = Switch.objects.get(pk=result.switch_id)
    profile_name = switch.effective_profile
    plan = resolve_plan(switch, profile_name, result)
    settle.reopen_for({switch.id: writer.to_datetime(result.at)})     # a late poll of a settled day
    prev = previous_row(switch.id, result.at)
    row = plan.build(result, prev, float(switch.poll_interval_s))
    cat = catalog_of(switch.id)
    if cat.width_changed:
        _withhold_width_changes(row, plan.series_ids, cat.width_changed)
    written = writer.write_samples([row])
    cat.width_changed.clear()       # written, or already stored: either way the row exists
    if written:
        stored = writer.to_datetime(result.at)
        catalog_of(switch.id).last_row = (stored, row.layout_id, row.uptime_cs, PreviousRow(
            stored.timestamp(), row.uptime_cs, None, row.layout_id, plan.series_ids, row.raw))
        _keep_flagged(switch.id, result, plan, row)
    return written


def _keep_flagged(switch_id: int, result: PollResult, plan: RowPlan, row: SampleRow) -> None:
    """A row just written with a reboot, discontinuity or wrap flag: kept for take_flagged."""
    if any(f & WATCHED_FLAGS for f in row.flags):
        kept = _flagged.setdefault(switch_id, [])
        kept.append((result.at, row.uptime_cs, list(plan.series_ids), list(row.flags)))
        del kept[:-FLAGGED_KEEP]


def ingest_or_spool(result: PollResult, switch: Switch | None = None) -> str:
    """'written' | 'duplicate' | 'spooled'. A database outage spools instead of losing the poll."""
    try:
        if spool.pending(result.switch_id):
            spool.append(result)
            spool.drain(result.switch_id, ingest)
            return "written" if not spool.pending(result.switch_id) else "spooled"
        return "written" if ingest(result, switch) else "duplicate"
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


def previous_rows(wanted: dict[int, float]) -> dict[int, PreviousRow | None]:
    """previous_row for many switches (switch id -> poll time): the rows this process wrote last
    are confirmed in one query; only the others are read one by one (after a restart, once)."""
    cached = {sid: _catalogs[sid].last_row for sid in wanted
              if sid in _catalogs and _catalogs[sid].last_row is not None}
    out: dict[int, PreviousRow | None] = {}
    if cached:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT w.sid, t.time, t.layout_id, t.uptime_cs "
                "FROM unnest(%s::int[], %s::timestamptz[]) AS w(sid, at) "
                "CROSS JOIN LATERAL (SELECT time, layout_id, uptime_cs FROM traffic_sample "
                "WHERE switch_id = w.sid AND time < w.at ORDER BY time DESC LIMIT 1) t",
                [list(cached), [writer.to_datetime(wanted[sid]) for sid in cached]])
            for sid, *latest in cur.fetchall():
                last = cached[sid]
                if last is not None and tuple(latest) == last[:3]:
                    out[sid] = last[3]
    for sid, at in wanted.items():
        if sid not in out:
            out[sid] = previous_row(sid, at)
    return out


def ingest_batch(polls: list[tuple[PollResult, Switch]]) -> dict[int, str]:
    """ingest_or_spool for the polls of one beat slot, in a few round trips whatever their number:
    the previous rows confirmed in one query, every new row in one COPY. Per switch: 'written' |
    'duplicate' | 'spooled'. A switch with spooled polls, or all of them when the database is down,
    go through ingest_or_spool one by one (order and spool kept as for a single poll)."""
    out: dict[int, str] = {}
    batch = []
    for result, switch in polls:
        if spool.pending(result.switch_id):
            out[switch.id] = ingest_or_spool(result, switch)
        else:
            batch.append((result, switch))
    if not batch:
        return out
    try:
        refresh_catalogs([switch.id for _, switch in batch])
        settle.reopen_for({switch.id: writer.to_datetime(result.at) for result, switch in batch})
        prevs = previous_rows({switch.id: result.at for result, switch in batch})
        rows: list[tuple[PollResult, Switch, RowPlan, SampleRow]] = []
        for result, switch in batch:
            plan = resolve_plan(switch, switch.effective_profile, result)
            row = plan.build(result, prevs[switch.id], float(switch.poll_interval_s))
            cat = catalog_of(switch.id)
            if cat.width_changed:
                _withhold_width_changes(row, plan.series_ids, cat.width_changed)
            rows.append((result, switch, plan, row))
        written = writer.write_samples_new([row for *_, row in rows])
    except DB_DOWN as exc:
        log.warning("database unavailable, spooling %d polls: %s", len(batch), exc.__class__.__name__)
        close_old_connections()
        for result, switch in batch:
            out[switch.id] = ingest_or_spool(result, switch)
        return out
    for result, switch, plan, row in rows:
        cat = catalog_of(switch.id)
        cat.width_changed.clear()       # written, or already stored: either way the row exists
        if switch.id in written:
            stored = writer.to_datetime(result.at)
            cat.last_row = (stored, row.layout_id, row.uptime_cs, PreviousRow(
                stored.timestamp(), row.uptime_cs, None, row.layout_id, plan.series_ids, row.raw))
            _keep_flagged(switch.id, result, plan, row)
        out[switch.id] = "written" if switch.id in written else "duplicate"
    return out
