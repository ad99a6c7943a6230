"""The latest state of the archive: each switch's newest stored poll (its rates and counter
values, for the status pages and the map), the first stored poll, the rates in a tier's bucket at
a past time, and the range of times the tiers still hold. A fixed number of queries, never one per
row: one LATERAL query reads the newest row of every switch asked, each series at its position in
the row's layout; rate = delta / interval.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from collector.archive import tier_read
from collector.archive.tiers import TIERS, floor_time
from collector.core.facts import stored_to_u64


@dataclass
class Latest:
    """The latest stored poll of one switch, indexed by series id."""
    switch_id: int
    time: datetime
    interval_ms: int | None
    uptime_cs: int | None
    values: dict[int, tuple[int | None, int | None, int]]     # series id -> (raw, delta, flags)

    def rate(self, series_id: int | None) -> tuple[float | None, int]:
        """(units per second, flags) of a series at this poll; None when withheld or absent."""
        if series_id is None or series_id not in self.values:
            return None, 0
        _, delta, flags = self.values[series_id]
        if delta is None or not self.interval_ms:
            return None, flags
        return delta / (self.interval_ms / 1000), flags

    def raw(self, series_id: int | None) -> int | None:
        if series_id is None or series_id not in self.values:
            return None
        return stored_to_u64(self.values[series_id][0])


_LATEST_SQL = """
SELECT sw.id, s.time, s.interval_ms, s.uptime_cs, s.raw, s.delta, s.flags, l.series_ids
FROM unnest(%s::int[]) AS sw(id)
CROSS JOIN LATERAL (
    SELECT t.time, t.interval_ms, t.uptime_cs, t.raw, t.delta, t.flags, t.layout_id
    FROM traffic_sample t
    WHERE t.switch_id = sw.id {bound}
    ORDER BY t.time DESC LIMIT 1
) s
JOIN traffic_layout l ON l.id = s.layout_id
"""


def latest_samples(switch_ids) -> dict[int, Latest]:
    """The latest sample row of each switch: one query (a second one only for switches that have
    not stored a poll in the last two days)."""
    ids = sorted(set(switch_ids))
    if not ids:
        return {}
    out: dict[int, Latest] = {}
    with connection.cursor() as cur:
        cur.execute(_LATEST_SQL.format(bound="AND t.time > now() - interval '2 days'"), [ids])
        rows = cur.fetchall()
        missing = set(ids) - {r[0] for r in rows}
        if missing:
            cur.execute(_LATEST_SQL.format(bound=""), [sorted(missing)])
            rows += cur.fetchall()
    for sid, time, interval_ms, uptime_cs, raw, delta, flags, series_ids in rows:
        out[sid] = Latest(sid, time, interval_ms, uptime_cs,
                          {s: (r, d, f) for s, r, d, f in zip(series_ids, raw, delta, flags)})
    return out


def archive_starts(switch_ids) -> dict[int, datetime]:
    """The time of the first stored poll of each switch (one query)."""
    ids = sorted(set(switch_ids))
    if not ids:
        return {}
    with connection.cursor() as cur:
        cur.execute("""
            SELECT sw.id, least(s.time, p.first_time) FROM unnest(%s::int[]) AS sw(id)
            LEFT JOIN LATERAL (SELECT t.time FROM traffic_sample t WHERE t.switch_id = sw.id
                               ORDER BY t.time ASC LIMIT 1) s ON true
            LEFT JOIN LATERAL (SELECT t.first_time FROM traffic_settled_poll t WHERE t.switch_id = sw.id
                               ORDER BY t.lo ASC LIMIT 1) p ON true
            WHERE s.time IS NOT NULL OR p.first_time IS NOT NULL""", [ids])
        return dict(cur.fetchall())


# The latest poll of each switch (within 2 days, as latest_samples), and of it only the
# elements of the series asked: the whole arrays of 2,100 switches were 200,000 values to decode.
# One row per switch (its latest poll's time once, the asked series' values as arrays): a row per
# series made the driver parse the same time 10,000 times at 100,000 ports (figure 13p).
_RATES_NOW = """
SELECT sw.id, s.time, s.interval_ms, array_agg(x.sid), array_agg(x.delta), array_agg(x.flags)
  FROM unnest(%s::int[]) AS sw(id)
 CROSS JOIN LATERAL (SELECT t.time, t.interval_ms, t.delta, t.flags, t.layout_id FROM traffic_sample t
                      WHERE t.switch_id = sw.id {bound}
                      ORDER BY t.time DESC LIMIT 1) s
  JOIN traffic_layout l ON l.id = s.layout_id
 CROSS JOIN LATERAL (SELECT u.sid, s.delta[u.pos] AS delta, s.flags[u.pos] AS flags
                       FROM unnest(l.series_ids) WITH ORDINALITY AS u(sid, pos) WHERE u.sid = ANY(%s)) x
 GROUP BY sw.id, s.time, s.interval_ms"""


def rates_now(switch_ids: set[int], sids: set[int]) -> tuple[dict[int, tuple[float | None, int]], datetime | None]:
    """sid -> (units/s, flags) from the latest poll of each switch (the switches of the series
    asked); and the oldest of those polls."""
    if not sids or not switch_ids:
        return {}, None
    out: dict[int, tuple[float | None, int]] = {}
    times: dict[int, datetime] = {}
    with connection.cursor() as cur:
        cur.execute(_RATES_NOW.format(bound="AND t.time > now() - interval '2 days'"),
                    [sorted(switch_ids), sorted(sids)])
        rows = cur.fetchall()
        missing = switch_ids - {r[0] for r in rows}
        if missing:        # switches not polled for two days: their last poll, however old
            cur.execute(_RATES_NOW.format(bound=""), [sorted(missing), sorted(sids)])
            rows += cur.fetchall()
    for switch_id, time, interval_ms, ids, deltas, flags in rows:
        per_s = interval_ms / 1000 if interval_ms else None
        for sid, delta, flag in zip(ids, deltas, flags):
            out[sid] = (delta / per_s if delta is not None and per_s else None, flag or 0)
        times[switch_id] = time
    return out, (min(times.values()) if times else None)


def rates_at(at: datetime, sids: set[int]) -> tuple[dict[int, tuple[float | None, int]], str, datetime | None]:
    """sid -> (units/s, flagged samples) in the bucket of the finest tier that holds `at`."""
    if not sids:
        return {}, "", None
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT id, switch_id FROM traffic_series WHERE id = ANY(%s)", [sorted(sids)])
        pairs = cur.fetchall()
        for tier in TIERS:
            bucket = floor_time(at, tier.seconds)
            source = tier_read.stage(cur, tier, pairs, bucket, bucket + tier.width, rates=())
            cur.execute(f"SELECT series_id, sum_delta, sum_interval_ms, flagged FROM {source} t "
                        "WHERE series_id = ANY(%s) AND bucket = %s", [sorted(sids), bucket])
            rows = cur.fetchall()
            if rows:
                return ({sid: ((delta / (ms / 1000.0)) if ms else None, flagged) for sid, delta, ms, flagged in rows},
                        tier.name, bucket)
    return {}, "", None


SETTLED = "traffic_settled_tier"
ROLLUPS = ("traffic_rollup_1d", "traffic_rollup_1h", "traffic_rollup_15m", "traffic_rollup_1m", SETTLED)


def retained() -> tuple[datetime | None, datetime | None]:
    """The oldest bucket any tier still holds, and the newest 1-minute bucket (the slider's range).

    Read from the edge chunks only (retention drops whole chunks, collector/archive/rollup.py):
    min(bucket) of a whole tier has no index to use and read 4.7 M rows of the 1-day tier at
    100,000 ports (0.6 s); now the oldest chunk of each tier and the newest of the 1-minute one."""
    with connection.cursor() as cur:
        cur.execute("SELECT hypertable_name, min(range_end), max(range_start) FROM timescaledb_information.chunks "
                    "WHERE hypertable_name = ANY(%s) GROUP BY hypertable_name", [list(ROLLUPS)])
        edges = {name: (first_end, last_start) for name, first_end, last_start in cur.fetchall()}
        if not edges:
            return None, None
        # settled buckets: the oldest chunk of blocks (by their span's start) holds the oldest
        oldest_sql = " UNION ALL ".join(f"(SELECT min(first_bucket) FROM {t} WHERE lo < %s)" if t == SETTLED else
                                        f"(SELECT min(bucket) FROM {t} WHERE bucket < %s)" for t in edges)
        newest = edges.get("traffic_rollup_1m")
        cur.execute(f"SELECT (SELECT min(m) FROM ({oldest_sql}) o(m)), "
                    + ("(SELECT max(bucket) FROM traffic_rollup_1m WHERE bucket >= %s)" if newest else "NULL"),
                    [first_end for first_end, _ in edges.values()] + ([newest[1]] if newest else []))
        return cur.fetchone()
