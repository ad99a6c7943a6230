"""Points of a plotted series, their gaps and their statistics. Pure: no database, no Django.

A series' points are held column by column (`Columns`, numpy arrays): a year of 48 ports is
17,568 points, and one Python object per point cost more than the database read (benchmark 3b).
Times are epoch seconds (UTC). A raw point is one sample (its time is the end of
its interval); a bucket point is one rollup bucket (its time is the bucket start). `delta` and
`seconds` count only what is drawn as traffic (collector/archive/rollup.py DRAWN), so the average of any set of
points is sum(delta) / sum(seconds), exactly, and sum(delta) is exactly the archived deltas of
the range. Rates that do not exist (nothing drawn) are NaN in the float columns.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from collector.core.facts import NOT_DRAWN, ROUTINE, Flag, flag_names

NAN = float("nan")
GAP_BIT = int(Flag.GAP)
_NOT_DRAWN, _ROUTINE = int(NOT_DRAWN), int(ROUTINE)


def epoch(t: datetime) -> float:
    return t.timestamp()


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


@dataclass(slots=True)
class Columns:
    t: np.ndarray                      # float64 epoch seconds: sample time (raw) or bucket start
    span: np.ndarray                   # float64 seconds: the sample's interval or the bucket width
    delta: np.ndarray                  # int64 sum of drawn deltas
    seconds: np.ndarray                # float64 sum of drawn intervals
    peak: np.ndarray                   # float64 highest drawn rate (units/s), NaN: none
    low: np.ndarray                    # float64 lowest drawn rate, NaN: none
    samples: np.ndarray                # int64
    flagged: np.ndarray                # int64 samples with a flag other than WRAP
    flags: np.ndarray | None = None    # int64, raw only: the sample's flag bits
    stored: list | None = None         # raw only: the stored delta (also when not drawn), None if none

    def __len__(self) -> int:
        return len(self.t)

    def avg(self) -> np.ndarray:
        """Average rate of each point (units/s), NaN where nothing is drawn."""
        out = np.full(len(self.t), NAN)
        np.divide(self.delta, self.seconds, out=out, where=self.seconds > 0)
        return out

    def raw_flags(self) -> tuple[np.ndarray, list]:
        """(flags, stored deltas) of raw samples' columns (buckets have neither)."""
        if self.flags is None or self.stored is None:
            raise ValueError("bucket columns have no flags or stored deltas of their own (raw samples have)")
        return self.flags, self.stored


