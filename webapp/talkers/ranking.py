"""Top talkers for a request: scope, tier plan, aggregates, the ranking, the "other" row.

Ranked by average (drawn traffic over drawn time, as the plots' statistics), by peak (the
highest one-sample rate: the tiers' max_rate) or by the 95th percentile of the rates at the
plots' p95 resolution (webapp/traffic/resolution.p95_basis: the finest with at most 20,000 points, so
a ranking and a plot of the same window say the same number). The 95th percentile is computed
for as few series as the ranking needs: no percentile of a series is above its peak, so series
are taken by descending peak until the next one's peak is below the n-th percentile found
(exact, and bounded: at most P95_MAX_VALUES rates read, else a 400 naming the limit). "Least
used" by the 95th percentile reads every series of the scope, within the same limit.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

from collector.core.isotime import iso
from collector.groups.resolve import GroupError, resolve
from collector.inventory.models import Switch
from collector.reader import catalog
from collector.reader import queries as traffic_queries
from collector.reader import resolution as traffic_tiers
from collector.reader.catalog import SeriesInfo
from collector.reader.selection import BadRequest
from webapp.talkers import queries
from webapp.talkers.params import TalkersRequest, window

P95_MAX_VALUES = 20_000_000      # rates one ranking by percentile may read
P95_BATCH_MAX = 1000            # series per percentile statement (the first: the n asked for, plus 10)
P95_CANDIDATES = 5000           # series of highest peak a top ranking by percentile may examine
UNIT_LABEL = {"traffic": "bits/s", "packets": "packets/s", "errors": "errors/s", "discards": "discards/s"}


@dataclass
class Row:
    rank: int
    info: SeriesInfo
    agg: queries.Aggregate
    p95: float | None
    value: float
    share: float | None        # of the scope's summed average (rates only)


@dataclass
class Other:
    count: int
    average: float | None
    total_bytes: int | None
    total: int
    share: float | None


@dataclass
class Ranking:
    req: TalkersRequest
    start: datetime
    end: datetime
    plan: queries.Plan
    unit_label: str
    rows: list[Row]
    other: Other
    in_scope: int
    ranked: int
    without_data: int
    without_capacity: int
    p95_basis: str | None = None
    p95_computed: int = 0
    notes: list[str] = field(default_factory=list)
    server_ms: float = 0.0

    @property
    def window_s(self) -> float:
        return (self.end - self.start).total_seconds()


def _group_ids(ref: str) -> list[int]:
    try:
        return resolve(ref).series_ids
    except GroupError as exc:
        raise BadRequest(str(exc)) from None


def _check_scope(req: TalkersRequest) -> None:
    if req.switch and not Switch.objects.filter(name=req.switch).exists():
        raise BadRequest(f"no switch {req.switch!r} (names are exact, as on /switches/)")
    if req.poller_group and not Switch.objects.filter(poller_group=req.poller_group).exists():
        groups = sorted(set(Switch.objects.values_list("poller_group", flat=True)))
        raise BadRequest(f"no switch in poller group {req.poller_group!r}; poller groups: {', '.join(groups)}")


class P95:
    """Exact 95th percentiles at the plots' basis, series by series, in batches."""

    def __init__(self, plan: queries.Plan, cut: dict, done: dict):
        self.plan = plan
        self.done = done
        self.cut = cut
        self.values_read = 0
        self.computed: dict[int, float | None] = {}

    def basis(self, poll_s: float) -> str:
        return traffic_tiers.p95_basis(self.plan.start, self.plan.end, poll_s, self.cut)

    def points(self, poll_s: float) -> int:
        return traffic_tiers.points(self.basis(poll_s), self.plan.start, self.plan.end, poll_s)

    def compute(self, aggs: list[queries.Aggregate]) -> None:
        infos = catalog.load_series([a.series_id for a in aggs])
        by_basis: dict[str, list[SeriesInfo]] = {}
        for info in infos:
            by_basis.setdefault(self.basis(info.poll_interval_s), []).append(info)
            self.values_read += self.points(info.poll_interval_s)
        if self.values_read > P95_MAX_VALUES:
            raise BadRequest(f"ranking by the 95th percentile would read more than {P95_MAX_VALUES:,} rates "
                             f"({len(self.computed) + len(aggs):,} series so far): narrow the scope (switch, poller "
                             "group, group), shorten the window, or rank by average or peak")
        k = {a.series_id: a.k for a in aggs}
        for basis, group in by_basis.items():
            start, end = traffic_tiers.align(basis, self.plan.start, self.plan.end)
            main, tail = traffic_tiers.segments(basis, start, end, self.done)
            for sid, value in traffic_queries.p95(group, basis, main, tail).items():
                self.computed[sid] = None if value is None else value * k[sid]


def _p95_top(aggs: list[queries.Aggregate], n: int, p95: P95) -> bool:
    """Percentiles of the series in descending peak order (aggs), until no other can reach the
    n-th: True when that point was reached, False when every series given was examined."""
    i, size = 0, n + 10
    while i < len(aggs):
        p95.compute(aggs[i:i + size])
        i += size
        found = sorted((v for v in p95.computed.values() if v is not None), reverse=True)
        if len(found) >= n and i < len(aggs) and (aggs[i].peak or 0.0) < found[n - 1]:
            return True
        size = min(size * 2, P95_BATCH_MAX)
    return False


def _p95_all(aggs: list[queries.Aggregate], p95: P95) -> None:
    for i in range(0, len(aggs), P95_BATCH_MAX):
        p95.compute(aggs[i:i + P95_BATCH_MAX])


