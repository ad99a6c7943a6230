"""Totals since the archive began, per series: the rollup tiers up to their watermarks (1 d, then 1 h,
15 min, 1 min for the stretch each finer tier adds), then the raw deltas after the last watermark,
counted as collector/archive/rollup.py counts them (not NULL, not OVER_CAPACITY, interval > 0);
when no rollup has run yet, all raw deltas are summed, within a time budget (the status pages).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import OperationalError, connection, transaction

from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIERS

TOTALS_BUDGET_MS = 300      # the raw tail is summed only if it takes less (the page must answer in a second)


@dataclass
class Totals:
    """Sums of deltas per series since the archive began, or why they are not available."""
    by_series: dict[int, int]
    available: bool = True
    through: dict[str, datetime] = field(default_factory=dict)     # rollup tier -> done_until used
    raw_from: datetime | None = None                               # raw polls summed from here on
    why: str = ""

    def get(self, sid, default=None):
        return self.by_series.get(sid, default)

    def __contains__(self, sid) -> bool:
        return sid in self.by_series

    def __getitem__(self, sid) -> int:
        return self.by_series[sid]


def totals(switch_ids, series_ids) -> Totals:
    """Sum of the deltas of each series since the archive began, in three queries: the rollup
    tiers up to their watermarks (coarsest first, each finer tier adding the stretch after the
    previous one), then the raw polls after the last watermark. The statement is bounded by
    TOTALS_BUDGET_MS: when the rollups are far behind (or have never run) and the raw tail is
    too long to sum in time, the totals are reported unavailable rather than slowing the page."""
    sids = sorted(set(series_ids))
    swids = sorted(set(switch_ids))
    if not sids or not swids:
        return Totals({})
    parts: list[str] = []
    params: list[list[int] | datetime] = []
    with connection.cursor() as cur:
        cur.execute("SELECT current_setting('statement_timeout'), "
                    "(SELECT coalesce(json_object_agg(tier, done_until), '{}'::json) FROM traffic_rollup_watermark)")
        old_timeout, marks_json = cur.fetchone()
        if isinstance(marks_json, str):
            marks_json = json.loads(marks_json)
        marks = {k: datetime.fromisoformat(v) for k, v in (marks_json or {}).items()}
        lower = None
        used = {}
        for tier in reversed(TIERS):
            upper = marks.get(tier.name)
            if upper is None or (lower is not None and upper <= lower):
                continue
            cond = "bucket < %s" + ("" if lower is None else " AND bucket >= %s")
            parts.append(f"SELECT series_id, sum(sum_delta)::numeric FROM {tier.table} "
                         f"WHERE series_id = ANY(%s) AND {cond} GROUP BY 1")
            params += [sids, upper]
            if lower is not None:
                params.append(lower)
            used[tier.name] = upper
            lower = upper
        tail = ("SELECT u.sid, sum(u.d)::numeric FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
                "CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f) "
                f"WHERE s.switch_id = ANY(%s) AND u.sid = ANY(%s) AND {drawn_sql('u.d', 'u.f', 's.interval_ms')}")
        params_tail: list[list[int] | datetime] = [swids, sids]
        if lower is not None:
            tail += " AND s.time >= %s"
            params_tail.append(lower)
        parts.append(tail + " GROUP BY 1")
        out: dict[int, int] = defaultdict(int)
        nested = connection.in_atomic_block     # a savepoint: the local setting outlives it, restore it
        try:
            with transaction.atomic():
                cur.execute("SELECT set_config('statement_timeout', %s, true)", [str(TOTALS_BUDGET_MS)])
                cur.execute(" UNION ALL ".join(parts), params + params_tail)
                rows = cur.fetchall()
                if nested:
                    cur.execute("SELECT set_config('statement_timeout', %s, true)", [old_timeout])
        except OperationalError as exc:
            if "statement timeout" not in str(exc) and "canceling statement" not in str(exc):
                raise
            why = ("the rollups have not run yet" if not used else
                   f"the rollups are behind (done until {min(used.values()):%Y-%m-%d %H:%M} UTC)")
            return Totals({}, False, used, lower, f"{why}, and summing the raw polls since then takes too long")
        for sid, total in rows:
            out[sid] += int(total or 0)
    return Totals(dict(out), True, used, lower)
