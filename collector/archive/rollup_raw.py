"""The raw rollup step: a range of raw samples (their rows and their settled days) into the
1-minute tier's buckets, computed in numpy (collector/core/minutes.py) and written by COPY.

Called by collector/archive/rollup.py execute inside its step's transaction, after the step has
deleted its range. The rows of traffic_sample are read in binary by a server-side cursor in switch
and time order (the primary key's), a few thousand at a time, so a step of six hours at 100,000
ports holds one batch of switches in memory, not the step; a switch's polls become one matrix
(polls x series) reduced at once. Settled days in the range (a recompute: collector/archive/settle.py
keeps them as blocks) are decoded beside the rows (collector/archive/settled_read.py read). The
buckets are written sorted by series, the primary key's order: in an unsorted COPY its index took
twice the time.

Counter series only: the few series of other kinds (one per port at most) are left out by id, so
that a layout naming a series deleted since still has its buckets written, as before.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from django.db import connection
from psycopg.adapt import Loader
from psycopg.pq import Format

from collector.archive import settled_read, tier_read
from collector.archive.rollup_plan import Step
from collector.archive.tiers import TIER_COLUMNS, Tier
from collector.core import minutes
from collector.core.isotime import PG_EPOCH_S

FETCH_ROWS = 2000          # sample rows a fetch brings (each ~500 values of 3 arrays)
FLUSH_BUCKETS = 500_000    # buckets held before they are written
# A layout's series never change (a new set is a new layout): kept for the process.
_LAYOUTS: dict[int, np.ndarray] = {}

# NULL deltas come as zeros with their 1-based positions beside (array_positions), so every array is
# one of fixed-width elements that numpy reads at once.
ROWS_SQL = ("SELECT switch_id, (extract(epoch FROM time) * 1000000)::int8, interval_ms, layout_id, "
            "array_replace(delta, NULL, 0::int8), array_positions(delta, NULL), flags FROM traffic_sample "
            "WHERE time >= %(lo)s AND time < %(hi)s{switch} ORDER BY switch_id, time")
_ARRAYS = {1016: ">i8", 1005: ">i2", 1007: ">i4"}      # bigint[], smallint[], int[]


class _Bytes(Loader):
    format = Format.BINARY

    def load(self, data) -> bytes:
        return bytes(data)


def parse(data: bytes, element: str) -> np.ndarray:
    """A one-dimensional binary array without NULLs (array_send's format: see
    collector/reader/pgbinary.py) as numpy values."""
    if int.from_bytes(data[0:4], "big") == 0:
        return np.zeros(0, np.int64)
    n = int.from_bytes(data[12:16], "big")
    record = np.dtype([("len", ">i4"), ("value", element)])
    if int.from_bytes(data[4:8], "big") or len(data) != 20 + n * record.itemsize:
        raise ValueError(f"not an array of {n} fixed-width values without NULLs")
    return np.frombuffer(data, record, count=n, offset=20)["value"].astype(np.int64)


def insert(cur, tier: Tier, step: Step) -> int:
    """The tier's buckets of [step.lo, step.hi) (one switch's, or every switch's) inserted; returns
    how many."""
    one = step.switch_id is not None
    cur.execute("SELECT id FROM traffic_series WHERE kind <> 'counter'" + (" AND switch_id = %s" if one else ""),
                [step.switch_id] if one else [])
    others = np.array(sorted(r[0] for r in cur.fetchall()), np.int64)
    settled = _settled_switches(cur, step)
    written, held, holding = 0, [], 0
    for parts in _switch_parts(step, settled):
        polls = minutes.combine(parts)
        got = minutes.aggregate(polls, tier.seconds, _not_in(polls.series_ids, others))
        held.append(got)
        holding += len(got["sid"])
        if holding >= FLUSH_BUCKETS:
            written += _write(cur, tier, held)
            held, holding = [], 0
    return written + _write(cur, tier, held)


def _not_in(ids: np.ndarray, others: np.ndarray) -> np.ndarray | None:
    """Where ids (sorted) are not among `others` (sorted); None when none is (np.isin hashed all of
    `others` at every call: 100,000 of them, 2,000 switches, 100 s a step)."""
    if not len(others):
        return None
    at = np.minimum(np.searchsorted(others, ids), len(others) - 1)
    return others[at] != ids


def _settled_switches(cur, step: Step) -> dict[int, list[int]]:
    """Switches with settled polls in the step's range -> their counter series (one probe of
    traffic_settled_poll's index when there are none: every forward step)."""
    one = step.switch_id is not None
    cur.execute("SELECT DISTINCT switch_id FROM traffic_settled_poll WHERE lo > %s AND lo < %s"
                + (" AND switch_id = %s" if one else ""),
                [step.lo - settled_read.DAY, step.hi] + ([step.switch_id] if one else []))
    switches = sorted(r[0] for r in cur.fetchall())
    if not switches:
        return {}
    cur.execute("SELECT switch_id, array_agg(id ORDER BY id) FROM traffic_series WHERE kind = 'counter' "
                "AND switch_id = ANY(%s) GROUP BY 1", [switches])
    return {sw: list(ids) for sw, ids in cur.fetchall()}


