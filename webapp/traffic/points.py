"""Points of a plotted series, their gaps and their statistics. Pure: no database, no Django.

A Point is either one raw sample (its time is the end of its interval) or one rollup bucket
(its time is the bucket start). `delta` and `seconds` count only what is drawn as traffic
(rollup.DRAWN), so the average of any set of points is sum(delta) / sum(seconds), exactly, and
sum(delta) is exactly the archived deltas of the range.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable

from collector.rollup import FLAG_OVER_CAPACITY, FLAG_WRAP

# collector.counters.Flag bits, by name, with what they mean to someone reading a plot.
FLAGS: tuple[tuple[int, str, str], ...] = (
    (1, "WRAP", "counter wrapped; delta exact"),
    (2, "REBOOT", "agent restarted: counters began again, no delta"),
    (4, "RESET", "counters reset by the agent: no delta"),
    (8, "OVER_CAPACITY", "rate above the port's capacity: kept, not drawn"),
    (16, "MISSING", "the agent did not answer this counter"),
    (32, "FIRST", "first reading: no previous value"),
    (64, "GAP", "missed polls: average over the whole gap"),
    (128, "AMBIGUOUS", "gap too long: more than one wrap possible, no delta"),
    (256, "CLOCK", "poll clock went back: no delta"),
)
FLAG_BITS = {name: bit for bit, name, _ in FLAGS}
GAP_BIT = FLAG_BITS["GAP"]


def flag_names(flags: int) -> list[str]:
    return [name for bit, name, _ in FLAGS if flags & bit]


def flag_text(flags: int) -> str:
    return "; ".join(f"{name}: {text}" for bit, name, text in FLAGS if flags & bit)


@dataclass(slots=True)
class Point:
    t: datetime                 # raw: sample time (end of interval); rollup: bucket start
    span: float                 # seconds: the sample's interval or the bucket width
    delta: int                  # sum of drawn deltas
    seconds: float              # sum of drawn intervals
    peak: float | None          # highest drawn rate (units/s)
    low: float | None
    samples: int
    flagged: int
    flags: int = 0              # raw only: the sample's flag bits
    stored: int | None = None   # raw only: the stored delta (also when not drawn)

    @property
    def avg(self) -> float | None:
        return self.delta / self.seconds if self.seconds > 0 else None

    @property
    def drawn(self) -> bool:
        return self.seconds > 0


def raw_point(t: datetime, interval_ms: int | None, delta: int | None, flags: int) -> Point:
    drawn = delta is not None and not flags & FLAG_OVER_CAPACITY and bool(interval_ms) and interval_ms > 0
    span = (interval_ms or 0) / 1000
    rate = delta / span if drawn else None
    return Point(t, span, delta if drawn else 0, span if drawn else 0.0, rate, rate, 1,
                 1 if flags & ~FLAG_WRAP else 0, flags, delta)


def bucket_point(t: datetime, width: float, sum_delta: int, sum_interval_ms: int, max_rate: float | None,
                 min_rate: float | None, samples: int, flagged: int) -> Point:
    return Point(t, width, int(sum_delta), sum_interval_ms / 1000, max_rate, min_rate, samples, flagged)


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


def find_gaps(points: list[Point], res_seconds: float | None, poll_interval_s: float,
              start: datetime, end: datetime, now: datetime) -> list[Gap]:
    """Where the line is not drawn (or drawn as an average over missed polls), and why.

    res_seconds None: raw samples. Expected data stops one poll interval before `now` (a poll
    in flight is not a gap).
    """
    gaps: list[Gap] = []
    limit = min(end, now - timedelta(seconds=2.5 * poll_interval_s))
    if res_seconds is None:
        tol = timedelta(seconds=2.5 * poll_interval_s)
        prev_t = start
        for p in points:
            # A sample without an interval (FIRST) covers no time: what is before it is no data.
            begin = p.t - timedelta(seconds=p.span) if p.span else p.t
            if begin - prev_t > tol:
                gaps.append(Gap(prev_t, begin, "nodata", "" if prev_t > start or p is not points[0]
                                else "before the first sample in this range"))
            if not p.drawn and p.span:
                gaps.append(Gap(max(begin, start), p.t, "withheld", " ".join(flag_names(p.flags)) or "no delta"))
            elif p.drawn and p.flags & GAP_BIT:
                gaps.append(Gap(max(begin, start), p.t, "missed", f"average over {p.span:.0f} s"))
            prev_t = max(prev_t, p.t)
        if limit - prev_t > tol:
            gaps.append(Gap(prev_t, limit, "nodata"))
    else:
        width = timedelta(seconds=res_seconds)
        have = {p.t: p for p in points}
        first = points[0].t if points else None
        t = start
        while t < min(end, limit):
            p = have.get(t)
            if p is None:
                before = first is not None and t < first
                gaps.append(Gap(t, t + width, "nodata", "before the first sample in this range" if before else ""))
            elif not p.drawn:
                gaps.append(Gap(t, t + width, "withheld", f"{p.samples} samples, none drawn ({p.flagged} flagged)"))
            t += width
    return merge(gaps)


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
    p95: float | None           # 95th percentile of the rates at `p95_basis`
    p95_basis: str
    total: int                  # units (cells, octets, packets) drawn in the range
    seconds: float              # drawn time
    coverage: float | None      # drawn time / range length
    samples: int
    flagged: int
    extra: dict = field(default_factory=dict)


def stats(points: Iterable[Point], start: datetime, end: datetime, p95: float | None, p95_basis: str) -> Stats:
    total = 0
    seconds = 0.0
    peak: float | None = None
    samples = flagged = 0
    for p in points:
        total += p.delta
        seconds += p.seconds
        samples += p.samples
        flagged += p.flagged
        if p.peak is not None and (peak is None or p.peak > peak):
            peak = p.peak
    span = (end - start).total_seconds()
    return Stats(total / seconds if seconds else None, peak, p95, p95_basis, total, seconds,
                 min(1.0, seconds / span) if span > 0 else None, samples, flagged)
