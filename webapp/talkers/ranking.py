"""Top talkers for a request: scope, tier plan, aggregates, the ranking, the "other" row.

Ranked by average (drawn traffic over drawn time, as the plots' statistics), by peak (the
highest one-sample rate: the tiers' max_rate) or by the 95th percentile of the rates at the
plots' p95 resolution (webapp/traffic/tiers.p95_basis: the finest with at most 20,000 points, so
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
from webapp.talkers import queries
from webapp.talkers.params import TalkersRequest, window
from webapp.traffic import catalog
from webapp.traffic import queries as traffic_queries
from webapp.traffic import tiers as traffic_tiers
from webapp.traffic.catalog import SeriesInfo
from webapp.traffic.params import BadRequest

P95_MAX_VALUES = 20_000_000      # rates one ranking by percentile may read
P95_BATCH = 100
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


def _p95_top(aggs: list[queries.Aggregate], n: int, p95: P95) -> None:
    """Percentiles of the series by descending peak, until no other can reach the n-th."""
    by_peak = sorted((a for a in aggs if a.peak is not None), key=lambda a: (-a.peak, a.series_id))
    i, size = 0, max(n + 10, P95_BATCH)
    while i < len(by_peak):
        p95.compute(by_peak[i:i + size])
        i += size
        found = sorted((v for v in p95.computed.values() if v is not None), reverse=True)
        if len(found) >= n and i < len(by_peak) and by_peak[i].peak < found[n - 1]:
            break
        size = min(size * 2, 1000)


def _p95_all(aggs: list[queries.Aggregate], p95: P95) -> None:
    for i in range(0, len(aggs), 500):
        p95.compute(aggs[i:i + 500])


def build(req: TalkersRequest) -> Ranking:
    started = time.perf_counter()
    _check_scope(req)
    now, done = traffic_queries.now_and_watermarks()
    lo, hi = window(req, now)
    group_ids = _group_ids(req.group) if req.group else None
    sel, params = queries.selection(req, group_ids)
    in_scope, no_capacity, archive = queries.counts(sel, params)
    if in_scope == 0:
        raise BadRequest(f"no {req.metric} series of entity {req.entity} in {req.scope_text}"
                         + (f" (direction {req.direction})" if req.direction != "both" else ""))
    cut = traffic_queries.retention_cutoffs(now)
    plan = queries.plan(lo, hi, in_scope, cut, done)
    aggs = [a for a in queries.aggregate(plan, sel, params, filter_first=in_scope * 2 < archive) if a.drawn_s > 0]
    p95 = P95(plan, cut, done)
    if req.by == "p95":
        if req.order == "top":
            _p95_top(aggs, req.n, p95)
        else:
            _p95_all(aggs, p95)
    value = {"average": lambda a: a.average, "peak": lambda a: a.peak,
             "p95": lambda a: p95.computed.get(a.series_id)}[req.by]
    ranked = [a for a in aggs if value(a) is not None]
    sign = -1 if req.order == "top" else 1
    ranked.sort(key=lambda a: (sign * value(a), a.series_id))
    head, rest = ranked[:req.n], ranked[req.n:]
    rate = req.unit == "rate"
    total_avg = sum(a.average or 0.0 for a in aggs) if rate else None
    infos = {s.id: s for s in catalog.load_series([a.series_id for a in head])}
    rows = [Row(i + 1, infos[a.series_id], a, p95.computed.get(a.series_id), value(a),
                (a.average or 0.0) / total_avg if rate and total_avg else None) for i, a in enumerate(head)]
    rest_avg = sum(a.average or 0.0 for a in rest) if rate else None
    kb_known = all(a.kb is not None for a in rest)
    other = Other(len(rest), rest_avg, sum(a.total * a.kb for a in rest if a.kb) if kb_known else None,
                  sum(a.total for a in rest), rest_avg / total_avg if rate and total_avg else None)
    label = "% of capacity" if req.unit == "pct" else UNIT_LABEL[req.metric]
    r = Ranking(req, plan.start, plan.end, plan, label, rows, other, in_scope, len(ranked),
                in_scope - no_capacity - len(aggs), no_capacity)
    if req.by == "p95" and aggs:
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
