"""From a checked request to plotted data: plan (range, resolution, tables), fetch, analyse.

Shared by the page's JSON, the API, the CSV export and the CLI, so all of them show the same
series over the same range at the same resolution.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from collector.archive.prepared import Send, read_one, together
from collector.core.facts import flag_names
from collector.core.isotime import iso
from collector.events import read as events
from collector.groups.resolve import GroupError
from collector.groups.resolve import resolve as resolve_group
from webapp.traffic import early, grouptotal, params, points, queries, tiers, units
from webapp.traffic.catalog import SeriesInfo
from webapp.traffic.params import BadRequest, PlotRequest
from webapp.traffic.points import Columns, Gap, Stats, at
from webapp.traffic.units import UnitError

MAX_POINTS_EXPLICIT = 100_000   # a plot (not a CSV) with an explicit resolution draws at most this


@dataclass
class Plan:
    req: PlotRequest
    series: list[SeriesInfo]
    unit: str
    factors: dict[int, float]
    res: str
    res_seconds: float
    start: datetime
    end: datetime
    now: datetime
    poll_interval_s: float
    main: tiers.Segment | None
    tail: list[tiers.Segment]
    done: dict[str, datetime | None]
    cut: dict[str, datetime | None]
    notes: list[str] = field(default_factory=list)
    runs: list[queries.RunBand] = field(default_factory=list)     # experiment runs overlapping the range
    events: list = field(default_factory=list)      # collector/events read.Mark: events touching the series (plots)
    events_read: bool = False                       # events already read (with the series: resolve)
    buckets: dict | None = None     # the buckets already read (with the series: resolve, webapp/traffic/early.py)
    group_name: str = ""                                          # the group plotted (req.group), if any
    compare: list = field(default_factory=list)     # compare.Line: the earlier periods (webapp/traffic/compare.py)

    @property
    def expected_points(self) -> int:
        return tiers.points(self.res, self.start, self.end, self.poll_interval_s)

    @property
    def p95_basis(self) -> str:
        """The resolution whose rates the 95th percentile is taken over (tiers.p95_basis)."""
        return tiers.p95_basis(self.start, self.end, self.poll_interval_s, self.cut)


Clock = tuple[datetime, dict[str, datetime | None]]     # database now() and rollup watermarks


def plan(req: PlotRequest, series: list[SeriesInfo], *, for_csv: bool = False, res: str | None = None,
         clock: Clock | None = None) -> Plan:
    """Choose the range, the resolution and the tables; BadRequest/UnitError when impossible.
    clock: as read with the series (queries.series_and_clock), else read here."""
    if not series:
        raise BadRequest("no series selected: give s=<series id>[,<series id>...] (see /traffic/api/series)")
    unit = units.auto_unit(series) if req.unit == "auto" else req.unit
    factors = {s.id: units.factor(s, unit) for s in series}
    now, done = clock or queries.now_and_watermarks()
    first = queries.first_data(series) if req.range in ("all", "auto") else None
    start, end = params.resolve_range(req, now, first)
    poll = float(min(s.poll_interval_s for s in series))
    cut = queries.retention_cutoffs(now)
    wanted = res or req.res
    notes: list[str] = []
    if wanted == "auto":
        chosen = tiers.choose(start, end, poll, cut, queries.max_plot_points())
        if req.group is not None and chosen == "raw" and not for_csv:
            chosen = "1m"          # a group's total needs a common grid (grouptotal.py)
    else:
        if req.group is not None and wanted == "raw" and not for_csv:
            raise BadRequest("a group's total is drawn from 1-minute or coarser buckets: choose res=1m or coarser "
                             "(its raw samples are in the raw CSV)")
        chosen = wanted
        if not tiers.available(chosen, start, cut):
            notes.append(f"{tiers.RES_LABEL[chosen]} are kept only since {iso(cut[chosen])}; "
                         "older parts of the range are empty at this resolution")
        n = tiers.points(chosen, start, end, poll)
        if not for_csv and n > MAX_POINTS_EXPLICIT:
            raise BadRequest(f"resolution {chosen} over this range gives {n:,} points per series; a plot shows at "
                             f"most {MAX_POINTS_EXPLICIT:,}: choose a coarser resolution, a shorter range, "
                             "or download the CSV")
    start, end = tiers.align(chosen, start, end)
    check_cells(len(series), tiers.points(chosen, start, end, poll), chosen, for_csv)
    main, tail = tiers.segments(chosen, start, end, done)
    return Plan(req, series, unit, factors, chosen, tiers.seconds(chosen, poll), start, end, now, poll,
                main, tail, done, cut, notes)


def check_cells(n_series: int, n_points: int, res: str, for_csv: bool) -> None:
    """BadRequest when series x points exceeds what one request may read (params.MAX_*_CELLS)."""
    limit = params.MAX_EXPORT_CELLS if for_csv else params.MAX_PLOT_CELLS
    cells = n_series * n_points
    if cells > limit:
        what = "a CSV export holds" if for_csv else "one plot request reads"
        raise BadRequest(f"{n_series} series x {n_points:,} points ({tiers.RES_LABEL[res]}) = {cells:,} values; "
                         f"{what} at most {limit:,}: choose fewer series, a shorter range or a coarser resolution")


@dataclass
class Plotted:
    info: SeriesInfo
    factor: float
    cols: Columns
    gaps: list[Gap]
    stats: Stats


def fetch(p: Plan, *, with_p95: bool = True, with_events: bool = False) -> list[Plotted]:
    """The plot's points, gaps (with their reasons) and statistics; the 95th percentile only when
    asked, because it reads a finer resolution than the plot (see p95). with_events: also the
    events that touch the series (p.events), sent with the buckets (one round trip for both)."""
    marks = (events.send_touching([s.id for s in p.series], p.start, p.end)
             if with_events and p.series and not p.events_read else None)
    buckets = (queries.send_buckets(p.series, p.res, p.main, p.tail)
               if p.res != "raw" and p.buckets is None else None)
    if buckets is not None and marks is not None:
        data, p.events = together(buckets, marks)
    else:
        if p.buckets is not None:
            data = p.buckets
        elif p.res == "raw":
            data = queries.fetch_raw(p.series, p.start, p.end)
        else:
            data = read_one(buckets) if buckets is not None else {s.id: points.empty() for s in p.series}
        if marks is not None:
            p.events = read_one(marks)
    p95s = p95(p) if with_p95 else {}
    out = []
    for s in p.series:
        cols = data[s.id]
        gaps = points.find_gaps(cols, None if p.res == "raw" else p.res_seconds, s.poll_interval_s,
                                p.start, p.end, p.now)
        out.append(Plotted(s, p.factors[s.id], cols, gaps,
                           points.stats(cols, p.start, p.end, p95s.get(s.id), p.p95_basis)))
    _explain_gaps(out)
    return out


def p95(p: Plan) -> dict[int, float | None]:
    """95th percentile of each series' rates over the range, at the finest resolution with at most
    tiers.P95_MAX_POINTS points (a year: 1-hour averages): finer than the plot, so it sorts up to
    20,000 rates per series in the database; the page asks for it after drawing (api/p95)."""
    basis = p.p95_basis
    start, end = tiers.align(basis, p.start, p.end)
    main, tail = (p.main, p.tail) if basis == p.res else tiers.segments(basis, start, end, p.done)
    return queries.p95(p.series, basis, main, tail)


def _explain_gaps(plotted: list[Plotted]) -> None:
    """Fill each gap's reason from the poll log of its switch (one query per switch with gaps)."""
    by_switch: dict[int, list[Gap]] = {}
    for pl in plotted:
        if pl.gaps:
            by_switch.setdefault(pl.info.switch_id, []).extend(pl.gaps)
    for switch_id, gaps in by_switch.items():
        unique = sorted({(g.lo, g.hi) for g in gaps})
        found = dict(zip(unique, queries.failures_in(switch_id, unique)))
        for g in gaps:
            g.reason = points.describe(g, found.get((g.lo, g.hi), {}))


