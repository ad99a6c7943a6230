"""How pages, plots and the API read events (bounded: every reader names its limit).

An event TOUCHES a plotted series when it names the series' VC, VP or port, or names only the
series' switch (a reboot: every series of the switch; a wrap or discontinuity: the series its
data lists), or is a note naming nothing (a note about the whole network: every plot).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import psycopg
from django.db.models import Q, QuerySet

from collector.archive.models import Series
from collector.archive.prepared import Send, read_one
from collector.events.models import KIND_NAMES, Event
from collector.inventory.models import Port, Switch

MAX_MARKS = 200            # markers on one plot (the most recent that touch it)
MAX_LIST = 500             # rows of one answer of the events API
PAGE_LIST = 50             # events listed on a switch or port page
PER_PAGE = 100             # rows of a page of the events list (/events/)
COUNT_MAX = 10_000         # matching events the list counts and pages through: past it, "more than"
MAX_PAGES = COUNT_MAX // PER_PAGE

# The plot's series' switches, ports, VPs and VCs first (one small aggregate), then the events of
# those switches in the range (index switch+at), newest first; notes about the whole network
# come from their own branch (index kind+at). Kept one statement: one round trip per plot.
_TOUCHING = f"""
WITH s AS (SELECT array_agg(DISTINCT switch_id) AS sw, array_agg(DISTINCT port_id) AS p,
                  array_agg(DISTINCT vp_id) AS vp, array_agg(DISTINCT vc_id) AS vc,
                  array_agg(jsonb_build_array(id)) AS js
             FROM {Series._meta.db_table} WHERE id = ANY(%(ids)s)),
     hit AS (
  (SELECT e.* FROM {Event._meta.db_table} e, s
    WHERE e.switch_id = ANY(s.sw) AND e.at >= %(start)s AND e.at <= %(end)s
      AND (e.vc_id = ANY(s.vc)
           OR (e.vc_id IS NULL AND e.vp_id = ANY(s.vp))
           OR (e.vc_id IS NULL AND e.vp_id IS NULL AND e.port_id = ANY(s.p))
           OR (e.vc_id IS NULL AND e.vp_id IS NULL AND e.port_id IS NULL
               AND (NOT e.data ? 'series' OR e.data -> 'series' @> ANY(s.js))))
    ORDER BY e.at DESC LIMIT {MAX_MARKS})
  UNION ALL
  (SELECT e.* FROM {Event._meta.db_table} e
    WHERE e.kind = 'note' AND e.switch_id IS NULL AND e.host_id IS NULL AND e.at >= %(start)s AND e.at <= %(end)s
    ORDER BY e.at DESC LIMIT {MAX_MARKS}))
SELECT h.id, h.at, h.kind, h.source, h.message, coalesce(sw.name, ''), coalesce(p.name, ''), h.vp_id, h.vc_id
  FROM hit h
  LEFT JOIN {Switch._meta.db_table} sw ON sw.id = h.switch_id
  LEFT JOIN {Port._meta.db_table} p ON p.id = h.port_id
 ORDER BY h.at DESC, h.id DESC LIMIT {MAX_MARKS}"""


@dataclass(frozen=True)
class Mark:
    """An event as a plot draws it."""
    id: int
    at: datetime
    kind: str
    source: str
    message: str
    switch: str
    port: str


def touching(series_ids: list[int], start: datetime, end: datetime) -> list[Mark]:
    """The events in [start, end] that touch any of the series, oldest first (at most MAX_MARKS,
    the most recent)."""
    if not series_ids:
        return []
    return read_one(send_touching(series_ids, start, end))


# _TOUCHING as one json value (newest first), for a statement that reads it with others: the plot's
# series statement (collector/reader/queries.py), whose events window is wider than the plot's, so
# they are narrowed by within() afterwards. Parameters as _TOUCHING's: ids, start, end.
TOUCHING_JSON = f"""(SELECT coalesce(json_agg(json_build_array(x.id, x.at, x.kind, x.source,
                                                   x.message, x.sw, x.port) ORDER BY x.at DESC, x.id DESC), '[]')
                  FROM ({_TOUCHING}) x(id, at, kind, source, message, sw, port, vp, vc))"""


def from_json(rows: list) -> list[Mark]:
    """TOUCHING_JSON's value as Marks, oldest first."""
    return [Mark(i, datetime.fromisoformat(at).astimezone(UTC), kind, source, msg, sw, port)
            for i, at, kind, source, msg, sw, port in reversed(rows)]


