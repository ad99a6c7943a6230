"""An experiment run counted: its window at every hop of its VCC path (or its PVC's path) and on
each series it names, each in the unit its counter counts, against what the application sent in
that unit (numerics/accounting.py: AAL5 cells on ATM, bytes plus per-frame headers on Ethernet,
frames on packet counters). One computation that the run's page, its CSV and /runs/api/<id> show.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from collector.archive.models import Series
from collector.archive.samples import window_samples
from collector.core.isotime import iso
from collector.runs import series, spec
from collector.runs.models import ExperimentRun
from numerics.accounting import Expected, expected, medium
from webapp.status import hopcount, hoplosses
from webapp.status import queries as q


@dataclass
class Chosen:
    series: Series
    name: str                     # as plots name it (series.label)
    expected: Expected | None     # None: no bytes sent given
    side: hopcount.Side


@dataclass
class Accounting:
    end: datetime                 # the run's end, or now while it goes on
    seconds: float
    expected: list[Expected]      # one per unit and medium the run counts, in the order met
    conn: object | None           # pathmodel.Connection between the run's hosts
    hops: list[hopcount.HopCount]
    chosen: list[Chosen]


def _expect(run: ExperimentRun, unit: str, medium_key: str) -> Expected | None:
    if run.bytes_sent is None:
        return None
    return expected(unit, medium_key, run.bytes_sent, run.message_size, run.overhead)


def _trace(run: ExperimentRun):
    """(connection between the run's hosts or None, the traced path or None, the network)."""
    net = q.load_network(rates=False).net
    conn, trace = None, None
    if run.src_host_id and run.dst_host_id:
        src, dst = net.hosts.get(run.src_host_id), net.hosts.get(run.dst_host_id)
        conn = net.connection(src, dst) if src and dst else None
        trace = conn.forward[0] if conn and conn.forward else None
    elif run.channel is not None:
        port = net.ports.get(run.channel.port_id)
        trace = net.trace_endpoint(port, run.channel.vpi, run.channel.vci) if port else None
    return conn, trace, net


def account(run: ExperimentRun) -> Accounting:
    """ValueError when the window is longer than raw samples are read for at once."""
    end = run.end or timezone.now()
    conn, hops, wanted = None, [], []
    cells = _expect(run, "cells", "atm")
    if (run.src_host_id and run.dst_host_id) or run.channel_id:
        conn, trace, net = _trace(run)
        wanted.append(cells)
        if trace is not None:
            hops = hopcount.account(net, q.series_index({h.switch.id for h in trace.hops}), trace, run.start, end,
                                    cells)
    named = list(run.series.select_related("switch", "port", "vp", "vc").order_by("id"))
    samples = window_samples([s.id for s in named], run.start, end) if named else {}
    chosen = []
    for s in named:
        port = s.port
        key = medium(s.unit, port.port_type if port else "", bool(port.is_atm) if port else s.unit == "cells",
                     not s.vp_id and not s.vc_id)
        exp = _expect(run, s.unit, key)
        chosen.append(Chosen(s, series.label(s), exp, hopcount.side(s.id, samples, run.start, end, exp, s.unit)))
        wanted.append(exp)
    seen: dict[tuple, Expected] = {}
    for e in wanted:
        if e is not None:
            seen.setdefault((e.unit, e.medium), e)
    return Accounting(end, (end - run.start).total_seconds(), list(seen.values()), conn, hops, chosen)


def expected_json(e: Expected) -> dict:
    return {"unit": e.unit, "medium": e.medium, "medium_name": e.medium_name, "value": e.value,
            "formula": e.formula}


def side_json(s: hopcount.Side) -> dict | None:
    c = s.count
    if c is None:
        return None
    return {"series_id": s.series_id, "unit": s.unit, "low": c.low, "estimate": c.estimate, "high": c.high,
            "avg_per_s": s.avg_per_s, "peak_per_s": s.peak_per_s, "avg_line_mbps": s.avg_line_mbps,
            "avg_payload_mbps": s.avg_payload_mbps, "peak_line_mbps": s.peak_line_mbps,
            "verdict": s.verdict.word if s.verdict else None, "verdict_text": s.verdict.text if s.verdict else None}


def loss_json(lc: hoplosses.LossCount) -> dict:
    return {"series_id": lc.series_id, "where": lc.where, "metric": lc.metric, "direction": lc.direction,
            "low": lc.count.low, "estimate": lc.count.estimate, "high": lc.count.high}


def as_json(run: ExperimentRun, acc: Accounting) -> dict:
    """The run's fields (spec.as_json) and every count of the page."""
    def end(side: str, h: hopcount.HopCount) -> dict:
        hop, counted = h.hop, (h.cells_in if side == "in" else h.cells_out)
        port, vpi, vci = ((hop.in_port, hop.in_vpi, hop.in_vci) if side == "in"
                          else (hop.out_port, hop.out_vpi, hop.out_vci))
        return {"port": port.name, "vpi": vpi, "vci": vci, "cells": side_json(counted)}

    return {**spec.as_json(run), "window_end": iso(acc.end), "seconds": acc.seconds,
            "expected": [expected_json(e) for e in acc.expected],
            "hops": [{"number": h.number, "switch": h.hop.switch.name, "in": end("in", h), "out": end("out", h),
                      "link": h.link_note, "findings": h.findings, "losses": [loss_json(lc) for lc in h.losses]}
                     for h in acc.hops],
            "series_counts": [{"id": c.series.id, "name": c.name, "expected": c.expected.value if c.expected else None,
                               "counted": side_json(c.side)} for c in acc.chosen]}


COLUMNS = ("part", "hop", "switch", "side", "port", "vpi", "vci", "series_id", "series", "unit", "low", "estimate",
           "high", "avg_per_s", "avg_line_mbps", "avg_payload_mbps", "peak_per_s", "peak_line_mbps", "expected",
           "verdict", "link")


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.4f}"