def scale(v: float | None, f: float) -> float | None:
    return None if v is None else v * f


def stats_json(pl: Plotted) -> dict:
    st, f = pl.stats, pl.factor
    d = {"average": scale(st.average, f), "peak": scale(st.peak, f), "p95": scale(st.p95, f),
         "p95_basis": st.p95_basis, "total": st.total, "total_unit": units.total_unit(pl.info),
         "seconds": st.seconds, "coverage": st.coverage, "samples": st.samples, "flagged": st.flagged}
    if pl.info.unit == "cells":
        d["total_bytes"] = st.total * units.CELL_BYTES
        d["total_payload_bytes"] = st.total * units.PAYLOAD_BYTES
    return d


def _scaled(values, f: float) -> list[float | None]:
    return [None if v != v else v for v in (values * f).tolist()]


def points_json(pl: Plotted, raw: bool) -> dict:
    c, f = pl.cols, pl.factor
    d = {"t": [iso(at(t)) for t in c.t.tolist()], "avg": _scaled(c.avg(), f),
         "peak": _scaled(c.peak, f), "total": c.delta.tolist(), "seconds": c.seconds.tolist(),
         "samples": c.samples.tolist(), "flagged": c.flagged.tolist()}
    if raw:
        d["flags"] = [flag_names(v) for v in c.flags.tolist()]
        d["delta"] = list(c.stored)
        d["interval"] = c.span.tolist()
    else:
        d["low"] = _scaled(c.low, f)
    return d


