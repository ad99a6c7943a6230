"""How pages, plots and the API read events (bounded: every reader names its limit).

An event TOUCHES a plotted series when it names the series' VC, VP or port, or names only the
series' switch (a reboot: every series of the switch; a wrap or discontinuity: the series its
data lists), or is a note naming nothing (a note about the whole network: every plot).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Q, QuerySet

from collector.archive.models import Series
from collector.events.models import KIND_NAMES, Event
from collector.inventory.models import Port, Switch

MAX_MARKS = 200            # markers on one plot (the most recent that touch it)
MAX_LIST = 500             # rows of one page of the events list / API
PAGE_LIST = 50             # events listed on a switch or port page

_TOUCHING = f"""
SELECT e.id, e.at, e.kind, e.source, e.message, coalesce(sw.name, ''), coalesce(p.name, ''), e.vp_id, e.vc_id
  FROM {Event._meta.db_table} e
  LEFT JOIN {Switch._meta.db_table} sw ON sw.id = e.switch_id
  LEFT JOIN {Port._meta.db_table} p ON p.id = e.port_id
 WHERE e.at >= %(start)s AND e.at <= %(end)s
   AND ((e.kind = 'note' AND e.switch_id IS NULL AND e.host_id IS NULL)
        OR EXISTS (SELECT 1 FROM {Series._meta.db_table} s WHERE s.id = ANY(%(ids)s) AND (
             (e.vc_id IS NOT NULL AND s.vc_id = e.vc_id)
          OR (e.vc_id IS NULL AND e.vp_id IS NOT NULL AND s.vp_id = e.vp_id)
          OR (e.vc_id IS NULL AND e.vp_id IS NULL AND e.port_id IS NOT NULL AND s.port_id = e.port_id)
          OR (e.vc_id IS NULL AND e.vp_id IS NULL AND e.port_id IS NULL AND e.switch_id = s.switch_id
              AND (NOT e.data ? 'series' OR e.data -> 'series' @> to_jsonb(s.id))))))
 ORDER BY e.at DESC, e.id DESC LIMIT {MAX_MARKS}"""


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
    with connection.cursor() as cur:
        cur.execute(_TOUCHING, {"start": start, "end": end, "ids": list(series_ids)})
        rows = cur.fetchall()
    return [Mark(i, at, kind, source, msg, sw, port) for i, at, kind, source, msg, sw, port, _, _ in reversed(rows)]


def recent(*, switch_id: int | None = None, port_id: int | None = None, limit: int = PAGE_LIST) -> list[Event]:
    """The newest events of a switch (all of them: its ports', VPs', VCs' too) or of one port
    (its VPs' and VCs' too)."""
    qs = Event.objects.select_related("switch", "port", "vp", "vc", "actor")
    if port_id is not None:
        qs = qs.filter(port_id=port_id)
    elif switch_id is not None:
        qs = qs.filter(switch_id=switch_id)
    return list(qs.order_by("-at", "-id")[:min(limit, MAX_LIST)])


@dataclass
class Filters:
    kinds: list[str]
    switch: str = ""
    port: str = ""
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
        if self.start is not None:
            qs = qs.filter(at__gte=self.start)
        if self.end is not None:
            qs = qs.filter(at__lt=self.end)
        if self.text:
            qs = qs.filter(message__icontains=self.text)
        return qs.order_by("-at", "-id")


def newer_state(port_events: list[Event], discovered_at: datetime | None, oper_status: str) -> Event | None:
    """The newest port_state event among `port_events` (newest first) when a trap set the port's
    present state after the switch's last discovery: the page says the state came from it."""
    ev = next((e for e in port_events if e.kind == "port_state"), None)
    if ev is None or ev.source != "trap" or ev.data.get("to") != oper_status:
        return None
    if discovered_at is not None and ev.at <= discovered_at:
        return None
    return ev
