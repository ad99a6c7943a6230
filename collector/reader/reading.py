"""From a checked request to plotted data: plan (range, resolution, tables), fetch, analyse.

Shared by the page's JSON, the API, the CSV export and the CLI, so all of them show the same
series over the same range at the same resolution.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from collector.archive.prepared import Send, read_one, together
from collector.core.isotime import iso
from collector.events import read as events
from collector.groups.resolve import GroupError
from collector.groups.resolve import resolve as resolve_group
from collector.reader import points, prefetch, queries, resolution, selection, units
from collector.reader.catalog import SeriesInfo
from collector.reader.points import Columns, Gap, Stats
from collector.reader.selection import BadRequest, PlotRequest
from collector.reader.units import UnitError

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
    main: resolution.Segment | None
    tail: list[resolution.Segment]
    done: dict[str, datetime | None]
    cut: dict[str, datetime | None]
    notes: list[str] = field(default_factory=list)
    runs: list[queries.RunBand] = field(default_factory=list)     # experiment runs overlapping the range
    events: list = field(default_factory=list)      # collector/events read.Mark: events touching the series (plots)
    events_read: bool = False                       # events already read (with the series: resolve)
    buckets: dict | None = None     # the buckets already read (with the series: resolve, collector/reader/prefetch.py)
    group_name: str = ""                                          # the group plotted (req.group), if any
    compare: list = field(default_factory=list)     # compare.Line: the earlier periods (webapp/traffic/compare.py)

    @property
    def expected_points(self) -> int:
        return resolution.points(self.res, self.start, self.end, self.poll_interval_s)

    @property
    def p95_basis(self) -> str:
        """The resolution whose rates the 95th percentile is taken over (resolution.p95_basis)."""
        return resolution.p95_basis(self.start, self.end, self.poll_interval_s, self.cut)


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
    start, end = selection.resolve_range(req, now, first)
    poll = float(min(s.poll_interval_s for s in series))
    cut = queries.retention_cutoffs(now)
    wanted = res or req.res
    notes: list[str] = []
    if wanted == "auto":
        chosen = resolution.choose(start, end, poll, cut, queries.max_plot_points())
        if req.group is not None and chosen == "raw" and not for_csv:
            chosen = "1m"          # a group's total needs a common grid (grouptotal.py)
    else:
        if req.group is not None and wanted == "raw" and not for_csv:
            raise BadRequest("a group's total is drawn from 1-minute or coarser buckets: choose res=1m or coarser "
                             "(its raw samples are in the raw CSV)")
        chosen = wanted
        kept_since = cut.get(chosen)
        if kept_since is not None and not resolution.available(chosen, start, cut):
            notes.append(f"{resolution.RES_LABEL[chosen]} are kept only since {iso(kept_since)}; "
                         "older parts of the range are empty at this resolution")
        n = resolution.points(chosen, start, end, poll)
        if not for_csv and n > MAX_POINTS_EXPLICIT:
            raise BadRequest(f"resolution {chosen} over this range gives {n:,} points per series; a plot shows at "
                             f"most {MAX_POINTS_EXPLICIT:,}: choose a coarser resolution, a shorter range, "
                             "or download the CSV")
    start, end = resolution.align(chosen, start, end)
    check_cells(len(series), resolution.points(chosen, start, end, poll), chosen, for_csv)
    main, tail = resolution.segments(chosen, start, end, done)
    return Plan(req, series, unit, factors, chosen, resolution.seconds(chosen, poll), start, end, now, poll,
                main, tail, done, cut, notes)


def check_cells(n_series: int, n_points: int, res: str, for_csv: bool) -> None:
    """BadRequest when series x points exceeds what one request may read (selection.MAX_*_CELLS)."""
    limit = selection.MAX_EXPORT_CELLS if for_csv else selection.MAX_PLOT_CELLS
    cells = n_series * n_points
    if cells > limit:
        what = "a CSV export holds" if for_csv else "one plot request reads"
        raise BadRequest(f"{n_series} series x {n_points:,} points ({resolution.RES_LABEL[res]}) = {cells:,} values; "
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
    resolution.P95_MAX_POINTS points (a year: 1-hour averages): finer than the plot, so it sorts up to
    20,000 rates per series in the database; the page asks for it after drawing (api/p95)."""
    basis = p.p95_basis
    start, end = resolution.align(basis, p.start, p.end)
    main, tail = (p.main, p.tail) if basis == p.res else resolution.segments(basis, start, end, p.done)
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


def resolve(req: PlotRequest, *, with_events: bool = False, with_buckets: bool = False,
            **kw) -> tuple[Plan, list[SeriesInfo]]:
    """The plan of a request, and its series; the runs that may overlap it and (with_events) the
    events that touch it come in the same round trip (fetch reads the events again only when the
    wider read could not tell: events.within). with_buckets (a plot): the buckets too, when what
    this process read last plans them as the request's own plan does (collector/reader/prefetch.py)."""
    span = selection.AUTO_SPAN if req.range == "auto" else resolution.RANGES.get(req.range)
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
    prefetch.remember(got.series, got.now, got.done)
    p = plan(req, got.series, clock=(got.now, got.done), **kw)
    if guess is not None and prefetch.same_buckets(guess[0], p):
        p.buckets = early_buckets
    p.runs = [r for r in got.runs if r.start < p.end and (r.end is None or r.end > p.start)]
    if got.events is not None and got.events_lo <= p.start.timestamp() and p.end.timestamp() <= got.events_hi:
        marks = events.within(got.events, p.start, p.end)
        p.events, p.events_read = (marks, True) if marks is not None else ([], False)
    p.group_name = group_name
    return p, got.series


def _guessed_buckets(req: PlotRequest, ids: list[int], kw: dict) -> tuple[Plan, Send] | None:
    """The buckets statement planned from what this process read last (prefetch.py), with that
    plan; None when it cannot be planned so (series never read here, a clock read too long ago,
    a range that needs the first data, raw samples)."""
    known, clock = prefetch.series(ids), prefetch.clock()
    if known is None or clock is None or req.range in ("all", "auto"):
        return None
    try:
        g = plan(req, known, clock=clock, **kw)
    except (BadRequest, UnitError):
        return None
    if g.res == "raw" or (g.main is None and not g.tail):
        return None
    send = queries.send_buckets(g.series, g.res, g.main, g.tail)
    return (g, send) if send is not None else None


def group_series(group_id: int) -> tuple[list[int], str]:
    """The member series of a group as a plot takes them (collector/groups resolve), or BadRequest."""
    try:
        members = resolve_group(group_id)
    except GroupError as exc:
        raise BadRequest(str(exc)) from None
    if len(members.series) > selection.MAX_SERIES:
        raise BadRequest(f"group {members.name!r} has {len(members.series):,} member series; a plot stacks at most "
                         f"{selection.MAX_SERIES}: rank them in top talkers (/talkers/?group={group_id}) or bill them")
    return members.series_ids, members.name


def estimated_rows(p: Plan) -> int:
    return max(1, int((p.end - p.start) / timedelta(seconds=p.res_seconds)))