def _by_p95(req: TalkersRequest, plan: queries.Plan, sel: str, params: dict, filter_first: bool, p95: P95,
            in_scope: int) -> tuple[list[queries.Aggregate], queries.Totals]:
    """The series ranked by their exact 95th percentile (see the module's docstring)."""
    if req.order == "bottom":
        if in_scope * p95.points(15.0) > P95_MAX_VALUES:
            raise BadRequest(f"ranking the least used by the 95th percentile reads every series' rates: {in_scope:,} "
                             f"series x {p95.points(15.0):,} = more than the {P95_MAX_VALUES:,} rates one ranking may "
                             "read: narrow the scope (switch, poller group, group) or the window, or rank by average")
        aggs, totals = queries.aggregate(plan, sel, params, filter_first, "peak", False, None)
        _p95_all(aggs, p95)
    else:
        aggs, totals = queries.aggregate(plan, sel, params, filter_first, "peak", True, P95_CANDIDATES)
        if not _p95_top(aggs, req.n, p95) and totals.count > len(aggs):
            raise BadRequest(f"ranking by the 95th percentile did not settle within the {P95_CANDIDATES:,} series of "
                             "highest peak: narrow the scope or the window, or rank by peak or average")
    computed = {a.series_id: v for a in aggs if (v := p95.computed.get(a.series_id)) is not None}
    ranked = [a for a in aggs if a.series_id in computed]
    sign = -1 if req.order == "top" else 1
    ranked.sort(key=lambda a: (sign * computed[a.series_id], a.series_id))
    return ranked[:req.n], totals


class NothingInScope(BadRequest):
    """The scope holds no series of the asked kind: a mistake in the request, unless the archive
    holds no series at all (a new archive: the page says so without an error)."""

    def __init__(self, message: str, empty_archive: bool):
        super().__init__(message)
        self.empty_archive = empty_archive


def build(req: TalkersRequest) -> Ranking:
    started = time.perf_counter()
    _check_scope(req)
    now, done = traffic_queries.now_and_watermarks()
    lo, hi = window(req, now)
    group_ids = _group_ids(req.group) if req.group else None
    sel, params = queries.selection(req, group_ids)
    in_scope, no_capacity, archive = queries.counts(sel, params)
    if in_scope == 0:
        raise NothingInScope(f"no {req.metric} series of entity {req.entity} in {req.scope_text}"
                             + (f" (direction {req.direction})" if req.direction != "both" else ""),
                             empty_archive=archive == 0)
    cut = traffic_queries.retention_cutoffs(now)
    plan = queries.plan(lo, hi, in_scope, cut, done)
    filter_first = in_scope * 2 < archive
    p95 = P95(plan, cut, done)
    if req.by == "p95":
        head, totals = _by_p95(req, plan, sel, params, filter_first, p95, in_scope)
    else:
        head, totals = queries.aggregate(plan, sel, params, filter_first, req.by, req.order == "top", req.n)
    value = {"average": lambda a: a.average, "peak": lambda a: a.peak,
             "p95": lambda a: p95.computed.get(a.series_id)}[req.by]
    rate = req.unit == "rate"
    infos = {s.id: s for s in catalog.load_series([a.series_id for a in head])}
    rows = [Row(i + 1, infos[a.series_id], a, p95.computed.get(a.series_id), value(a),
                (a.average or 0.0) / totals.average if rate and totals.average else None) for i, a in enumerate(head)]
    rest_avg = totals.average - sum(a.average or 0.0 for a in head)
    rest_bytes = (totals.total_bytes - sum(a.total * (a.kb or 0) for a in head)
                  if totals.total_bytes is not None else None)
    other = Other(totals.count - len(head), rest_avg if rate else None, rest_bytes,
                  totals.total - sum(a.total for a in head),
                  rest_avg / totals.average if rate and totals.average else None)
    label = "% of capacity" if req.unit == "pct" else UNIT_LABEL[req.metric]
    r = Ranking(req, plan.start, plan.end, plan, label, rows, other, in_scope, totals.count,
                in_scope - no_capacity - totals.count, no_capacity)
    if req.by == "p95":
        r.p95_basis = p95.basis(min(row.info.poll_interval_s for row in rows) if rows else 15.0)
        r.p95_computed = len(p95.computed)
    r.notes = _notes(r, hi)
    r.server_ms = round((time.perf_counter() - started) * 1000, 1)
    return r


def _notes(r: Ranking, asked_end: datetime) -> list[str]:
    notes = [f"window {iso(r.start)} to {iso(r.end)}: whole buckets of the {r.plan.tier.name} tier "
             f"({r.in_scope:,} series in scope; a ranking reads at most {queries.MAX_ROWS:,} tier rows)"]
    if r.plan.end < asked_end and r.in_scope > queries.TAIL_MAX_SERIES:
        notes.append(f"a scope of more than {queries.TAIL_MAX_SERIES:,} series ends at the last bucket the rollup "
                     f"finished ({iso(r.plan.end)})")
    if r.without_data:
        notes.append(f"{r.without_data:,} series of the scope have no traffic drawn in the window and are not ranked")
    if r.without_capacity:
        notes.append(f"{r.without_capacity:,} series without a known capacity are left out of % of capacity")
    if r.p95_basis:
        why = ("no other could rank: each one's peak is below the percentile of the last row" if r.req.order == "top"
               else "every series of the scope")
        notes.append(f"95th percentile of {traffic_tiers.RES_LABEL[r.p95_basis]} (as the plots compute it), computed "
                     f"for {r.p95_computed:,} series ({why})")
    return notes
