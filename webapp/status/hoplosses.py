"""Where a VCC lost its cells: every loss and error counter of a traced path's hops over the window,
beside the cell counts, and the verdicts that name the counter explaining missing cells.

A hop's counters are those of the four places its cells pass: the VC/VP endpoint they enter by and
its port, the endpoint they leave by and its port (mibs/README.md "Loss counters" says which
profile counts which metric where). Cells missing between a hop's in and out counts are explained
by the counters of the switch itself (policed, discarded, lost at an output buffer, overflowed);
cells sent by one hop that the next never counts in are explained by the receiving port's line
errors (uncorrectable HEC: ifInErrors, OCD events). A FORE switch counts no line errors: such a
loss is found by the counts alone, and said so. Pure apart from the samples it is given.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core.names import METRIC_WORD
from numerics.accounting import Count

# Counters of cells (or PDUs, events) lost or marked inside a switch, and on the link into it.
INSIDE = ("rejected_cells", "discards", "clp0_discards", "lost_cells", "overflow_cells", "unknown_cells")
LINE = ("errors", "ocd_events")
MARKED = ("tagged_cells", "crc_errors", "sar_timeouts", "oversized_sdus")
METRICS = INSIDE + LINE + MARKED
EXPLAINS = 0.5        # a counter explains missing cells when it counted at least half of them
# Estimates (not proofs) of missing cells: more than 1 % of the cells (and FEWEST) is a loss on its
# own; more than 0.1 % (the tolerance of the run verdicts) when a counter of the hop explains it.
# Below, time-shared straddling polls of bursty traffic could make the difference.
SIGNIFICANT = 0.01
CORROBORATED = 0.001
FEWEST = 10


@dataclass
class LossCount:
    series_id: int
    where: str                 # "asx200bx-b A4 VC 0/210", "atm2sw atm1/0/0"
    metric: str
    direction: str
    count: Count
    level: int = 0             # 2 a VC, 1 a VP, 0 a port: the verdict names the most specific

    @property
    def words(self) -> str:
        return METRIC_WORD.get(self.metric, self.metric)

    @property
    def text(self) -> str:
        return f"{self.where} counted {self.count.estimate:,.0f} {self.words}"


def places(hop) -> list[tuple[str, int | None, int | None, int | None, str]]:
    """(where, port id, vpi, vci, side) of the four places a hop's cells pass."""
    out = []
    for side, port, vpi, vci in (("in", hop.in_port, hop.in_vpi, hop.in_vci),
                                 ("out", hop.out_port, hop.out_vpi, hop.out_vci)):
        base = f"{hop.switch.name} {port.name}"
        out.append((base + (f" VC {vpi}/{vci}" if vci is not None else f" VP {vpi}"), port.id, vpi, vci, side))
        out.append((base, port.id, None, None, side))
    return out


def series_of(net, idx, hop) -> list[tuple[int, str, str, str, int]]:
    """(series id, where, metric, direction, level) of every loss counter at a hop's places."""
    found = []
    for where, port_id, vpi, vci, _side in places(hop):
        level = 2 if vci is not None else 1 if vpi is not None else 0
        if vci is not None:
            ep = net.vc_ep.get((port_id, vpi, vci))
            table, key = idx.vc, ep.id if ep else None
        elif vpi is not None:
            ep = net.vp_ep.get((port_id, vpi))
            table, key = idx.vp, ep.id if ep else None
        else:
            table, key = idx.port, port_id
        if key is None:
            continue
        for metric in METRICS:
            for direction in ("in", "out", ""):
                sid = table.get((key, metric, direction))
                if sid is not None:
                    found.append((sid, where, metric, direction, level))
    return found


def counted(found, counts: dict[int, Count | None]) -> list[LossCount]:
    """The counters that counted something in the window, the largest first."""
    out = [LossCount(sid, where, metric, direction, c, level) for sid, where, metric, direction, level in found
           if (c := counts.get(sid)) is not None and c.estimate > 0]
    return sorted(out, key=lambda lc: -lc.count.estimate)


def _explained(missing: float, candidates: list[LossCount]) -> LossCount | None:
    """The counter that explains `missing` cells: of those that counted at least EXPLAINS of them,
    the most specific (a VC's lost cells rather than its port's, which also counts other VCs), then
    the largest."""
    enough = [lc for lc in candidates if lc.count.estimate >= EXPLAINS * missing]
    return max(enough, key=lambda lc: (lc.level, lc.count.estimate)) if enough else None


def _missing(before: Count | None, after: Count | None,
             candidates: list[LossCount]) -> tuple[float, str, LossCount | None] | None:
    """Cells counted at `before` and not at `after`: the estimate, how sure it is and the counter
    that explains them, or None when none are missing. The ranges prove a loss only when they do
    not overlap; a window whose edges fall between polls seldom gives that, so a loss the estimates
    show (pro-rated by time) is reported too, and said to be an estimate."""
    if before is None or after is None or after.high is None:
        return None
    missing = before.estimate - after.estimate
    best = _explained(missing, candidates)
    if before.low > after.high:
        return missing, f"at least {before.low - after.high:,}", best
    share = SIGNIFICANT if best is None else CORROBORATED
    if missing > max(share * before.estimate, FEWEST):
        return missing, "estimated: the polls around the window's edges could hold them", best
    return None


def inside_verdict(number: int, switch: str, cells_in: Count | None, cells_out: Count | None,
                   losses: list[LossCount]) -> str:
    """Cells that entered a hop and did not leave it, and the counter that says why."""
    found = _missing(cells_in, cells_out, [lc for lc in losses if lc.metric in INSIDE])
    if found is None:
        return ""
    missing, sure, best = found
    head = f"hop {number} ({switch}): {missing:,.0f} cells missing between in and out ({sure})"
    if best is None:
        return head + "; no counter of the switch explains them"
    return f"{head}; {best.text}"


def link_verdict(number: int, prev_out: Count | None, cells_in: Count | None, losses: list[LossCount],
                 sent_as: str = "") -> str:
    """Cells the previous hop sent that this one never counted in, and the counter that says why.
    sent_as says what stands for the cells sent when the previous hop counts none out."""
    found = _missing(prev_out, cells_in, [lc for lc in losses if lc.metric in LINE])
    if found is None:
        return ""
    missing, sure, best = found
    sent = f"cells sent ({sent_as})" if sent_as else "cells sent"
    head = f"link into hop {number}: {missing:,.0f} {sent} did not arrive ({sure})"
    if best is None:
        return head + "; the receiving port counts no line errors for them (a FORE port has no such counter)"
    return f"{head}; {best.text}"


def sent_by(number: int, cells_in: Count | None, cells_out: Count | None,
            losses: list[LossCount]) -> tuple[Count | None, str]:
    """What a hop sent on toward the next: its cells out, or, on a switch that counts no cells out
    per VC (a FORE ASX without shared-memory output counters), its cells in when none of its
    counters lost any; and the words for that stand-in."""
    if cells_out is not None or cells_in is None or any(lc.metric in INSIDE for lc in losses):
        return cells_out, ""
    return cells_in, f"counted in at hop {number}, which counts none out on this VC and lost none by its counters"