def within(wide: list[Mark], start: datetime, end: datetime) -> list[Mark] | None:
    """touching(start, end) from the events read over a window that contains [start, end]
    (oldest first), or None when that cannot be known: the wide read hit MAX_MARKS and some of
    it falls outside, so older events of [start, end] may have been left out."""
    kept = [m for m in wide if start <= m.at <= end]
    return kept if len(wide) < MAX_MARKS or len(kept) == len(wide) else None


def send_touching(series_ids: list[int], start: datetime, end: datetime) -> Send:
    """touching() as a statement to send with others (a plot sends it with its buckets:
    collector/archive/prepared.py together)."""
    args = {"start": start, "end": end, "ids": list(series_ids)}

    def send(cur: psycopg.Cursor) -> Callable[[], list[Mark]]:
        cur.execute(_TOUCHING, args, prepare=True)      # prepared: planning it cost 10x running it
        return lambda: [Mark(i, at, kind, source, msg, sw, port)
                        for i, at, kind, source, msg, sw, port, _, _ in reversed(cur.fetchall())]
    return send


def recent(*, switch_id: int | None = None, port_id: int | None = None, host_id: int | None = None,
           limit: int = PAGE_LIST) -> list[Event]:
    """The newest events of a switch (all of them: its ports', VPs', VCs' too), of one port
    (its VPs' and VCs' too) or of a host."""
    qs = Event.objects.select_related("switch", "port", "vp", "vc", "host", "actor")
    if host_id is not None:
        qs = qs.filter(host_id=host_id)
    elif port_id is not None:
        qs = qs.filter(port_id=port_id)
    elif switch_id is not None:
        qs = qs.filter(switch_id=switch_id)
    return list(qs.order_by("-at", "-id")[:min(limit, MAX_LIST)])


@dataclass
class Filters:
    kinds: list[str]
    switch: str = ""
    port: str = ""
    host: str = ""
    start: datetime | None = None
    end: datetime | None = None
    text: str = ""

    def query(self) -> QuerySet:
        qs = Event.objects.select_related("switch", "port", "vp", "vc", "host", "actor")
        kinds = [k for k in self.kinds if k in KIND_NAMES]
        if kinds:
            qs = qs.filter(kind__in=kinds)
        if self.switch:
            qs = qs.filter(Q(switch__name=self.switch) | Q(data__agent=self.switch))
        if self.port:
            qs = qs.filter(port__name=self.port)
        if self.host:
            qs = qs.filter(host__name=self.host)
        if self.start is not None:
            qs = qs.filter(at__gte=self.start)
        if self.end is not None:
            qs = qs.filter(at__lt=self.end)
        if self.text:
            qs = qs.filter(message__icontains=self.text)
        return qs.order_by("-at", "-id")


def _pages(counted: int) -> int:
    return max(1, -(-min(counted, COUNT_MAX) // PER_PAGE))


@dataclass(frozen=True)
class Listing:
    """A page of the events list. `counted` is the matching events counted up to COUNT_MAX + 1: a
    large archive is never counted to its end (that was a scan of every match for each page)."""
    number: int
    events: list[Event]
    counted: int

    @property
    def more(self) -> bool:
        return self.counted > COUNT_MAX

    @property
    def pages(self) -> int:
        return _pages(self.counted)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def listing(filters: Filters, number: int) -> Listing:
    """Page `number` (1 to MAX_PAGES; past the last, the last) of the events matching `filters`,
    newest first: two statements, a count that stops at COUNT_MAX + 1 rows and the page's rows
    (an OFFSET of at most COUNT_MAX - PER_PAGE)."""
    qs = filters.query()
    counted = qs.order_by().values("pk")[:COUNT_MAX + 1].count()
    number = min(number, _pages(counted))
    first = (number - 1) * PER_PAGE
    return Listing(number, list(qs[first:first + PER_PAGE]), counted)


def newer_state(port_events: list[Event], discovered_at: datetime | None, oper_status: str) -> Event | None:
    """The newest port_state event among `port_events` (newest first) when a trap set the port's
    present state after the switch's last discovery: the page says the state came from it."""
    ev = next((e for e in port_events if e.kind == "port_state"), None)
    if ev is None or ev.source != "trap" or ev.data.get("to") != oper_status:
        return None
    if discovered_at is not None and ev.at <= discovered_at:
        return None
    return ev
