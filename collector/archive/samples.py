"""Raw samples of chosen series around a time window, as numpy columns (for cell accounting).

A sample covers (time - interval, time]; the ones returned are those that end after `lo` and
start before `hi` (ending at most LOOKAHEAD past `hi`): exactly what analysis/accounting.py
count_window needs to bound the count of the window from both sides.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.db import connection

from collector.archive.rollup import drawn_sql

LOOKAHEAD = timedelta(hours=1)
MAX_SPAN = timedelta(days=31)        # bounded work: a month of 15 s samples is ~180,000 per series


@dataclass(frozen=True)
class SampleColumns:
    t_end: np.ndarray      # epoch seconds
    span: np.ndarray       # seconds covered
    delta: np.ndarray      # units counted (0 where unusable)
    usable: np.ndarray     # bool: the delta counts as traffic (drawn)


def window_samples(series_ids: list[int], lo: datetime, hi: datetime) -> dict[int, SampleColumns]:
    if hi - lo > MAX_SPAN:
        raise ValueError(f"a window of {(hi - lo).days} days is longer than the {MAX_SPAN.days} days "
                         "that raw samples are read for at once")
    if not series_ids:
        return {}
    drawn = drawn_sql("u.d", "u.f", "s.interval_ms")
    with connection.cursor() as cur:
        cur.execute(f"""
SELECT u.sid, extract(epoch FROM s.time), coalesce(s.interval_ms, 0) / 1000.0, coalesce(u.d, 0), {drawn}
FROM traffic_sample s
JOIN traffic_layout l ON l.id = s.layout_id
CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f)
WHERE s.switch_id IN (SELECT switch_id FROM traffic_series WHERE id = ANY(%(ids)s))
  AND s.time > %(lo)s AND s.time <= %(ahead)s AND u.sid = ANY(%(ids)s)
ORDER BY u.sid, s.time""", {"ids": series_ids, "lo": lo, "ahead": hi + LOOKAHEAD})
        rows = cur.fetchall()
    by_series: dict[int, list] = defaultdict(list)
    for sid, t, span, d, ok in rows:
        by_series[sid].append((float(t), float(span), float(d), bool(ok)))
    out = {}
    hi_s = hi.timestamp()
    for sid, items in by_series.items():
        a = np.asarray([x[:3] for x in items], dtype=np.float64)
        keep = (a[:, 0] - a[:, 1]) < hi_s
        out[sid] = SampleColumns(a[keep, 0], a[keep, 1], a[keep, 2], np.asarray([x[3] for x in items])[keep])
    return out