def _f(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def _i(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def empty() -> Columns:
    return Columns(_f([]), _f([]), _i([]), _f([]), _f([]), _f([]), _i([]), _i([]))


def raw_columns(rows: Iterable[tuple[float, int | None, int | None, int]]) -> Columns:
    """rows: (epoch seconds, interval_ms, stored delta or None, flag bits), oldest first."""
    t, span, delta, seconds, rate, flagged, flags, stored = [], [], [], [], [], [], [], []
    for when, interval_ms, d, f in rows:
        s = (interval_ms or 0) / 1000
        t.append(when)
        span.append(s)
        if d is not None and not f & _NOT_DRAWN and s > 0:     # drawn
            delta.append(d)
            seconds.append(s)
            rate.append(d / s)
        else:
            delta.append(0)
            seconds.append(0.0)
            rate.append(NAN)
        flagged.append(1 if f & ~_ROUTINE else 0)
        flags.append(f)
        stored.append(d)
    peak = _f(rate)
    return Columns(_f(t), _f(span), _i(delta), _f(seconds), peak, peak.copy(), np.ones(len(t), np.int64),
                   _i(flagged), _i(flags), stored)


def bucket_columns(width: float, t, delta, seconds, peak, low, samples, flagged) -> Columns:
    """Rollup buckets of one width, columns as read (seconds = sum_interval_ms / 1000)."""
    t = _f(t)
    return Columns(t, np.full(len(t), float(width)), _i(delta), _f(seconds), _f(peak), _f(low), _i(samples),
                   _i(flagged))


@dataclass
class Gap:
    lo: datetime
    hi: datetime
    kind: str          # nodata | withheld | missed (drawn as an average over the gap)
    detail: str = ""   # flags or counts
    reason: str = ""   # filled from the poll log (describe)

    def text(self) -> str:
        parts = [p for p in (self.detail, self.reason) if p]
        return "; ".join(parts) if parts else "no samples"


BEFORE_FIRST = "before the first sample in this range"


def find_gaps(c: Columns, res_seconds: float | None, poll_interval_s: float,
              start: datetime, end: datetime, now: datetime) -> list[Gap]:
    """Where the line is not drawn (or drawn as an average over missed polls), and why.

    res_seconds None: raw samples. Expected data stops 2.5 poll intervals before `now` (a poll
    in flight is not a gap).
    """
    lo, limit = epoch(start), min(epoch(end), epoch(now) - 2.5 * poll_interval_s)
    return merge(_raw_gaps(c, lo, limit, poll_interval_s) if res_seconds is None
                 else _bucket_gaps(c, lo, limit, res_seconds))


def _raw_gaps(c: Columns, lo: float, limit: float, poll_interval_s: float) -> list[Gap]:
    gaps: list[Gap] = []
    tol = 2.5 * poll_interval_s
    prev_t = lo
    assert c.flags is not None  # raw columns (raw_columns) always carry their flags
    ts, spans, secs, flags = c.t.tolist(), c.span.tolist(), c.seconds.tolist(), c.flags.tolist()
    for k in range(len(ts)):
        t, span = ts[k], spans[k]
        # A sample without an interval (FIRST) covers no time: what is before it is no data.
        begin = t - span if span else t
        if begin - prev_t > tol:
            gaps.append(Gap(at(prev_t), at(begin), "nodata", "" if prev_t > lo or k else BEFORE_FIRST))
        if not secs[k] and span:
            gaps.append(Gap(at(max(begin, lo)), at(t), "withheld", " ".join(flag_names(flags[k])) or "no delta"))
        elif secs[k] and flags[k] & GAP_BIT:
            gaps.append(Gap(at(max(begin, lo)), at(t), "missed", f"average over {span:.0f} s"))
        prev_t = max(prev_t, t)
    if limit - prev_t > tol:
        gaps.append(Gap(at(prev_t), at(limit), "nodata"))
    return gaps


def _bucket_gaps(c: Columns, lo: float, limit: float, width: float) -> list[Gap]:
    if limit <= lo:
        return []
    expected = math.ceil((limit - lo) / width)        # buckets starting before `limit`
    # The usual case, checked without a loop: every expected bucket is there (times are unique,
    # sorted and on the bucket grid, so first and last decide) and each has traffic drawn.
    if len(c.t) >= expected and c.t[0] == lo and c.t[expected - 1] == lo + (expected - 1) * width \
            and c.seconds[:expected].min() > 0:
        return []
    gaps: list[Gap] = []
    covered = lo                                      # end of the last bucket seen
    t, secs = c.t.tolist(), c.seconds.tolist()
    for k in range(len(t)):
        b = t[k]
        if b >= limit:
            break
        if b > covered:
            gaps.append(Gap(at(covered), at(b), "nodata", BEFORE_FIRST if k == 0 else ""))
        if not secs[k] > 0:
            gaps.append(Gap(at(b), at(b + width), "withheld",
                            f"{int(c.samples[k])} samples, none drawn ({int(c.flagged[k])} flagged)"))
        covered = b + width
    if covered < limit:
        gaps.append(Gap(at(covered), at(lo + expected * width), "nodata"))
    return gaps


def merge(gaps: list[Gap]) -> list[Gap]:
    """Adjacent gaps of the same kind become one."""
    out: list[Gap] = []
    for g in sorted(gaps, key=lambda g: g.lo):
        if out and out[-1].kind == g.kind and g.lo <= out[-1].hi and out[-1].detail == g.detail:
            out[-1].hi = max(out[-1].hi, g.hi)
        else:
            out.append(Gap(g.lo, g.hi, g.kind, g.detail))
    return out


def describe(gap: Gap, failures: dict[str, tuple[int, str]]) -> str:
    """Poll log outcomes inside a gap -> '12 polls timeout (No SNMP response ...)'."""
    parts = []
    for status, (count, error) in sorted(failures.items(), key=lambda kv: -kv[1][0]):
        text = f"{count} poll{'s' if count != 1 else ''} {status}"
        if error:
            text += f" ({error[:120]})"
        parts.append(text)
    return ", ".join(parts)


@dataclass
class Stats:
    average: float | None       # units/s, time-weighted over the drawn time
    peak: float | None          # highest single-sample rate
    p95: float | None           # 95th percentile of the rates at `p95_basis` (None: not asked)
    p95_basis: str
    total: int                  # units (cells, octets, packets) drawn in the range
    seconds: float              # drawn time
    coverage: float | None      # drawn time / range length
    samples: int
    flagged: int
    extra: dict = field(default_factory=dict)


def stats(c: Columns, start: datetime, end: datetime, p95: float | None, p95_basis: str) -> Stats:
    total = int(c.delta.sum())
    seconds = math.fsum(c.seconds.tolist())
    drawn = c.peak[~np.isnan(c.peak)]
    peak = float(drawn.max()) if len(drawn) else None
    span = (end - start).total_seconds()
    return Stats(total / seconds if seconds else None, peak, p95, p95_basis, total, seconds,
                 min(1.0, seconds / span) if span > 0 else None, int(c.samples.sum()), int(c.flagged.sum()))
