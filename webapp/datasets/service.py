"""The data inventory for a request: parse and check, plan the tiers, read, build the rows.

Parameters (page, JSON and CSV alike):
  switch=NAME  port=NAME    only these series
  start, end   ISO 8601 UTC (default: all the tiers hold, up to now)
  sort=COLUMN  or -COLUMN (descending); any column of table.COLUMNS
  page=N       the HTML page only (PAGE_ROWS rows a page)
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection

from collector.bursts.scan import default_rule
from collector.core.facts import EARLIEST_DATA
from collector.core.isotime import iso, parse_optional
from webapp.datasets import queries, table

PAGE_ROWS = 500


class BadRequest(ValueError):
    """str() is the message for the user (a 400)."""


@dataclass(frozen=True)
class Request:
    switch: str = ""
    port: str = ""
    start: datetime | None = None
    end: datetime | None = None
    sort: str = ",".join(table.DEFAULT_SORT)
    page: int = 1


@dataclass
class Inventory:
    req: Request
    rows: list[table.Row]
    start: datetime
    end: datetime
    segments: list[queries.Segment]
    bursts_last_scanned: datetime | None
    server_ms: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def tiers_text(self) -> str:
        return " + ".join(f"{s.tier.name} ({iso(s.lo)} – {iso(s.hi)})" for s in self.segments) or "none"


def _time(params: Mapping, name: str) -> datetime | None:
    try:
        return parse_optional(name, params.get(name))
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


def parse(params: Mapping) -> Request:
    start, end = _time(params, "start"), _time(params, "end")
    if start and end and start >= end:
        raise BadRequest(f"start {iso(start)} is not before end {iso(end)}")
    if start and start < EARLIEST_DATA:
        raise BadRequest(f"start {iso(start)} is before {EARLIEST_DATA.year}: no switch was polled then")
    sort_key = (params.get("sort") or "").strip()
    try:
        table.sort([], sort_key)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    page_text = (params.get("page") or "1").strip()
    if not page_text.isdigit() or int(page_text) < 1:
        raise BadRequest(f"page={page_text!r} is not a page number (1, 2, ...)")
    return Request((params.get("switch") or "").strip(), (params.get("port") or "").strip(), start, end,
                   sort_key or ",".join(table.DEFAULT_SORT), int(page_text))


def _oldest_tier_data() -> datetime | None:
    """Start of the oldest chunk of the 1-day tier (cheap: chunk metadata, not rows)."""
    with connection.cursor() as cur:
        cur.execute("SELECT min(range_start) FROM timescaledb_information.chunks "
                    "WHERE hypertable_name = 'traffic_rollup_1d'")
        (first,) = cur.fetchone()
    return first


def build(req: Request) -> Inventory:
    started = time.perf_counter()
    now, cutoffs = queries.cutoffs_now()
    end = min(req.end or now, now)
    start = req.start or _oldest_tier_data() or (now - timedelta(days=1))
    if start >= end:
        raise BadRequest(f"start {iso(start)} is not before {iso(end)} (end, or now)")
    ids = queries.series_ids(req.switch, req.port)
    if ids == []:
        what = f"switch {req.switch!r}" + (f" port {req.port!r}" if req.port else "")
        raise BadRequest(f"no archived series of {what} (names are exact, as on the switch page)")
    segments = queries.plan(start, end, len(ids) if ids is not None else queries.series_count(), cutoffs)
    aggs = queries.aggregates(segments, ids)
    rows: list[table.Row] = []
    if aggs:
        lo, hi = segments[0].lo, segments[-1].hi
        firsts = {sid: (a[0], a[1]) for sid, a in aggs.items()}
        lasts = {sid: (a[2], a[3]) for sid, a in aggs.items()}
        totals = {sid: a[4:7] for sid, a in aggs.items()}
        rows = table.build(queries.series_meta(list(aggs)), totals, firsts, lasts,
                           queries.burst_counts(ids, lo, hi))
    rows = table.sort(rows, req.sort)
    inv = Inventory(req, rows, start, end, segments, queries.scanned_until())
    rule = default_rule()
    inv.notes.append(f"significant bursts: {rule.describe()}, the median taken over each UTC day of 1-minute "
                     "averages (stored by the burst scan; a plot can apply another rule)")
    inv.server_ms = round((time.perf_counter() - started) * 1000, 1)
    return inv


def as_json(inv: Inventory) -> dict:
    return {"start": iso(inv.start), "end": iso(inv.end), "tiers": [
        {"tier": s.tier.name, "start": iso(s.lo), "end": iso(s.hi)} for s in inv.segments],
        "bursts_last_scanned": iso(inv.bursts_last_scanned) if inv.bursts_last_scanned else None,
        "notes": inv.notes, "server_ms": inv.server_ms, "count": len(inv.rows),
        "rows": [r.as_json() for r in inv.rows]}
