"""What can be plotted: series with the names an operator uses (switch, port, direction, VP, VC).

SeriesInfo is a plain, immutable description of one counter series, read once per request;
everything after the database read (units, plots, CSV) works from it without the ORM.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import NamedTuple

import psycopg
from django.db.models import Case, Count, Expression, Q, QuerySet, Value, When

from collector.archive.models import Series
from collector.archive.prepared import read_one
from collector.core.facts import capacity_per_s
from collector.core.names import METRIC_WORD, PRIMARY_METRIC, series_label
from collector.inventory.models import Port, Switch, VirtualChannel, VirtualPath
from collector.inventory.ports import IF_INDEX_REF, PortLookupError, find_port


class UnknownSeries(LookupError):
    def __init__(self, missing: list[int]):
        self.missing = missing
        super().__init__(f"unknown series id{'s' if len(missing) > 1 else ''}: {', '.join(map(str, missing))}")


@dataclass(frozen=True)
class SeriesInfo:
    id: int
    switch_id: int
    switch: str
    port: str
    port_label: str
    port_type: str
    is_atm: bool
    vpi: int | None
    vci: int | None
    direction: str
    metric: str
    unit: str                    # cells | octets | packets
    width: int
    capacity_per_s: int | None   # in `unit` per second
    poll_interval_s: int
    object_name: str
    index: str
    port_level: bool             # counts the whole port (not one VP or VC)
    gone: bool
    if_index: int | None = None  # the port's ifIndex (unsigned 32-bit), None for FORE ports

    @property
    def label(self) -> str:
        """'asx200bx A1 Receive VP:0 VC:15' as the 1995 data-set picker named it."""
        return series_label(self.switch, self.port or self.index, self.direction, self.vpi, self.vci, self.metric,
                            self.is_atm)

    def as_json(self) -> dict:
        d = {name: getattr(self, name) for name in _FIELDS}     # asdict() deep-copies: 4x slower
        d["label"] = self.label
        return d


_FIELDS = tuple(f.name for f in fields(SeriesInfo))


# The columns of a series and its switch, port, VP and VC that make a SeriesInfo, in order.
ROW_SQL = f"""
SELECT s.id, s.switch_id, sw.name, p.id IS NOT NULL, coalesce(p.name, ''), coalesce(p.label, ''),
       coalesce(p.port_type, ''), p.is_atm, coalesce(vc.vpi, vp.vpi), vc.vci, s.direction, s.metric, s.unit,
       s.width, s.capacity_per_s, p.capacity_cells, p.speed_bps, sw.poll_interval_s, s.object_name, s.index,
       s.vp_id IS NULL AND s.vc_id IS NULL, s.gone_at IS NOT NULL, p.if_index
  FROM {Series._meta.db_table} s
  JOIN {Switch._meta.db_table} sw ON sw.id = s.switch_id
  LEFT JOIN {Port._meta.db_table} p ON p.id = s.port_id
  LEFT JOIN {VirtualPath._meta.db_table} vp ON vp.id = s.vp_id
  LEFT JOIN {VirtualChannel._meta.db_table} vc ON vc.id = s.vc_id
 WHERE s.kind = 'counter' AND s.id = ANY(%s)"""


def from_row(row: tuple) -> SeriesInfo:
    (sid, switch_id, switch, has_port, port, port_label, port_type, is_atm, vpi, vci, direction, metric, unit,
     width, capacity, port_cells, port_speed, poll_interval_s, object_name, index, port_level, gone, if_index) = row
    return SeriesInfo(
        id=sid, switch_id=switch_id, switch=switch, port=port, port_label=port_label, port_type=port_type,
        is_atm=bool(is_atm) if has_port else unit == "cells", vpi=vpi, vci=vci, direction=direction, metric=metric,
        unit=unit, width=width, capacity_per_s=capacity or capacity_per_s(unit, port_speed, port_cells),
        poll_interval_s=poll_interval_s, object_name=object_name, index=index, port_level=port_level, gone=gone,
        if_index=if_index)


def info(s: Series) -> SeriesInfo:
    port = s.port
    return from_row((
        s.id, s.switch_id, s.switch.name, port is not None, port.name if port else "", port.label if port else "",
        port.port_type if port else "", port.is_atm if port else None,
        *s.vpi_vci(), s.direction,
        s.metric, s.unit, s.width, s.capacity_per_s, port.capacity_cells if port else None,
        port.speed_bps if port else None, s.switch.poll_interval_s, s.object_name, s.index,
        not s.vp_id and not s.vc_id, s.gone_at is not None, port.if_index if port else None))


def counters() -> QuerySet[Series]:
    return Series.objects.filter(kind="counter").select_related("switch", "port", "vp", "vc")


def load_series(ids: list[int]) -> list[SeriesInfo]:
    """The series in the order asked; UnknownSeries names every id that does not exist.

    One plain query (every plot request makes it): through the ORM it cost more than reading a
    year of one port's buckets, mostly building Switch objects and decrypting their secrets.
    Prepared (once per database connection): planning the five-table join took four times as
    long as running it."""
    return in_order(ids, _read(ids))


def load_series_known(ids: list[int]) -> list[SeriesInfo]:
    """The series of `ids` that exist, in that order (a form shows what it can name)."""
    found = _read(ids) if ids else {}
    return [found[i] for i in ids if i in found]


def _read(ids: list[int]) -> dict[int, SeriesInfo]:
    def send(cur: psycopg.Cursor) -> Callable[[], dict[int, SeriesInfo]]:
        cur.execute(ROW_SQL, [list(ids)], prepare=True)
        return lambda: {row[0]: from_row(row) for row in cur.fetchall()}
    return read_one(send)


def in_order(ids: list[int], found: dict[int, SeriesInfo]) -> list[SeriesInfo]:
    """found[i] for each id asked, in that order; UnknownSeries names every id not found."""
    missing = [i for i in ids if i not in found]
    if missing:
        raise UnknownSeries(missing)
    return [found[i] for i in ids]


def natural(text: str) -> tuple:
    """'Gi1/0/10' after 'Gi1/0/9': digit runs compare as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", text) if part)


