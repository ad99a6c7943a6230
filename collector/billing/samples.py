"""A bill's raw samples: per switch and poll, the drawn deltas of its series summed per direction.

Read from traffic_sample (the archived deltas, exact across wraps and reboots: derived once at
ingest by collector/core/counters.py), never from the rollup tiers, so a bill is the same
number before and after any re-rollup. One statement per switch; each wanted series is read by
its array position (collector/archive/positions.py), its delta counted when drawn
(collector/archive/rollup.py drawn_sql: the plots' and tiers' rule) and converted to bytes on
the wire (a cell is 53 bytes: collector/core/facts.py).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.db import connection, transaction

from collector.archive import settled_read
from collector.archive.positions import Positions, layout_positions, position_expr
from collector.archive.rollup import drawn_sql
from collector.core.facts import CELL_BYTES
from numerics.billing import Stream, stream

# Samples ending this long after a period can still cover part of it (a poll after an outage:
# its delta is spread over the whole gap); read them, the spreading keeps only the part inside.
LOOKAHEAD = timedelta(days=1)
BYTES_PER_UNIT = {"cells": CELL_BYTES, "octets": 1}


@dataclass(frozen=True)
class Billed:
    """A series as a bill reads it."""
    id: int
    switch_id: int
    direction: str          # in | out
    bytes_per_unit: int


def _sum_sql(series: Sequence[Billed], positions: Positions) -> tuple[str, str]:
    """(volume in bytes, any drawn) of these series in one sample row, as SQL."""
    terms, drawn = [], []
    for s in series:
        pos = position_expr(positions, s.id)
        d, f = f"s.delta[{pos}]", f"s.flags[{pos}]"
        ok = drawn_sql(d, f, "s.interval_ms")
        terms.append(f"CASE WHEN {ok} THEN {d} * {int(s.bytes_per_unit)} ELSE 0 END")
        drawn.append(ok)
    if not terms:
        return "0::bigint", "false"
    return f"({' + '.join(terms)})::bigint", f"({' OR '.join(drawn)})"


def switch_sql(series: Sequence[Billed], positions: Positions, source: str = "traffic_sample") -> str:
    vol_in, has_in = _sum_sql([s for s in series if s.direction == "in"], positions)
    vol_out, has_out = _sum_sql([s for s in series if s.direction == "out"], positions)
    layouts = ",".join(str(int(x)) for x in sorted(positions)) or "NULL"
    # The arrays are decompressed once per row in the subquery (OFFSET 0 keeps it apart), not
    # once per subscript (collector/reader/queries.py says why).
    return f"""
SELECT extract(epoch FROM s.time)::float8, coalesce(s.interval_ms, 0)::float8 / 1000,
       {vol_in}, {vol_out}, {has_in}, {has_out}
  FROM (SELECT time, interval_ms, layout_id, delta[:] AS delta, flags[:] AS flags FROM {source} t
         WHERE switch_id = %(switch)s AND time > %(lo)s AND time < %(hi)s AND layout_id IN ({layouts})
        OFFSET 0) s
 ORDER BY s.time"""


def read(series: Sequence[Billed], lo: datetime, hi: datetime) -> list[Stream]:
    """One stream per switch: the samples that end after `lo` and may cover time before `hi`."""
    by_switch: dict[int, list[Billed]] = defaultdict(list)
    for s in series:
        by_switch[s.switch_id].append(s)
    positions = layout_positions(list(by_switch), {s.id for s in series})
    pieces = {p.switch_id: p for p in settled_read.pieces_for([(s.id, s.switch_id) for s in series], lo,
                                                                hi + LOOKAHEAD)}
    positions = settled_read.with_staged(positions, list(pieces.values()))
    out = []
    with transaction.atomic(), connection.cursor() as cur:
        for switch_id, mine in sorted(by_switch.items()):
            pos = positions.get(switch_id, {})
            if not pos:
                continue
            piece = pieces.get(switch_id)
            if piece is not None:       # its settled days, staged for this statement (settled_read)
                settled_read.stage(cur, [piece])
            cur.execute(switch_sql(mine, pos, settled_read.SOURCE if piece else "traffic_sample"),
                        {"switch": switch_id, "lo": lo, "hi": hi + LOOKAHEAD})
            rows = cur.fetchall()
            if not rows:
                continue
            cols = list(zip(*rows))
            out.append(stream(np.asarray(cols[0]), np.asarray(cols[1]), np.asarray(cols[2], dtype=np.int64),
                              np.asarray(cols[3], dtype=np.int64), np.asarray(cols[4], dtype=bool),
                              np.asarray(cols[5], dtype=bool)))
    return out
