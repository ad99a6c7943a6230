"""Query parameters of top talkers (page, JSON and CSV alike), parsed and checked. Pure.

  range=1h|3h|24h|7d|30d|1y, or start/end (ISO 8601)   the window (default 24h)
  switch=NAME | poller_group=NAME | group=ID or NAME    the scope (default: the whole network)
  entity=port|vp|vc|any                                 what is ranked (default port)
  metric=traffic|packets|errors|discards                default traffic (cells, else octets)
  direction=in|out|both                                 default both (each direction its own row)
  by=average|peak|p95                                   the statistic ranked (default average)
  unit=rate|pct                                         bits/s (packets/s) or % of capacity
  order=top|bottom                                      busiest or least used (default top)
  n=1..1000                                             rows before "other" (default 10)
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from collector.core.isotime import iso
from collector.reader import resolution
from collector.reader.selection import BadRequest, PlotRequest, parse_window, resolve_range, single

RANGES = ("1h", "3h", "24h", "7d", "30d", "1y")
ENTITIES = ("port", "vp", "vc", "any")
METRICS = {"traffic": "traffic (cells, else octets)", "packets": "unicast packets", "errors": "errors",
           "discards": "discards"}
DIRECTIONS = ("in", "out", "both")
BY = {"average": "average", "peak": "peak", "p95": "95th percentile"}
UNITS = ("rate", "pct")
ORDERS = ("top", "bottom")
MAX_N = 1000


@dataclass(frozen=True)
class TalkersRequest:
    range: str = "24h"
    start: datetime | None = None
    end: datetime | None = None
    switch: str = ""
    poller_group: str = ""
    group: str = ""
    entity: str = "port"
    metric: str = "traffic"
    direction: str = "both"
    by: str = "average"
    unit: str = "rate"
    order: str = "top"
    n: int = 10

    def query(self, **override: Any) -> str:
        r = replace(self, **override) if override else self
        q: list[tuple[str, str]] = []
        if r.range == "custom" and r.start:
            q += [("start", iso(r.start))] + ([("end", iso(r.end))] if r.end else [])
        else:
            q.append(("range", r.range))
        defaults = TalkersRequest()
        for f in fields(self):
            if f.name in ("range", "start", "end"):
                continue
            value = getattr(r, f.name)
            if value != getattr(defaults, f.name):
                q.append((f.name, str(value)))
        return urlencode(q, safe=",:")

    @property
    def scope_text(self) -> str:
        if self.switch:
            return f"switch {self.switch}"
        if self.poller_group:
            return f"poller group {self.poller_group}"
        if self.group:
            return f"group {self.group}"
        return "the whole network"


def _choice(params: Mapping, name: str, allowed, default: str) -> str:
    value = single(params, name, default).strip().lower()
    if value not in allowed:
        raise BadRequest(f"{name}={value!r}: use one of {', '.join(allowed)}")
    return value


def parse(params: Mapping) -> TalkersRequest:
    rng, start, end = parse_window(params, (*RANGES, "custom"))
    scopes = {k: single(params, k).strip() for k in ("switch", "poller_group", "group")}
    given = [k for k, v in scopes.items() if v]
    if len(given) > 1:
        raise BadRequest(f"{' and '.join(given)} are given together: rank one scope (or none: the whole network)")
    n_text = single(params, "n", "10").strip()
    if not n_text.isdigit() or not 1 <= int(n_text) <= MAX_N:
        raise BadRequest(f"n={n_text!r}: the number of rows ranked, 1 to {MAX_N} (the rest is the 'other' row)")
    req = TalkersRequest(rng, start, end, scopes["switch"], scopes["poller_group"], scopes["group"],
                         _choice(params, "entity", ENTITIES, "port"), _choice(params, "metric", METRICS, "traffic"),
                         _choice(params, "direction", DIRECTIONS, "both"), _choice(params, "by", BY, "average"),
                         _choice(params, "unit", UNITS, "rate"), _choice(params, "order", ORDERS, "top"),
                         int(n_text))
    if req.unit == "pct" and req.metric in ("errors", "discards"):
        raise BadRequest(f"unit=pct: {req.metric} have no capacity to be a share of; use unit=rate")
    return req


def window(req: TalkersRequest, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) as asked, checked (the plots' rules: not before 1990, not in the future)."""
    rng = "custom" if req.range == "custom" else req.range
    return resolve_range(PlotRequest((), rng, req.start, req.end), now, None)


assert set(RANGES) <= set(resolution.RANGES)