def _sort_key(s: SeriesInfo) -> tuple:
    return (s.switch, natural(s.port), -1 if s.vpi is None else s.vpi, -1 if s.vci is None else s.vci,
            s.metric != PRIMARY_METRIC[s.is_atm], s.metric, s.direction)


DIRECTION_ALIASES = {"rx": "in", "receive": "in", "received": "in", "in": "in",
                     "tx": "out", "transmit": "out", "transmitted": "out", "out": "out"}


MATCHED_PORTS_LISTED = 5000     # ports a search word names, passed as a list (beyond: a sub-select)
# Matches a search ranks. Past it the answer ranks the first RANK_MAX the scan finds and says there
# are more (narrow the search): ranking every match of a word in every port's label (200,000
# series at 100,000 ports) took 0.7-0.9 s; 10,000 took 0.27 s, 5,000 0.18 s (figure 13k2: the
# API within 300 ms; a picker shows 200).
RANK_MAX = 5_000


class Found(NamedTuple):
    series: list[SeriesInfo]   # the first `limit`, best matches first
    total: int                 # matches, counted up to RANK_MAX
    more: bool                 # more than RANK_MAX match: only RANK_MAX of them were ranked


def search(q: str = "", switch: str = "", port: str = "", direction: str = "", metric: str = "",
           limit: int = 200) -> Found:
    """Series matching every word of q (switch, port name, label or index, 'VP:0', 'VC:15',
    '0/15', receive/transmit, metric) and the exact filters, best matches first; at most RANK_MAX
    of them ranked (Found.more says when there were more)."""
    qs = counters()
    if switch:
        qs = qs.filter(switch__name=switch)
    if port:
        by_index = IF_INDEX_REF.match(port)
        qs = qs.filter(port__if_index=int(by_index.group(1))) if by_index else qs.filter(
            Q(port__name=port) | Q(port__agent_name=port))
    if direction:
        qs = qs.filter(direction=DIRECTION_ALIASES.get(direction.lower(), direction))
    if metric:
        qs = qs.filter(metric=metric)
    for word in q.split():
        w = word.lower()
        # The switches and ports a word names, found once in their own tables (2,000 switches,
        # 100,000 ports), not tested on a join of every series with its port and switch, nor as
        # sub-selects that each parallel worker computes again: 0.6 s -> 0.15 s at 300,000 series
        # (docs/benchmarks.md, figure 13). A word naming very many ports stays a sub-select.
        ports = Port.objects.filter(Q(name__iexact=w) | Q(name__iendswith=f"/{w}") | Q(key=w) | Q(label__icontains=w)
                                    | Q(description__icontains=w)).order_by().values_list("id", flat=True)
        port_ids = list(ports[:MATCHED_PORTS_LISTED + 1])
        named = Switch.objects.filter(name__icontains=w).order_by().values_list("id", flat=True)
        cond = (Q(switch_id__in=list(named)) | Q(port_id__in=port_ids if len(port_ids) <= MATCHED_PORTS_LISTED
                                                 else ports) | Q(metric__icontains=w) | Q(object_name__icontains=w))
        if w in DIRECTION_ALIASES:
            cond |= Q(direction=DIRECTION_ALIASES[w])
        metrics = [m for m, word in METRIC_WORD.items() if w in word.split()]
        if metrics:
            cond |= Q(metric__in=metrics)
        for prefix, field in (("vp:", "vpi"), ("vc:", "vci"), ("vpi=", "vpi"), ("vci=", "vci")):
            if w.startswith(prefix) and w[len(prefix):].isdigit():
                n = int(w[len(prefix):])
                cond = Q(vc__vci=n) if field == "vci" else (Q(vp__vpi=n) | Q(vc__vpi=n))
        if "/" in w and all(p.isdigit() for p in w.split("/", 1)):
            vpi, vci = map(int, w.split("/", 1))
            cond |= Q(vc__vpi=vpi, vc__vci=vci)
        qs = qs.filter(cond)
    # Rank: words naming a port exactly ("48" for Gi1/0/48, "A1") beat substrings of switch names.
    score: Expression = Value(0)
    for word in q.split():
        exact = (Q(port__name__iexact=word) | Q(port__name__iendswith=f"/{word}") | Q(port__label__iexact=word)
                 | Q(port__key=word))
        score = score + Case(When(exact, then=Value(1)), default=Value(0))
    # The matches: at most RANK_MAX + 1 of them, in the order the scan finds them (it stops there),
    # read as ids and then ranked by their index (as a sub-select the planner hashed them and
    # scanned every series to join them).
    ids = list(qs.order_by().values_list("id", flat=True)[:RANK_MAX + 1])
    rows = list(counters().filter(id__in=ids[:RANK_MAX]).annotate(score=score)
                .order_by("-score", "switch__name", "port__name", "id").values_list("id", "score")[: limit * 5])
    scores = dict(rows)
    found = load_series([sid for sid, _ in rows])
    return Found(sorted(found, key=lambda s: (-scores[s.id], _sort_key(s)))[:limit], min(len(ids), RANK_MAX),
                 len(ids) > RANK_MAX)


