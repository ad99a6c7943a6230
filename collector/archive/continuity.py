"""Cross-connect continuity: links told by the cells themselves, read from the archive.

A VC that leaves switch X on port P as VPI/VCI v and enters switch Y on port Q as the same v,
with the same cell rate over the last polls, says that P and Q are the two ends of one cable
(ATM keeps VPI/VCI across a link; switches translate them only inside). The rule, stated:

* candidates: every VC (or VP) cross-connect of X whose output is (P, v) and every one of another
  switch Y whose input is (Q, v); reserved VCIs (VPI 0, VCI < 32: signalling, ILMI, PNNI, SPANS,
  present on every link but not continuous across it) and control ports are left out;
* the rate leaving X: the VC's output counter at (P, v) where the switch has one (ATM2-MIB
  TotalCellOuts, FORE shared-memory modules), else the input counter of the cross-connect (FORE
  counts only received cells); the rate entering Y: the input counter at (Q, v), else the output
  counter of Y's cross-connect;
* rates from the raw archive over the window, split into BUCKETS equal buckets; a VC matches when
  at least MIN_BUCKETS buckets have polls on both sides, its mean rate is at least MIN_RATE cells/s
  on both, and every common bucket agrees within TOLERANCE (relative) or ABS_SLACK cells/s;
* a port pair is evidence only when it could be a cable: every VC or VP (not reserved) one switch
  cross-connects out of its port has an endpoint on the other's port (`carried`), both ways; and
  not when the same two cross-connects also match for another pair in opposite roles (the two ends
  of one end-to-end PVC that keeps its VPI/VCI look like a cable: undecidable, so neither is taken);
* its weight grows with the number of matching VCs and with both directions (`weight`), never
  above 0.8.

The findings are inventory evidence rows (kind xc-continuity): collector/inventory/topology.py
stores them and the inference weighs them with the rest (collector/inventory/linkinfer.py).
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from django.db import connection

from collector.archive import settled_read
from collector.archive.models import Series
from collector.archive.rollup import drawn_sql
from collector.core.facts import NOT_DRAWN
from collector.inventory.linkinfer import EvidenceRec
from collector.inventory.models import CrossConnect, Port, VirtualChannel, VirtualPath

BUCKETS = 4
MIN_BUCKETS = 3
MIN_RATE = 5.0               # cells/s: an idle VC proves nothing
TOLERANCE = 0.05             # 5 %: two polls of two agents see the same cells a few seconds apart
ABS_SLACK = 2.0              # cells/s
RESERVED_VCI = 32


@dataclass
class PairFinding:
    x_port: int
    y_port: int
    x_switch: int
    y_switch: int
    matched: list[str] = field(default_factory=list)    # "0/210 85000 cells/s"
    directions: set[str] = field(default_factory=set)   # "x->y", "y->x"
    disagreed: int = 0


def weight(matched: int, both_directions: bool) -> float:
    if matched <= 0:
        return 0.0
    return round(min(0.8, min(0.7, 0.5 + 0.1 * (matched - 1)) + (0.1 if both_directions else 0.0)), 3)


def _endpoint_series() -> tuple[dict, dict]:
    """(kind, port, vpi, vci) -> {direction: series id} for VC and VP endpoints with a cells series."""
    vcs = dict(((v_id), (p, vpi, vci)) for v_id, p, vpi, vci in VirtualChannel.objects.values_list(
        "id", "port_id", "vpi", "vci"))
    vps = dict(((v_id), (p, vpi)) for v_id, p, vpi in VirtualPath.objects.values_list("id", "port_id", "vpi"))
    by_endpoint: dict[tuple, dict[str, int]] = defaultdict(dict)
    switch_of: dict[int, int] = {}
    for sid, swid, vc_id, vp_id, direction in Series.objects.filter(
            metric="cells", kind="counter", gone_at__isnull=True).exclude(vc__isnull=True, vp__isnull=True).values_list(
            "id", "switch_id", "vc_id", "vp_id", "direction"):
        if vc_id in vcs:
            by_endpoint[("vc", *vcs[vc_id])][direction] = sid
        elif vp_id in vps:
            by_endpoint[("vp", *vps[vp_id], None)][direction] = sid
        switch_of[sid] = swid
    return by_endpoint, switch_of


def _rates(series_ids: list[int], switch_ids: list[int], start: float, end: float) -> dict[int, dict[int, float]]:
    """series id -> {bucket: cells/s} from the raw samples of the window (rows and settled days:
    `infer_links --window` may reach past CELLAR_SETTLE_AFTER_HOURS)."""
    if not series_ids:
        return {}
    width = (end - start) / BUCKETS
    sums: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    with connection.cursor() as cur:
        cur.execute(f"""
            SELECT u.sid, floor((extract(epoch FROM s.time) - %s) / %s)::int AS b, sum(u.d), sum(s.interval_ms)
            FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id
            CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f)
            WHERE s.switch_id = ANY(%s) AND s.time >= to_timestamp(%s) AND s.time < to_timestamp(%s)
              AND u.sid = ANY(%s) AND {drawn_sql('u.d', 'u.f', 's.interval_ms')}
            GROUP BY 1, 2""", [start, width, switch_ids, start, end, series_ids])
        for sid, bucket, cells, ms in cur.fetchall():
            sums[sid, bucket][0] += int(cells)
            sums[sid, bucket][1] += int(ms)
        owners = Series.objects.filter(id__in=series_ids).values_list("id", "switch_id")
        lo, hi = datetime.fromtimestamp(start, UTC), datetime.fromtimestamp(end, UTC)
        for piece in settled_read.pieces_for(list(owners), lo, hi):
            _add_settled(sums, piece, lo, hi, start, width)
    out: dict[int, dict[int, float]] = defaultdict(dict)
    for (sid, bucket), (cells, ms) in sums.items():
        if ms and 0 <= bucket < BUCKETS:
            out[sid][bucket] = cells / (ms / 1000.0)
    return out


def _add_settled(sums: dict, piece: settled_read.Piece, lo: datetime, hi: datetime, start: float, width: float) -> None:
    """A switch's settled polls in [lo, hi) into the sums, by the statement's rule and buckets."""
    got = settled_read.read(piece.switch_id, piece.series_ids, lo, hi)
    inside = got.time_us < settled_read.to_us(hi)
    buckets = np.floor((got.time_us / 1e6 - start) / width).astype(np.int64)
    for sid in piece.series_ids:
        c = got.columns[sid]
        drawn = (c.present & inside & ~c.delta_null & ((c.flags & int(NOT_DRAWN)) == 0) & ~got.interval_null
                 & (got.interval_ms > 0))
        for b, d, ms in zip(buckets[drawn].tolist(), c.delta[drawn].tolist(), got.interval_ms[drawn].tolist()):
            sums[sid, b][0] += d
            sums[sid, b][1] += ms


def matches(a: dict[int, float], b: dict[int, float]) -> bool | None:
    """True: the two rate series agree; False: they disagree; None: too little to say."""
    common = sorted(set(a) & set(b))
    if len(common) < MIN_BUCKETS:
        return None
    mean_a = sum(a[k] for k in common) / len(common)
    mean_b = sum(b[k] for k in common) / len(common)
    if mean_a < MIN_RATE or mean_b < MIN_RATE:
        return None
    return all(abs(a[k] - b[k]) <= max(ABS_SLACK, TOLERANCE * max(a[k], b[k])) for k in common)


def _endpoints() -> dict[int, set[tuple]]:
    """port id -> the VC endpoints ("vc", vpi, vci) discovery found on it, and the VPs ("vp", vpi)
    that a VP cross-connect switches there (a VPI row of a port is not enough: FORE lists VPI 0 of
    every port, where VCs terminate or are switched one by one)."""
    out: dict[int, set[tuple]] = defaultdict(set)
    for port, vpi, vci in VirtualChannel.objects.filter(gone_at__isnull=True).values_list("port_id", "vpi", "vci"):
        out[port].add(("vc", vpi, vci))
    for ip, ivpi, op, ovpi in CrossConnect.objects.filter(gone_at__isnull=True, kind="vp").values_list(
            "in_port_id", "in_vpi", "out_port_id", "out_vpi"):
        out[ip].add(("vp", ivpi))
        out[op].add(("vp", ovpi))
    return out


def carried(keys: set[tuple], far: set[tuple]) -> int:
    """How many of the VCs/VPs sent out of a port the far port has no endpoint for (0 for a cable:
    what one switch sends on a cable, the other has configured on it, as a VC or inside a VP)."""
    missing = 0
    for kind, vpi, vci in keys:
        if not (("vc", vpi, vci) in far or ("vp", vpi) in far if kind == "vc" else ("vp", vpi) in far):
            missing += 1
    return missing


def observe(window_min: float, now: float | None = None) -> list[EvidenceRec]:
    """Continuity findings over the last `window_min` minutes of polls, one per (port, far port)."""
    end = now or time.time()
    start = end - window_min * 60
    control = set(Port.objects.filter(port_type__iexact="CTL").values_list("id", flat=True))
    names = dict(Port.objects.values_list("id", "name"))
    series, switch_of = _endpoint_series()
    endpoints = _endpoints()
    leaving: dict[tuple, list[tuple[int, int, int, int]]] = defaultdict(list)   # key -> [(sw, P, sid, xc)]
    entering: dict[tuple, list[tuple[int, int, int, int]]] = defaultdict(list)
    sent: dict[int, set[tuple]] = defaultdict(set)            # port -> keys cross-connected out of it
    for xc, sw, kind, ip, ivpi, ivci, op, ovpi, ovci in CrossConnect.objects.filter(
            gone_at__isnull=True).values_list("id", "switch_id", "kind", "in_port_id", "in_vpi", "in_vci",
                                              "out_port_id", "out_vpi", "out_vci"):
        if ip in control or op in control:
            continue
        out_key, in_key = (kind, ovpi, ovci), (kind, ivpi, ivci)
        if not _reserved(out_key):
            sent[op].add(out_key)
        out_sid = series.get((kind, op, ovpi, ovci), {}).get("out") or series.get((kind, ip, ivpi, ivci), {}).get("in")
        in_sid = series.get((kind, ip, ivpi, ivci), {}).get("in") or series.get((kind, op, ovpi, ovci), {}).get("out")
        if out_sid and not _reserved(out_key):
            leaving[out_key].append((sw, op, out_sid, xc))
        if in_sid and not _reserved(in_key):
            entering[in_key].append((sw, ip, in_sid, xc))
    wanted = {sid for ends in (leaving, entering) for lst in ends.values() for _, _, sid, _ in lst}
    rates = _rates(sorted(wanted), sorted({switch_of[s] for s in wanted}), start, end)
    pairs: dict[tuple[int, int], PairFinding] = {}
    used: dict[tuple[int, int], set[tuple[int, int]]] = defaultdict(set)    # pair -> (xc leaving, xc entering)
    for key, outs in leaving.items():
        for x, p, a, xc_a in outs:
            for y, q, b, xc_b in entering.get(key, []):
                if x == y or matches(rates.get(a, {}), rates.get(b, {})) is not True:
                    continue
                lo, hi = (p, q) if p < q else (q, p)
                f = pairs.setdefault((lo, hi), PairFinding(lo, hi, x if lo == p else y, y if lo == p else x))
                mean = sum(rates[a].values()) / len(rates[a])
                vc = f"{key[1]}/{key[2]}" if key[0] == "vc" else f"VP {key[1]}"
                f.matched.append(f"{vc} {names.get(p)}->{names.get(q)} {mean:,.0f} cells/s")
                f.directions.add("x->y" if lo == p else "y->x")
                used[(lo, hi)].add((xc_a, xc_b))
    # A cable carries on one side what the other side has configured: what X sends out of P must
    # exist on Q. Two ends of one end-to-end PVC with the same VPI/VCI fail this unless the ports
    # carry nothing else; then the same two cross-connects match in opposite roles for two pairs
    # (the cable and the path's ends): neither is taken.
    for f in pairs.values():
        f.disagreed = carried(sent[f.x_port], endpoints[f.y_port]) + carried(sent[f.y_port], endpoints[f.x_port])
    cables = {pair: used[pair] for pair, f in pairs.items() if not f.disagreed}
    twins = {pair for pair, xcs in cables.items() for other, oxcs in cables.items()
             if other != pair and {(b, a) for a, b in xcs} & oxcs}
    out = []
    for pair, f in pairs.items():
        if f.disagreed or pair in twins:
            continue
        w = weight(len(f.matched), len(f.directions) == 2)
        says = f"cross-connect continuity: {len(f.matched)} VC(s) with the same rate on both switches"
        out.append(EvidenceRec(None, f.x_switch, f.x_port, "xc-continuity", says,
                               {"port_id_db": f.y_port, "switch_id": f.y_switch, "vcs": f.matched[:20]}, weight=w))
    return out


def _reserved(key: tuple) -> bool:
    kind, vpi, vci = key
    return kind == "vc" and vpi == 0 and vci is not None and vci < RESERVED_VCI
