"""Counter math: exact deltas between two readings of one SNMP counter series.

Pure: no I/O, no Django, no logging, stdlib only. Counter values are Python ints end to end
(a float64 cannot hold a Counter64 exactly, snmp_exporter #350); floats only for seconds/rates.

Caller contract (collector/archive/ingest.py, through collector/core/poll.py):
- ``prev`` is the last *answered* reading of the series, kept across MISSING polls, so a missed
  poll yields one GAP-flagged delta whose rate is the average over the hole;
- every answered reading becomes the next ``prev`` whatever its flags: a REBOOT, RESET,
  AMBIGUOUS or CLOCK reading is the baseline of what follows;
- ``Reading.at`` is the poller's wall clock at the moment the uptime was read.
A withheld delta (None) is drawn as a gap that says why (the flags), never as a spike.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from collector.core.facts import U64, Flag

TICKS_MODULUS = 1 << 32          # sysUpTime is TimeTicks (Counter-like, wraps after ~497 days)
UPTIME_TOL_MIN_CS = 500          # 5 s: poll latency between reading the clock and the uptime
UPTIME_TOL_FRACTION = 0.02       # 2 % of elapsed: agent clock drift over long gaps
OVER_TOLERANCE = 1.02            # 2 %: poll-time jitter makes a saturated link look slightly faster
GAP_FACTOR = 1.5                 # beyond 1.5x nominal at least one poll was missed
# Poll times are floats of ~1.7e9 s: their difference carries ~1e-7 s of rounding, which must
# not turn an interval of exactly the wrap time's edge into AMBIGUOUS.
AMBIGUITY_SLACK = 1 + 1e-9
# Capacity assumed for a Counter64 wrap check when the port's capacity is unknown: 2**40
# units/s (~8.8 Tb/s of octets). Above every real port, far below the ~1.8e19 "wrap" that a
# reset counter would otherwise produce (the 4e17 b/s spikes of influxdb #5337).
COUNTER64_CEILING_PER_S = 1 << 40

_F_WRAP, _F_REBOOT, _F_RESET = int(Flag.WRAP), int(Flag.REBOOT), int(Flag.RESET)
_F_OVER, _F_MISSING, _F_FIRST = int(Flag.OVER_CAPACITY), int(Flag.MISSING), int(Flag.FIRST)
_F_GAP, _F_AMBIGUOUS, _F_CLOCK = int(Flag.GAP), int(Flag.AMBIGUOUS), int(Flag.CLOCK)
_F_WITHHELD = _F_REBOOT | _F_RESET | _F_CLOCK


@dataclass(frozen=True, slots=True)
class Reading:
    at: float                            # wall-clock poll time, seconds since the Unix epoch
    uptime_cs: int | None                # agent uptime (sysUpTime / FORE uptime), centiseconds
    value: int | None                    # raw counter value as answered; None = not answered
    discontinuity_cs: int | None = None  # ifCounterDiscontinuityTime / switchCounterResetTime


@dataclass(frozen=True, slots=True)
class CounterSpec:
    width: int                     # 32 or 64
    capacity_per_s: int | None     # max units/s (cells, octets, packets) or None if unknown
    modulus: int = field(init=False, repr=False, compare=False)  # 2**width, computed once

    def __post_init__(self) -> None:
        if self.width not in (32, 64):
            raise ValueError(f"counter width must be 32 or 64, not {self.width!r}")
        if self.capacity_per_s is not None and not self.capacity_per_s > 0:
            raise ValueError("capacity_per_s must be positive or None")
        object.__setattr__(self, "modulus", 1 << self.width)


@dataclass(frozen=True, slots=True)
class Derived:
    delta: int | None        # exact increase since prev in the same epoch; None when withheld
    interval_s: float | None  # cur.at - prev.at (None without prev)
    flags: Flag

    @property
    def rate(self) -> float | None:
        """Units per second (the average over the interval; over a GAP, over the whole gap)."""
        if self.delta is None or not self.interval_s:
            return None
        return self.delta / self.interval_s


def wrap_delta(prev_value: int, cur_value: int, width: int) -> int:
    """Modular difference cur - prev in [0, 2**width): exact for any one wrap."""
    return (cur_value - prev_value) % (1 << width)


def _uptime_reboot(elapsed_s: float, prev_cs: int | None, cur_cs: int | None) -> bool:
    """True when the agent uptimes prove a restart between two polls elapsed_s apart."""
    # Why skip: without a positive wall-clock interval (clock stepped back, redelivered or
    # out-of-order poll) an uptime comparison proves nothing; derive() flags CLOCK instead.
    if prev_cs is None or cur_cs is None or elapsed_s <= 0:
        return False
    expected = elapsed_s * 100.0
    tol = max(UPTIME_TOL_MIN_CS, UPTIME_TOL_FRACTION * expected)
    # Why modular: TimeTicks wraps at 2**32 cs; a drop of ~2**32 - elapsed is that wrap.
    advanced = (cur_cs - prev_cs) % TICKS_MODULUS
    # Why: an agent that ran all along advanced by the wall-clock time; clearly less means it
    # restarted in between, e.g. during a gap, even if its uptime is by now above the old one.
    if advanced < expected - tol:
        return True
    # Why: the uptime went back, and not by one TimeTicks wrap (that would match elapsed).
    # Uptime merely ahead of the wall clock (poller clock slow) is no evidence of a restart.
    return cur_cs < prev_cs and advanced > expected + tol


def epoch_change(prev: Reading, cur: Reading) -> Flag:
    """REBOOT, RESET or NONE, from evidence only (uptime, discontinuity time), not from values."""
    if _uptime_reboot(cur.at - prev.at, prev.uptime_cs, cur.uptime_cs):
        return Flag.REBOOT  # a reboot also resets the counters: it takes precedence
    pd, cd = prev.discontinuity_cs, cur.discontinuity_cs
    # Why: the agent tells us it reset the counters (ifCounterDiscontinuityTime, FORE
    # switchCounterResetTime); any value difference across it is meaningless.
    if pd is not None and cd is not None and pd != cd:
        return Flag.RESET
    return Flag.NONE


def _check(value: int | None, modulus: int) -> None:
    # Why raise: an out-of-range value is a caller bug (e.g. a bigint not passed through
    # facts.to_u64), and guessing would produce exactly the bogus deltas this module prevents.
    if value is not None and not 0 <= value < modulus:
        raise ValueError(f"counter value {value!r} outside [0, {modulus})")


def derive(prev: Reading | None, cur: Reading, spec: CounterSpec,
           nominal_interval_s: float) -> Derived:
    """Delta and flags for one series from its previous answered reading and the current one."""
    mod = spec.modulus
    _check(cur.value, mod)
    if prev is not None:
        _check(prev.value, mod)
    interval = None if prev is None else cur.at - prev.at
    if cur.value is None:
        return Derived(None, interval, Flag.MISSING)
    if prev is None or prev.value is None:
        return Derived(None, interval, Flag.FIRST)
    assert interval is not None  # prev is not None here, so interval was computed
    flags = epoch_change(prev, cur)
    if interval <= 0:
        # Why: no rate exists without time (and never a division by zero). cur is still a
        # valid baseline: the next poll measures from it.
        return Derived(None, interval, flags | Flag.CLOCK)
    if interval > GAP_FACTOR * nominal_interval_s:
        flags |= Flag.GAP  # describes the interval, whatever happens to the delta
    if flags & (Flag.REBOOT | Flag.RESET):
        return Derived(None, interval, flags)  # new epoch: a delta would be a spike
    cap = spec.capacity_per_s
    # Why: if the counter can pass 2**width within the interval, k wraps are invisible and any
    # value is ambiguous (Counter32 at OC-3c: 2**32 / 353,207 cells/s ~ 12,160 s).
    if cap is not None and cap * interval >= mod * AMBIGUITY_SLACK:
        return Derived(None, interval, flags | Flag.AMBIGUOUS)
    delta = cur.value - prev.value
    if delta < 0:
        # Went backwards without reboot/reset evidence: one wrap, if the port can carry the
        # modular step in the interval; otherwise an unannounced reset. Counter64 with unknown
        # capacity uses COUNTER64_CEILING_PER_S: a real 64-bit wrap needs the counter to have
        # been near 2**64 (decades at line rate from 0), so a backward Counter64 is a RESET
        # unless it started at the top (some agents and simulators do), where it wraps exactly.
        bound = cap if cap is not None else (COUNTER64_CEILING_PER_S if mod == U64 else None)
        delta += mod
        if bound is not None and delta > bound * interval * OVER_TOLERANCE:
            return Derived(None, interval, flags | Flag.RESET)
        flags |= Flag.WRAP
    elif cap is not None and delta > cap * interval * OVER_TOLERANCE:
        # Why keep: the raw increase is a fact worth storing, but it is not drawn as traffic.
        flags |= Flag.OVER_CAPACITY
    return Derived(delta, interval, flags)


def derive_row(prev_at: float | None, prev_uptime_cs: int | None,
               cur_at: float, cur_uptime_cs: int | None,
               prev_values: Sequence[int | None], cur_values: Sequence[int | None],
               specs: Sequence[CounterSpec], nominal_interval_s: float,
               prev_disc: Sequence[int | None] | None = None,
               cur_disc: Sequence[int | None] | None = None,
               ) -> tuple[list[int | None], list[int]]:
    """Batch derive() for one poll of one agent: series share the poll times and uptimes.

    Element i equals derive(Reading(prev_at, prev_uptime_cs, prev_values[i], prev_disc[i]) or
    None if prev_at is None, Reading(cur_at, cur_uptime_cs, cur_values[i], cur_disc[i]),
    specs[i], nominal_interval_s) as (delta, int(flags)). Flags are plain ints (Flag(x) to
    inspect). A series whose last answered reading is older than the previous row goes
    through derive() with that reading (or is passed as None here: FIRST).
    """
    n = len(cur_values)
    if len(prev_values) != n or len(specs) != n or (
            prev_disc is not None and len(prev_disc) != n) or (
            cur_disc is not None and len(cur_disc) != n):
        raise ValueError("row sequences differ in length")
    deltas: list[int | None] = [None] * n
    flags = [0] * n
    if prev_at is None:
        prev_values = [None] * n
        interval = 0.0
        row = 0
    else:
        interval = cur_at - prev_at
        # Row-level evidence, computed once: the same rules as derive()/epoch_change().
        row = _F_REBOOT if _uptime_reboot(interval, prev_uptime_cs, cur_uptime_cs) else 0
        if interval <= 0:
            row |= _F_CLOCK
        elif interval > GAP_FACTOR * nominal_interval_s:
            row |= _F_GAP
    if prev_disc is None or cur_disc is None:
        use_disc = False
        prev_disc = cur_disc = ()  # never read: the loop reads them only when use_disc
    else:
        use_disc = True
    for i in range(n):
        cv = cur_values[i]
        pv = prev_values[i]
        spec = specs[i]
        mod = spec.modulus
        if (cv is not None and not 0 <= cv < mod) or (pv is not None and not 0 <= pv < mod):
            raise ValueError(f"counter value outside [0, {mod}) at position {i}")
        if cv is None:
            flags[i] = _F_MISSING
            continue
        if pv is None:
            flags[i] = _F_FIRST
            continue
        f = row
        if use_disc and not f & _F_REBOOT:
            pd = prev_disc[i]
            cd = cur_disc[i]
            if pd is not None and cd is not None and pd != cd:
                f |= _F_RESET
        if f & _F_WITHHELD:
            flags[i] = f
            continue
        cap = spec.capacity_per_s
        if cap is not None and cap * interval >= mod * AMBIGUITY_SLACK:
            flags[i] = f | _F_AMBIGUOUS
            continue
        d = cv - pv
        if d < 0:
            bound = cap if cap is not None else (COUNTER64_CEILING_PER_S if mod == U64 else None)
            d += mod
            if bound is not None and d > bound * interval * OVER_TOLERANCE:
                flags[i] = f | _F_RESET
                continue
            f |= _F_WRAP
        elif cap is not None and d > cap * interval * OVER_TOLERANCE:
            f |= _F_OVER
        deltas[i] = d
        flags[i] = f
    return deltas, flags
