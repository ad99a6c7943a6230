"""Codecs for settled raw samples, measured on the rows of traffic_sample (figure 5's data, or the swarm's).

Each switch's rows in a UTC day become the blocks of collector/core/settled.py (a spine and a column
per series); the options encode the same columns differently:
- "pcodec" (chosen): collector/core/settled.encode_* as Cellar stores them (deltas with pcodec, or
  their residuals from a steady rate over the poll clock where smaller; raw as its residual against
  the deltas, flags, masks);
- "zstd-dd": zstd (level 19) over the byte-transposed zigzag delta-of-delta of each column's raw
  values, its deltas and flags apart (the classic time-series layout, without pcodec);
- "zstd-delta": zstd (level 19) over byte-transposed zigzag deltas and raw residuals (settled.py's
  transform with zstd instead of pcodec).
Bytes per reading count every block's bytes (spine included) over the readings (raw array elements).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import zstandard

from collector.core import settled


def _zz(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.int64)
    return ((a << 1) ^ (a >> 63)).view(np.uint64)


def _zstd(a: np.ndarray) -> int:
    """Bytes of zstd over the byte-transposed zigzag int64 values."""
    if len(a) == 0:
        return 1
    z = _zz(a)
    shuffled = z.view(np.uint8).reshape(-1, 8).T.copy().tobytes()
    return len(zstandard.ZstdCompressor(level=19).compress(shuffled))


def _diff(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.diff(a, prepend=np.int64(0))


def sizes(col: settled.Column, spine: settled.Spine) -> dict[str, int]:
    p = col.present
    delta = np.where(col.delta_null, 0, col.delta)[p]
    raw = np.where(col.raw_null, 0, col.raw)[p]
    masks = len(settled.encode_column(settled.Column(p, np.zeros(len(p), np.int64), col.raw_null,
                                                     np.zeros(len(p), np.int64), col.delta_null,
                                                     np.zeros(len(p), np.int64))))
    return {
        "pcodec": len(settled.encode_column(col, spine)),
        "zstd-dd": masks + _zstd(_diff(_diff(raw))) + _zstd(_diff(delta)) + _zstd(col.flags[p]),
        "zstd-delta": masks + _zstd(delta) + _zstd(_diff(raw) - delta) + _zstd(col.flags[p]),
    }


def measure(cur) -> dict:
    """Bytes per reading of each option over every switch-day of traffic_sample (cur: a DB cursor)."""
    cur.execute("SELECT id, series_ids FROM traffic_layout")
    layouts = {lid: list(ids) for lid, ids in cur.fetchall()}
    cur.execute("SELECT switch_id, (extract(epoch FROM time) * 1e6)::bigint, layout_id, uptime_cs, interval_ms, "
                "raw, delta, flags, time_bucket('1 day', time) FROM traffic_sample ORDER BY switch_id, time")
    days: dict[tuple, list] = defaultdict(list)
    for sw, t, lay, up, iv, raw, delta, flags, day in cur.fetchall():
        days[(sw, day)].append((t, lay, up, iv, raw, delta, flags))
    total: dict[str, int] = defaultdict(int)
    readings = 0
    for rows in days.values():
        spine, cols = settled.split(rows, layouts)
        spine_bytes = len(settled.encode_spine(spine))
        readings += sum(len(r[4]) for r in rows)
        for c in cols.values():
            for k, v in sizes(c, spine).items():
                total[k] += v
        for k in ("pcodec", "zstd-dd", "zstd-delta"):
            total[k] += spine_bytes
    return {"readings": readings, **{k: v / readings for k, v in total.items()}}