def _switch_parts(step: Step, settled: dict[int, list[int]]) -> Iterator[list[minutes.Part]]:
    """Per switch in order, its polls in the step's range: a part per layout of its rows, and its
    settled days' polls."""
    connection.ensure_connection()
    conn = connection.connection
    one = step.switch_id is not None
    with conn.cursor(name="cellar_rollup_raw", binary=True) as rows:
        for oid in _ARRAYS:
            rows.adapters.register_loader(oid, _Bytes)
        rows.execute(ROWS_SQL.format(switch=" AND switch_id = %(switch)s" if one else ""),
                     {"lo": step.lo, "hi": step.hi, "switch": step.switch_id})
        pending = sorted(settled)
        current: int | None = None
        group: list[tuple] = []
        while batch := rows.fetchmany(FETCH_ROWS):
            _layouts({r[3] for r in batch})          # the batch's new layouts in one query
            for row in batch:
                if row[0] != current:
                    if current is not None:
                        yield from _flush_settled(pending, current, step, settled)
                        yield _parts(current, group, step, settled)
                    current, group = row[0], []
                group.append(row)
        if current is not None:
            yield from _flush_settled(pending, current, step, settled)
            yield _parts(current, group, step, settled)
        yield from _flush_settled(pending, None, step, settled)


def _flush_settled(pending: list[int], before: int | None, step: Step,
                   settled: dict[int, list[int]]) -> Iterator[list[minutes.Part]]:
    """Switches with settled polls only (no rows in the range) that come before `before` (None: all)."""
    while pending and (before is None or pending[0] < before):
        sw = pending.pop(0)
        yield _settled_parts(sw, step, settled)
    if pending and pending[0] == before:
        pending.pop(0)


def _parts(switch_id: int, group: list[tuple], step: Step, settled: dict[int, list[int]]) -> list[minutes.Part]:
    layouts = _layouts({r[3] for r in group})
    by_layout: dict[int, list[tuple]] = {}
    for r in group:
        by_layout.setdefault(r[3], []).append(r)
    out = []
    for layout_id, rs in by_layout.items():
        ids = layouts[layout_id]
        delta = np.vstack([parse(r[4], ">i8") for r in rs]) if rs else np.zeros((0, len(ids)), np.int64)
        null = np.zeros(delta.shape, bool)
        for i, r in enumerate(rs):
            if r[5]:
                null[i, parse(r[5], ">i4") - 1] = True
        flags = np.vstack([parse(r[6], ">i2") for r in rs])
        if delta.shape[1] != len(ids) or flags.shape[1] != len(ids):
            raise ValueError(f"switch {switch_id}: sample arrays of another length than layout {layout_id}")
        interval = [r[2] for r in rs]
        out.append(minutes.Part(np.array([r[1] for r in rs], np.int64),
                                np.array([0 if v is None else v for v in interval], np.int64),
                                np.array([v is None for v in interval]), ids, delta, null, flags))
    if switch_id in settled:
        out.extend(_settled_parts(switch_id, step, settled))
    return out


def _settled_parts(switch_id: int, step: Step, settled: dict[int, list[int]]) -> list[minutes.Part]:
    ids = settled.get(switch_id, [])
    got = settled_read.read(switch_id, ids, step.lo, step.hi)
    keep = got.time_us < settled_read.to_us(step.hi)
    if not keep.any() or not ids:
        return []
    cols = [got.columns[sid] for sid in ids]

    def stack(field: str) -> np.ndarray:
        return np.stack([getattr(c, field)[keep] for c in cols], axis=1)
    return [minutes.Part(got.time_us[keep], got.interval_ms[keep], got.interval_null[keep], np.array(ids, np.int64),
                         stack("delta"), stack("delta_null"), stack("flags"), stack("present"))]


def _layouts(ids: set[int]) -> dict[int, np.ndarray]:
    missing = sorted(i for i in ids if i not in _LAYOUTS)
    if missing:
        with connection.cursor() as cur:
            cur.execute("SELECT id, series_ids FROM traffic_layout WHERE id = ANY(%s)", [missing])
            for lid, sids in cur.fetchall():
                _LAYOUTS[lid] = np.array(sids, np.int64)
    return {i: _LAYOUTS[i] for i in ids}


def _write(cur, tier: Tier, held: list[minutes.Buckets]) -> int:
    got = minutes.concat(held)
    n = len(got["sid"])
    if not n:
        return 0
    order = np.lexsort((got["t"], got["sid"]))
    cols = {k: v[order] for k, v in got.items()}
    cols["t"] = (cols["t"] - PG_EPOCH_S) * 1_000_000
    with cur.copy(f"COPY {tier.table} ({TIER_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.write(tier_read.copy_binary(cols, null_rates=True))
    return n