def switches() -> list[dict]:
    """Every switch with the numbers the picker shows before it is opened: three queries (the
    counts grouped by switch), not two per switch (4,200 queries, 1.6 s for 2,100 switches)."""
    ports = dict(Port.objects.order_by().values("switch_id").annotate(n=Count("id")).values_list("switch_id", "n"))
    series = dict(Series.objects.filter(kind="counter").order_by().values("switch_id").annotate(n=Count("id"))
                  .values_list("switch_id", "n"))
    out = []
    for sw in Switch.objects.only("id", "name", "profile", "detected_profile", "address", "poll_interval_s",
                                  "enabled").order_by("name"):
        out.append({"id": sw.id, "name": sw.name, "profile": sw.effective_profile, "address": sw.address,
                    "poll_interval_s": sw.poll_interval_s, "enabled": sw.enabled,
                    "ports": ports.get(sw.id, 0), "series": series.get(sw.id, 0)})
    return out


def _series_brief(s: SeriesInfo) -> dict:
    return {"id": s.id, "direction": s.direction, "metric": s.metric, "unit": s.unit, "label": s.label,
            "gone": s.gone}


def switch_tree(switch: Switch) -> dict:
    """switch -> ports (ATM ports and IP interfaces) -> series, VPs -> series, VCs -> series."""
    # through the plain prepared row query, not the ORM (Switch objects decrypt their secrets:
    # 2,000 VC series of an ATM switch took 0.3 s)
    all_series = load_series(list(Series.objects.filter(switch=switch, kind="counter").values_list("id", flat=True)))
    by_port: dict[str, list[SeriesInfo]] = {}
    for s in all_series:
        by_port.setdefault(s.port, []).append(s)   # keyed by port name below
    ports = []
    vps = {(vp.port_id, vp.vpi): vp for vp in VirtualPath.objects.filter(switch=switch)}
    vcs = list(VirtualChannel.objects.filter(switch=switch).order_by("port_id", "vpi", "vci"))
    for port in sorted(Port.objects.filter(switch=switch), key=lambda p: natural(p.name)):
        mine = [s for s in by_port.get(port.name, [])]
        port_series = sorted((s for s in mine if s.port_level), key=_sort_key)
        vp_map: dict[int, dict] = {}
        for (pid, vpi), vp in sorted(vps.items(), key=lambda kv: kv[0][1]):
            if pid == port.id:
                vp_map[vpi] = {"vpi": vpi, "gone": vp.gone_at is not None, "series": [], "vcs": {}}
        for vc in vcs:
            if vc.port_id == port.id:
                vp = vp_map.setdefault(vc.vpi, {"vpi": vc.vpi, "gone": False, "series": [], "vcs": {}})
                vp["vcs"][vc.vci] = {"vci": vc.vci, "gone": vc.gone_at is not None, "series": [],
                                     "service_category": vc.service_category}
        for s in sorted((s for s in mine if not s.port_level), key=_sort_key):
            if s.vpi is None:
                raise ValueError(f"series {s.id} counts a VP or VC but has no VPI")
            vp = vp_map.setdefault(s.vpi, {"vpi": s.vpi, "gone": False, "series": [], "vcs": {}})
            if s.vci is None:
                vp["series"].append(_series_brief(s))
            else:
                vc = vp["vcs"].setdefault(s.vci, {"vci": s.vci, "gone": False, "series": [], "service_category": ""})
                vc["series"].append(_series_brief(s))
        vp_list = []
        for vpi in sorted(vp_map):
            vp = vp_map[vpi]
            vc_list = [vp["vcs"][vci] for vci in sorted(vp["vcs"]) if vp["vcs"][vci]["series"]]
            if vp["series"] or vc_list:
                vp_list.append({"vpi": vpi, "gone": vp["gone"], "series": vp["series"], "vcs": vc_list})
        ports.append({
            "id": port.id, "name": port.name, "label": port.label, "port_type": port.port_type,
            "is_atm": port.is_atm, "speed_bps": port.speed_bps, "capacity_cells": port.capacity_cells,
            "oper_status": port.oper_status, "gone": port.gone_at is not None,
            "series": [_series_brief(s) for s in port_series], "vps": vp_list})
    return {"id": switch.id, "name": switch.name, "profile": switch.effective_profile,
            "poll_interval_s": switch.poll_interval_s, "ports": ports}


