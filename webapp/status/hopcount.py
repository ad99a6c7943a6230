"""Cells counted at every hop of a traced VC path over a window, against what was sent; and one
counted series on its own (`side`: cells, octets or packets, with rates in its unit).

For each hop: cells in (the VC/VP endpoint where cells enter the switch) and cells out (the one
where they leave), each as the interval of values the window can hold given the poll times
(numerics/accounting.py count_window), their average and peak rates, and the verdict against
the expected minimum when the bytes sent are known. Between hops: cells out of one switch
against cells in at the next; counts whose intervals do not overlap lost (or gained) cells on
the link. Beside them, every loss and error counter of the hop in the same window, and the verdicts
that name the counter explaining missing cells (hoplosses.py). The series come from
webapp/status/queries.series_index; the samples from collector/archive/samples.py. Pure apart from
those two reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from collector.archive.samples import window_samples
from numerics.accounting import Count, Expected, Verdict, count_window, rate_mbps, verdict
from webapp.status import hoplosses
from webapp.status.pathmodel import Hop, Trace


@dataclass
class Side:
    series_id: int | None
    count: Count | None
    unit: str = "cells"                   # what count counts: cells, octets or packets
    avg_per_s: float | None = None        # unit/s over the window (the estimate)
    peak_per_s: float | None = None       # the highest one-sample rate inside the window
    avg_line_mbps: float | None = None    # None for packets
    avg_payload_mbps: float | None = None  # cells only (48 of 53 bytes)
    peak_line_mbps: float | None = None
    verdict: Verdict | None = None


@dataclass
class HopCount:
    number: int
    hop: Hop
    cells_in: Side
    cells_out: Side
    link_note: str = ""          # cells out of the previous hop against cells in here
    losses: list[hoplosses.LossCount] = field(default_factory=list)   # what the hop's counters counted
    missing: str = ""            # cells in and not out, and the counter that explains them
    link_missing: str = ""       # cells the previous hop sent that never arrived, and why

    @property
    def findings(self) -> list[str]:
        return [t for t in (self.link_missing, self.missing) if t]


def _endpoint_series(net, idx, port_id: int, vpi: int, vci: int | None, side: str) -> int | None:
    if vci is not None:
        ep = net.vc_ep.get((port_id, vpi, vci))
        return idx.vc.get((ep.id, "cells", side)) if ep else None
    ep = net.vp_ep.get((port_id, vpi))
    return idx.vp.get((ep.id, "cells", side)) if ep else None


def side(sid: int | None, samples: dict, lo: datetime, hi: datetime, expected: Expected | None,
         unit: str = "cells") -> Side:
    cols = samples.get(sid) if sid is not None else None
    if cols is None or not len(cols.t_end):
        return Side(sid, None, unit)
    c = count_window(cols.t_end, cols.span, cols.delta, cols.usable, lo.timestamp(), hi.timestamp())
    seconds = (hi - lo).total_seconds()
    inside = cols.usable & (cols.t_end - cols.span >= lo.timestamp()) & (cols.t_end <= hi.timestamp()) & \
        (cols.span > 0)
    peak = float((cols.delta[inside] / cols.span[inside]).max()) if inside.any() else None
    avg = c.estimate / seconds
    line, payload = rate_mbps(unit, avg)
    judged = verdict(c, expected.value, unit=unit) if expected and expected.value else None
    return Side(sid, c, unit, avg, peak, line, payload, None if peak is None else rate_mbps(unit, peak)[0], judged)


def _link_note(prev: Side, here: Side) -> str:
    a, b = prev.count, here.count
    if a is None or b is None or a.high is None or b.high is None:
        return ""
    if b.high < a.low:
        return f"at least {a.low - b.high:,} cells sent on the link did not arrive"
    if b.low > a.high:
        return f"at least {b.low - a.high:,} more cells arrived than were sent on the link"
    return "consistent with the cells sent on the link"


def account(net, idx, trace: Trace, lo: datetime, hi: datetime, expected: Expected | None = None) -> list[HopCount]:
    wanted: dict[tuple[int, str], int | None] = {}
    losses = {i: hoplosses.series_of(net, idx, h) for i, h in enumerate(trace.hops)}
    for i, h in enumerate(trace.hops):
        wanted[(i, "in")] = _endpoint_series(net, idx, h.in_port.id, h.in_vpi, h.in_vci, "in")
        wanted[(i, "out")] = _endpoint_series(net, idx, h.out_port.id, h.out_vpi, h.out_vci, "out")
    loss_ids = {found[0] for hop_found in losses.values() for found in hop_found}
    samples = window_samples(sorted({s for s in wanted.values() if s is not None} | loss_ids), lo, hi)
    loss_counts = {sid: side(sid, samples, lo, hi, None).count for sid in loss_ids}
    out: list[HopCount] = []
    for i, h in enumerate(trace.hops):
        row = HopCount(i + 1, h, side(wanted[(i, "in")], samples, lo, hi, expected),
                       side(wanted[(i, "out")], samples, lo, hi, expected))
        row.losses = hoplosses.counted(losses[i], loss_counts)
        row.missing = hoplosses.inside_verdict(row.number, h.switch.name, row.cells_in.count, row.cells_out.count,
                                               row.losses)
        if out:
            row.link_note = _link_note(out[-1].cells_out, row.cells_in)
            prev = out[-1]
            sent, sent_as = hoplosses.sent_by(prev.number, prev.cells_in.count, prev.cells_out.count, prev.losses)
            row.link_missing = hoplosses.link_verdict(row.number, sent, row.cells_in.count, row.losses, sent_as)
        out.append(row)
    return out
