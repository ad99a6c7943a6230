"""Where a series sits in a sample row's arrays: its 1-based position in each layout of its switch.

Raw samples are read by array position (one subscript per wanted series) instead of unnesting
every counter of the row: the plots' raw reads, the raw CSV and the bills' sample reads
(collector/billing/samples.py) all look positions up here.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from django.db import connection

Positions = dict[int, dict[int, int]]   # layout id -> series id -> 1-based array position


def layout_positions(switch_ids: Sequence[int], wanted: set[int]) -> dict[int, Positions]:
    """switch id -> layout id -> {series id: position} for the wanted series."""
    out: dict[int, Positions] = defaultdict(dict)
    with connection.cursor() as cur:
        cur.execute("SELECT id, switch_id, series_ids FROM traffic_layout WHERE switch_id = ANY(%s)",
                    [list(switch_ids)])
        for layout_id, switch_id, ids in cur.fetchall():
            hits = {sid: i + 1 for i, sid in enumerate(ids) if sid in wanted}
            if hits:
                out[switch_id][layout_id] = hits
    return out


def position_expr(positions: Positions, series_id: int, layout_col: str = "s.layout_id") -> str:
    """SQL: the series' position in the row's layout (NULL where the layout lacks it)."""
    whens = " ".join(f"WHEN {int(lay)} THEN {int(pos[series_id])}"
                     for lay, pos in sorted(positions.items()) if series_id in pos)
    return f"(CASE {layout_col} {whens} END)" if whens else "NULL::int"