def _counted(s: hopcount.Side, exp: Expected | None) -> list:
    c = s.count
    return [s.unit, c.low if c else "", round(c.estimate) if c else "", "" if not c or c.high is None else c.high,
            _num(s.avg_per_s), _num(s.avg_line_mbps), _num(s.avg_payload_mbps), _num(s.peak_per_s),
            _num(s.peak_line_mbps), "" if exp is None or exp.value is None else exp.value,
            s.verdict.word if s.verdict else ""]


def csv_text(run: ExperimentRun, acc: Accounting) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    sent = f"{run.bytes_sent} bytes" if run.bytes_sent is not None else "bytes sent unknown"
    buf.write(f"# run {run.name}: {iso(run.start)} - {iso(acc.end)} ({acc.seconds:.3f} s); {sent}, message size "
              f"{run.message_size or 'unknown'}, overhead {run.overhead}\n")
    for e in acc.expected:
        buf.write(f"# expected minimum {e.unit} on {e.medium_name}: {e.value if e.value is not None else 'unknown'}"
                  f" = {e.formula}\n")
    for h in acc.hops:
        for finding in h.findings:
            buf.write(f"# {finding}\n")
    w.writerow(COLUMNS)
    cells = next((e for e in acc.expected if e.unit == "cells"), None)
    for h in acc.hops:
        for side, s, port, vpi, vci in (("in", h.cells_in, h.hop.in_port, h.hop.in_vpi, h.hop.in_vci),
                                        ("out", h.cells_out, h.hop.out_port, h.hop.out_vpi, h.hop.out_vci)):
            w.writerow(["hop", h.number, h.hop.switch.name, side, port.name, vpi, "" if vci is None else vci,
                        s.series_id or "", "", *_counted(s, cells), h.link_note if side == "in" else ""])
        for lc in h.losses:
            n = lc.count
            w.writerow(["loss", h.number, h.hop.switch.name, lc.direction, lc.where, "", "", lc.series_id, lc.metric,
                        lc.words, n.low, round(n.estimate), "" if n.high is None else n.high, *[""] * 8])
    for c in acc.chosen:
        series = c.series
        s_vpi, s_vci = series.vpi_vci()
        w.writerow(["series", "", series.switch.name, series.direction, series.port.name if series.port else "",
                    "" if s_vpi is None else s_vpi, "" if s_vci is None else s_vci, series.id, c.name,
                    *_counted(c.side, c.expected), ""])
    return buf.getvalue()