def entity_series(switch: str, port: str, vpi: str | None = None, vci: str | None = None,
                  direction: str = "") -> list[int]:
    """Ids of the traffic series (cells, else octets) of a port, VP or VC, named as operators do
    (the port by its name, its agent name when unique, or ifindex:N)."""
    sw = Switch.objects.filter(name=switch).first()
    if sw is None:
        raise LookupError(f"no switch {switch!r}")
    try:
        p = find_port(sw, port)
    except PortLookupError as exc:
        raise LookupError(str(exc)) from None
    qs = counters().filter(port=p)
    if not qs.exists():
        raise LookupError(f"no traffic series for port {port!r} of switch {switch!r}")
    try:
        if vci not in (None, ""):
            if vpi in (None, ""):
                raise LookupError("vci needs vpi")
            qs = qs.filter(vc__vpi=int(vpi), vc__vci=int(vci))
        elif vpi not in (None, ""):
            qs = qs.filter(vp__vpi=int(vpi))
        else:
            qs = qs.filter(vp__isnull=True, vc__isnull=True)
    except ValueError:
        raise LookupError("vpi and vci are numbers") from None
    if direction:
        qs = qs.filter(direction=DIRECTION_ALIASES.get(direction.lower(), direction))
    found = [info(s) for s in qs]
    traffic = [s for s in found if s.metric == "cells"] or [s for s in found if s.metric == "octets"]
    if not traffic:
        raise LookupError(f"no traffic series for {switch} {port}" + (f" VP:{vpi}" if vpi else "")
                          + (f" VC:{vci}" if vci else ""))
    return [s.id for s in sorted(traffic, key=lambda s: (s.direction != "in", s.id))]
