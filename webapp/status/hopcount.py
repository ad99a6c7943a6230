"""Cells counted at every hop of a traced VC path over a window, against what was sent.

For each hop: cells in (the VC/VP endpoint where cells enter the switch) and cells out (the one
where they leave), each as the interval of values the window can hold given the poll times
(analysis/accounting.py count_window), their average and peak rates, and the verdict against
the expected minimum when the bytes sent are known. Between hops: cells out of one switch
against cells in at the next; counts whose intervals do not overlap lost (or gained) cells on
the link. The series come from webapp/status/queries.series_index; the samples from
collector/archive/samples.py. Pure apart from those two reads.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from analysis.accounting import Count, Verdict, count_window, verdict
from analysis.window import payload_bps
from collector.archive.samples import window_samples
from collector.core.facts import CELL_BITS
from webapp.status.pathmodel import Hop, Trace


@dataclass
class Side:
    series_id: int | None
    count: Count | None
    avg_line_mbps: float | None = None
    avg_payload_mbps: float | None = None
    peak_line_mbps: float | None = None
    verdict: Verdict | None = None


@dataclass
class HopCount:
    number: int
    hop: Hop
    cells_in: Side
    cells_out: Side
    link_note: str = ""          # cells out of the previous hop against cells in here


def _endpoint_series(net, idx, port_id: int, vpi: int, vci: int | None, side: str) -> int | None:
    if vci is not None:
        ep = net.vc_ep.get((port_id, vpi, vci))
        return idx.vc.get((ep.id, "cells", side)) if ep else None
    ep = net.vp_ep.get((port_id, vpi))
    return idx.vp.get((ep.id, "cells", side)) if ep else None


def side(sid: int | None, samples: dict, lo: datetime, hi: datetime, expected: int | None) -> Side:
    cols = samples.get(sid) if sid is not None else None
    if cols is None or not len(cols.t_end):
        return Side(sid, None)
    c = count_window(cols.t_end, cols.span, cols.delta, cols.usable, lo.timestamp(), hi.timestamp())
    seconds = (hi - lo).total_seconds()
    inside = cols.usable & (cols.t_end - cols.span >= lo.timestamp()) & (cols.t_end <= hi.timestamp()) & \
        (cols.span > 0)
    peak = float((cols.delta[inside] / cols.span[inside]).max()) if inside.any() else None
    return Side(sid, c, c.estimate / seconds * CELL_BITS / 1e6, payload_bps(c.estimate / seconds) / 1e6,
                None if peak is None else peak * CELL_BITS / 1e6,
                verdict(c, expected) if expected else None)


def _link_note(prev: Side, here: Side) -> str:
    a, b = prev.count, here.count
    if a is None or b is None or a.high is None or b.high is None:
        return ""
    if b.high < a.low:
        return f"at least {a.low - b.high:,} cells sent on the link did not arrive"
    if b.low > a.high:
        return f"at least {b.low - a.high:,} more cells arrived than were sent on the link"
    return "consistent with the cells sent on the link"


def account(net, idx, trace: Trace, lo: datetime, hi: datetime, expected: int | None = None) -> list[HopCount]:
    wanted = {}
    for i, h in enumerate(trace.hops):
        wanted[(i, "in")] = _endpoint_series(net, idx, h.in_port.id, h.in_vpi, h.in_vci, "in")
        wanted[(i, "out")] = _endpoint_series(net, idx, h.out_port.id, h.out_vpi, h.out_vci, "out")
    samples = window_samples([s for s in wanted.values() if s is not None], lo, hi)
    out: list[HopCount] = []
    for i, h in enumerate(trace.hops):
        row = HopCount(i + 1, h, side(wanted[(i, "in")], samples, lo, hi, expected),
                       side(wanted[(i, "out")], samples, lo, hi, expected))
        if out:
            row.link_note = _link_note(out[-1].cells_out, row.cells_in)
        out.append(row)
    return out