def group_json(p: Plan, plotted: list[Plotted], with_points: bool) -> dict | None:
    """The group plotted and its total line (None when the plot is not of a group)."""
    if p.req.group is None:
        return None
    if p.unit == "pct":
        return {"id": p.req.group, "name": p.group_name, "total": None,
                "note": "a sum of percentages of different capacities is no total: choose a rate unit"}
    total = grouptotal.as_json(grouptotal.total(plotted), plotted, with_points) if p.res != "raw" else None
    return {"id": p.req.group, "name": p.group_name, "total": total}


def data_json(p: Plan, plotted: list[Plotted], *, with_points: bool = True) -> dict:
    """The API's answer. with_points=False (the page, which draws the figure): only the count."""
    return {
        "start": iso(p.start), "end": iso(p.end), "now": iso(p.now),
        "range": p.req.range, "resolution": p.res, "resolution_label": tiers.RES_LABEL[p.res],
        "resolution_seconds": p.res_seconds, "unit": p.unit, "unit_label": units.UNITS[p.unit].label,
        "stack": p.req.stack, "query": p.req.query(), "notes": p.notes,
        "group": group_json(p, plotted, with_points),
        "series": [{
            **pl.info.as_json(), "factor": pl.factor, "stats": stats_json(pl), "n_points": len(pl.cols),
            **({"points": points_json(pl, p.res == "raw")} if with_points else {}),
            "gaps": [{"start": iso(g.lo), "end": iso(g.hi), "kind": g.kind, "reason": g.text()}
                     for g in pl.gaps],
        } for pl in plotted],
    }


def p95_json(p: Plan, values: dict[int, float | None]) -> dict:
    return {"start": iso(p.start), "end": iso(p.end), "unit": p.unit, "p95_basis": p.p95_basis,
            "series": [{"id": s.id, "label": s.label, "p95": scale(values.get(s.id), p.factors[s.id])}
                       for s in p.series]}


def resolve(req: PlotRequest, *, with_events: bool = False, with_buckets: bool = False,
            **kw) -> tuple[Plan, list[SeriesInfo]]:
    """The plan of a request, and its series; the runs that may overlap it and (with_events) the
    events that touch it come in the same round trip (fetch reads the events again only when the
    wider read could not tell: events.within). with_buckets (a plot): the buckets too, when what
    this process read last plans them as the request's own plan does (webapp/traffic/early.py)."""
    span = params.AUTO_SPAN if req.range == "auto" else tiers.RANGES.get(req.range)
    lo, hi = (req.start, req.end) if req.range == "custom" else (None, None)
    ids, group_name = list(req.series_ids), ""
    if req.group is not None:
        ids, group_name = group_series(req.group)
    series_send = queries.send_series_and_clock(ids, lo, hi, span, with_events)
    guess = _guessed_buckets(req, ids, kw) if with_buckets else None
    if guess is None:
        got, early_buckets = read_one(series_send), None
    else:
        got, early_buckets = together(series_send, guess[1])
    early.remember(got.series, got.now, got.done)
    p = plan(req, got.series, clock=(got.now, got.done), **kw)
    if guess is not None and early.same_buckets(guess[0], p):
        p.buckets = early_buckets
    p.runs = [r for r in got.runs if r.start < p.end and (r.end is None or r.end > p.start)]
    if got.events is not None and got.events_lo <= p.start.timestamp() and p.end.timestamp() <= got.events_hi:
        marks = events.within(got.events, p.start, p.end)
        p.events, p.events_read = (marks, True) if marks is not None else ([], False)
    p.group_name = group_name
    return p, got.series


def _guessed_buckets(req: PlotRequest, ids: list[int], kw: dict) -> tuple[Plan, Send] | None:
    """The buckets statement planned from what this process read last (early.py), with that
    plan; None when it cannot be planned so (series never read here, a clock read too long ago,
    a range that needs the first data, raw samples)."""
    known, clock = early.series(ids), early.clock()
    if known is None or clock is None or req.range in ("all", "auto"):
        return None
    try:
        g = plan(req, known, clock=clock, **kw)
    except (BadRequest, UnitError):
        return None
    if g.res == "raw" or (g.main is None and not g.tail):
        return None
    return g, queries.send_buckets(g.series, g.res, g.main, g.tail)


def group_series(group_id: int) -> tuple[list[int], str]:
    """The member series of a group as a plot takes them (collector/groups resolve), or BadRequest."""
    try:
        members = resolve_group(group_id)
    except GroupError as exc:
        raise BadRequest(str(exc)) from None
    if len(members.series) > params.MAX_SERIES:
        raise BadRequest(f"group {members.name!r} has {len(members.series):,} member series; a plot stacks at most "
                         f"{params.MAX_SERIES}: rank them in top talkers (/talkers/?group={group_id}) or bill them")
    return members.series_ids, members.name


def estimated_rows(p: Plan) -> int:
    return max(1, int((p.end - p.start) / timedelta(seconds=p.res_seconds)))
