"""Cumulative totals of counter series as a monitoring system scrapes them (the Prometheus exposition,
webapp/metrics): per series, the sum of every delta the archive draws as traffic since the series'
first reading, and the time of the newest poll that read it.

A total never goes back. A 32-bit wrap adds its true amount (the archived delta is exact); a
reboot, a counter reset, a width change or a first reading add nothing (their delta is NULL: the
traffic across them is unknown, and the total simply continues); missed polls add the delta across
the gap (exact, its timing averaged); an over-capacity delta is kept in the archive but, as in every
plot and rollup, not counted (collector/archive/rollup.py drawn_sql). So Prometheus's rate() and
increase() over these totals equal Cellar's own average rate over the same polls.

How a total is read, in one statement per piece of PIECE series (one snapshot: the total, the
watermarks it was cut at and the newest poll always agree): the series' carried sum of its 1-day
buckets before the 1-day watermark (traffic_series_total, one row a series, kept by the rollup:
collector/archive/rollup.py carry_1d_sql), then the 1 h, 15 min and 1 min buckets for the stretch
each finer tier adds after the coarser one's watermark (at most a day of hours, four quarters, 15
minutes), then the raw deltas after the 1-minute watermark (two to three minutes when the rollup
runs). So the rows read per series do not grow with the archive's age (docs/benchmarks.md, figure
14: summing two years of 1-day buckets per scrape took 4 s for 10,000 series). Tier sums are exact
sums of the raw deltas, so a watermark that moves between two scrapes moves the same deltas from
one store to the next and the total does not change (tests/collector/reader/test_cumulative.py).
The scope is refused, never truncated, above the cardinality limit.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import connection

from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIERS
from collector.core.facts import Flag
from collector.groups import resolve as groups

# A switch whose newest poll is older than this has no sample in the exposition: Prometheus refuses
# samples older than its head block (about an hour) and a stale value would be drawn as current.
FRESH = timedelta(hours=1)
# Series whose totals one statement reads: the rows the web process holds at a time (the text of the
# whole scrape is built piece by piece: ~115 bytes a series).
PIECE = 2000

# The gone rule of groups (series, port, VP or VC vanished from the agent).
_GONE = groups.GONE
_SCOPE_SQL = f"""
SELECT s.id, s.switch_id, sw.name, coalesce(p.name, ''), coalesce(vc.vpi, vp.vpi), vc.vci, s.direction,
       s.metric, s.unit, s.object_name, count(*) OVER ()
  FROM traffic_series s
  JOIN inventory_switch sw ON sw.id = s.switch_id
  LEFT JOIN inventory_port p ON p.id = s.port_id
  LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
  LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id
 WHERE s.kind = 'counter' AND sw.enabled AND {_GONE} IS NULL {{where}}
 ORDER BY s.unit, sw.name, coalesce(p.name, ''), coalesce(vc.vpi, vp.vpi) NULLS FIRST, vc.vci NULLS FIRST,
          s.metric, s.direction, s.id
 LIMIT %(limit)s"""


class ScopeError(ValueError):
    """A scrape that cannot be answered as asked; str() says why (a 400 or 404 for the scraper)."""


class UnknownScope(ScopeError, LookupError):
    pass


class TooMany(ScopeError):
    """More series in the scope than the cardinality limit: refused, never truncated."""

    def __init__(self, count: int | None, limit: int, what: str):
        self.count, self.limit = count, limit
        counted = (f"{count:,} counter series" if count is not None
                   else f"more than {groups.MAX_MEMBERS:,} counter series (more than a group may hold)")
        super().__init__(f"{what} holds {counted}; the limit of one scrape is {limit:,} series "
                         "(CELLAR_PROMETHEUS_MAX_SERIES): scrape it in parts with ?switch=NAME or ?group=ID "
                         "(one scrape job per part)")


@dataclass(frozen=True)
class Labelled:
    """One counter series as the exposition names it."""
    id: int
    switch_id: int
    switch: str
    port: str            # '' for a counter of no port
    vpi: int | None
    vci: int | None
    direction: str       # in | out | ''
    metric: str          # cells, octets, ucast_pkts, rejected_cells, discards ...
    unit: str            # cells | octets | packets: the metric family
    object_name: str     # the SNMP object (named only where two series would share every label)


@dataclass(frozen=True)
class Reading:
    series: Labelled
    total: int           # sum of the drawn deltas since the first reading
    at_ms: int           # the newest poll that read the series, epoch milliseconds


def scope(switches: Sequence[str] = (), group: str | None = None, *, limit: int) -> list[Labelled]:
    """The counter series to expose (of enabled switches, not gone), ordered by unit (one metric
    family after another) and labels: every one, or those of the switches named, or of a group
    (collector/groups/resolve.py), or of both (the group's series on those switches).
    UnknownScope for a switch or group that does not exist; TooMany above `limit` series."""
    where: list[str] = []
    params: dict[str, Any] = {"limit": limit + 1}
    what = "the archive"
    if switches:
        names = sorted(set(switches))
        with connection.cursor() as cur:
            cur.execute("SELECT name FROM inventory_switch WHERE name = ANY(%s)", [names])
            known = {row[0] for row in cur.fetchall()}
        missing = [n for n in names if n not in known]
        if missing:
            raise UnknownScope(f"no switch named {', '.join(repr(n) for n in missing)} (see /switches/)")
        where.append("AND sw.name = ANY(%(switches)s)")
        params["switches"] = names
        what = f"switch{'es' if len(names) > 1 else ''} {', '.join(names)}"
    if group is not None:
        try:
            members = groups.resolve(group, allow_empty=True)
        except groups.TooManyMembers:
            raise TooMany(None, limit, f"group {group}") from None
        except groups.GroupNotFound as exc:
            raise UnknownScope(str(exc)) from None
        except groups.GroupError as exc:
            raise ScopeError(str(exc)) from None
        where.append("AND s.id = ANY(%(ids)s::int[])")
        params["ids"] = members.series_ids
        what = f"group {members.name!r}" + (f" on {what}" if switches else "")
    with connection.cursor() as cur:
        cur.execute(_SCOPE_SQL.format(where=" ".join(where)), params)
        rows = cur.fetchall()
    if rows and rows[0][-1] > limit:
        raise TooMany(rows[0][-1], limit, what)
    return [Labelled(*row[:-1]) for row in rows]


def pieces(series: Sequence[Labelled], size: int = PIECE) -> Iterator[list[Labelled]]:
    for i in range(0, len(series), size):
        yield list(series[i:i + size])


_MISSING = int(Flag.MISSING)
# The stretch each store adds, from the watermarks as the statement sees them (one snapshot): the
# carried 1-day sums (traffic_series_total) before the 1-day watermark b1, then each finer tier from
# the coarser one's watermark to its own (an empty stretch when it is not past it), then raw samples
# from the 1-minute watermark b4 on. Without any watermark everything is raw.
_BOUNDS = """
SELECT coalesce(d, '-infinity') AS b1, greatest(d, h, '-infinity') AS b2, greatest(d, h, q, '-infinity') AS b3,
       greatest(d, h, q, m, '-infinity') AS b4
  FROM (SELECT max(done_until) FILTER (WHERE tier = '1d') AS d, max(done_until) FILTER (WHERE tier = '1h') AS h,
               max(done_until) FILTER (WHERE tier = '15m') AS q, max(done_until) FILTER (WHERE tier = '1m') AS m
          FROM traffic_rollup_watermark) w"""
_TIER_PARTS = [("1h", "b1", "b2"), ("15m", "b2", "b3"), ("1m", "b3", "b4")]
assert [t.name for t in TIERS] == ["1m", "15m", "1h", "1d"], "the stretches above name every tier"


def readings_sql() -> str:
    """The statement of one piece: per series, its newest poll within FRESH (the series answered in
    it) and the sum of its drawn deltas since its first reading (carried 1-day sums, the finer tiers
    after them, raw samples after the last watermark), in one snapshot."""
    parts = ["SELECT series_id AS sid, total FROM traffic_series_total WHERE series_id = ANY(%(ids)s::int[])"]
    for tier, lo, hi in _TIER_PARTS:
        parts.append(f"SELECT series_id, sum(sum_delta)::numeric FROM traffic_rollup_{tier} "
                     f"WHERE series_id = ANY(%(ids)s::int[]) AND bucket >= (SELECT {lo} FROM b) "
                     f"AND bucket < (SELECT {hi} FROM b) GROUP BY 1")
    parts.append("SELECT u.sid, sum(u.d)::numeric "
                 "FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
                 "CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f) "
                 "WHERE s.switch_id = ANY(%(sw)s::int[]) AND s.time >= (SELECT b4 FROM b) "
                 "AND u.sid = ANY(%(ids)s::int[]) "
                 f"AND {drawn_sql('u.d', 'u.f', 's.interval_ms')} GROUP BY 1")
    return f"""
WITH b AS MATERIALIZED ({_BOUNDS}),
newest AS (
    SELECT t.time, l.series_ids, t.flags
      FROM unnest(%(sw)s::int[]) AS sw(id)
     CROSS JOIN LATERAL (SELECT time, layout_id, flags FROM traffic_sample
                          WHERE switch_id = sw.id AND time > now() - %(fresh)s::interval
                          ORDER BY time DESC LIMIT 1) t
      JOIN traffic_layout l ON l.id = t.layout_id),
present AS (
    SELECT u.sid, n.time FROM newest n CROSS JOIN LATERAL unnest(n.series_ids, n.flags) AS u(sid, f)
     WHERE u.sid = ANY(%(ids)s::int[]) AND (u.f & {_MISSING}) = 0),
sums AS (SELECT sid, sum(total) AS total FROM ({' UNION ALL '.join(parts)}) x GROUP BY sid)
SELECT sid, NULL, (extract(epoch FROM time) * 1000)::bigint FROM present
UNION ALL SELECT sid, total::text, NULL FROM sums"""


def read(series: Sequence[Labelled]) -> Iterator[Reading]:
    """The readings of these series, in their order, one statement per PIECE of them; a series
    with no fresh poll that answered it is left out (stale: see FRESH)."""
    sql = readings_sql()
    for piece in pieces(series):
        params: dict[str, Any] = {"ids": [s.id for s in piece], "sw": sorted({s.switch_id for s in piece}),
                                  "fresh": FRESH}
        with connection.cursor() as cur:
            cur.execute(sql, params)
            rows = cur.fetchall()
        # joined here: the planner, guessing a few rows per side, joined them in a nested loop
        # (4 million comparisons, half the statement's time for 2,000 series)
        at = {sid: at_ms for sid, total, at_ms in rows if total is None}
        totals = {sid: int(total) for sid, total, _ in rows if total is not None}
        for s in piece:
            if s.id in at:
                yield Reading(s, totals.get(s.id, 0), at[s.id])
