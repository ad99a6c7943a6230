"""From a stored sample row's flags to the facts that become events: pure, no Django.

One event per switch per fact per poll, never one per counter (docs/events.md):
- reboot: any counter flagged REBOOT (the agent's uptime went back: counters began again);
- discontinuity: any counter flagged RESET (the agent says it reset its counters: a
  discontinuity time moved) or WIDTH (read from its other column: a new epoch);
- wrap: any counter whose delta crossed a wrap (exact; routine for a busy Counter32: polled.py
  records at most one an hour per switch).
A reboot names the whole switch; a discontinuity and a wrap name the series concerned (at most
MAX_SERIES of them, the count is exact), so a plot draws them only where they apply.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core.facts import Flag

MAX_SERIES = 2000          # series ids kept in one event's data (the count is always exact)
WATCHED = int(Flag.REBOOT | Flag.RESET | Flag.WIDTH | Flag.WRAP)


@dataclass(frozen=True)
class FlaggedRow:
    """What ingest kept of a stored row with a watched flag (collector/archive/ingest.py)."""
    switch_id: int
    at: float                    # poll time, epoch seconds
    uptime_cs: int | None
    series_ids: list[int]
    flags: list[int]


@dataclass(frozen=True)
class RowFact:
    kind: str                    # reboot | discontinuity | wrap
    message: str
    data: dict


def facts(row: FlaggedRow) -> list[RowFact]:
    reboot, reset, wrap = [], [], []
    for sid, f in zip(row.series_ids, row.flags):
        if f & Flag.REBOOT:
            reboot.append(sid)
        elif f & (Flag.RESET | Flag.WIDTH):
            reset.append(sid)
        if f & Flag.WRAP:
            wrap.append(sid)
    out = []
    if reboot:
        up = f" (up {row.uptime_cs / 100:,.0f} s: restarted about then)" if row.uptime_cs is not None else ""
        out.append(RowFact("reboot", f"agent restarted: uptime went back{up}; {len(reboot)} counters began again",
                           {"counters": len(reboot), "uptime_cs": row.uptime_cs,
                            "booted_at": row.at - row.uptime_cs / 100 if row.uptime_cs is not None else None}))
    if reset:
        out.append(RowFact("discontinuity", f"{len(reset)} counter{'s' if len(reset) > 1 else ''} reset by the agent "
                           "(a discontinuity: no delta across it)",
                           {"counters": len(reset), "series": reset[:MAX_SERIES]}))
    if wrap:
        out.append(RowFact("wrap", f"{len(wrap)} counter{'s' if len(wrap) > 1 else ''} wrapped (deltas exact)",
                           {"counters": len(wrap), "series": wrap[:MAX_SERIES]}))
    return out
