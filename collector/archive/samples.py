"""Raw samples of chosen series around a time window, as numpy columns (for cell accounting).

A sample covers (time - interval, time]; the ones returned are those that end after `lo` and
start before `hi` (ending at most LOOKAHEAD past `hi`): exactly what numerics/accounting.py
count_window needs to bound the count of the window from both sides.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.db import connection

from collector.archive import settled_read
from collector.archive.rollup import drawn_sql
from collector.core.facts import NOT_DRAWN

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
        cur.execute("SELECT id, switch_id FROM traffic_series WHERE id = ANY(%s)", [series_ids])
        owners = cur.fetchall()
    for piece in settled_read.pieces_for(owners, lo, hi + LOOKAHEAD):
        rows += _settled(piece, lo, hi + LOOKAHEAD)
    rows.sort(key=lambda r: (r[0], r[1]))
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


def _settled(piece: settled_read.Piece, lo: datetime, ahead: datetime) -> list[tuple]:
    """The statement's rows for a switch's settled polls in (lo, ahead], with the same rule (drawn_sql)."""
    got = settled_read.read(piece.switch_id, piece.series_ids, lo, ahead)
    inside = got.time_us > settled_read.to_us(lo)
    t = (got.time_us / 1e6).tolist()
    iv = np.where(got.interval_null, 0, got.interval_ms)
    span = (iv / 1000).tolist()
    out = []
    for sid in piece.series_ids:
        c = got.columns[sid]
        ok = (~c.delta_null) & ((c.flags & int(NOT_DRAWN)) == 0) & (~got.interval_null) & (iv > 0)
        d = np.where(c.delta_null, 0, c.delta).tolist()
        okl = ok.tolist()
        out += [(sid, t[i], span[i], d[i], okl[i]) for i in np.flatnonzero(c.present & inside).tolist()]
    return out
