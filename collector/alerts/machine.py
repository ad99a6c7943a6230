"""The state machine of one rule on one object, pure (no Django): ok -> pending -> firing -> resolved.

Each evaluation reduces what the archive says about the object to a Reading of three answers:

  onset   the latest value is beyond the threshold (or the object is down now): enters or keeps pending;
  breach  the firing condition holds: the whole window beyond the threshold (its average, or every
          sample of it), or the condition has held `hold` since pending began;
  clear   the recovery condition holds: the window back on the good side of the RECOVERY value,
          which lies on the good side of the threshold (hysteresis).

A firing alert resolves only on `clear`, so a rate hovering between recovery and threshold keeps
firing instead of flapping; pending -> ok sends nothing. A Reading of None (no data: the switch is
not polled, the host not checked) changes nothing: the not-polled and unreachable rules say that.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

OK, PENDING, FIRING, RESOLVED = "ok", "pending", "firing", "resolved"


@dataclass(frozen=True)
class Reading:
    onset: bool
    breach: bool
    clear: bool


@dataclass(frozen=True)
class Step:
    state: str
    since: datetime
    pending_since: datetime | None
    changed: bool           # a transition to record (resolved -> ok is silent)


def step(state: str, since: datetime, pending_since: datetime | None, reading: Reading | None,
         now: datetime, hold: timedelta = timedelta(0)) -> Step:
    """The next state. `hold`: how long breach must last since pending began before firing (the
    rate rules put their window in `breach` itself and hold 0)."""
    if reading is None:
        return Step(state, since, pending_since, False)
    if state in (OK, RESOLVED):
        if reading.breach and hold <= timedelta(0):
            return Step(FIRING, now, now, True)
        if reading.onset or reading.breach:
            return Step(PENDING, now, now, True)
        if state == RESOLVED:
            return Step(OK, now, None, False)
        return Step(OK, since, None, False)
    if state == PENDING:
        started = pending_since or since
        if reading.breach and now - started >= hold:
            return Step(FIRING, now, started, True)
        if reading.onset or reading.breach:
            return Step(PENDING, since, started, False)
        return Step(OK, now, None, True)
    if state == FIRING:
        if reading.clear:
            return Step(RESOLVED, now, None, True)
        return Step(FIRING, since, pending_since, False)
    raise ValueError(f"unknown alert state {state!r}")


@dataclass(frozen=True)
class Window:
    """A rate series over a window, in the rule's unit (None: no usable sample)."""
    latest: float | None
    average: float | None
    low: float | None       # the lowest sample of the window
    high: float | None      # the highest
    complete: bool          # samples cover the whole window


def rate_reading(w: Window, *, above: bool, every: bool, threshold: float, recovery: float) -> Reading | None:
    """Reading of a rate rule. Above: fires when the average (or every sample: the lowest) is
    above threshold over a complete window; resolves when the average (or every sample: the
    highest) is below recovery. Below: the mirror image."""
    if w.latest is None or w.average is None:
        return None
    fire_value = (w.low if above else w.high) if every else w.average
    clear_value = (w.high if above else w.low) if every else w.average
    assert fire_value is not None and clear_value is not None

    def beyond(v: float, limit: float) -> bool:
        return v > limit if above else v < limit

    return Reading(onset=beyond(w.latest, threshold),
                   breach=w.complete and beyond(fire_value, threshold),
                   clear=not beyond(clear_value, recovery) and clear_value != recovery)


def condition_reading(holds: bool | None) -> Reading | None:
    """Reading of a yes/no condition (down, not polled, unreachable, a discontinuity in the window)."""
    if holds is None:
        return None
    return Reading(onset=holds, breach=holds, clear=not holds)


def active_until(until: datetime | None, now: datetime) -> bool:
    """A mute or an acknowledgement with an expiry: in force until then (None: not set)."""
    return until is not None and until > now


def check_recovery(threshold: float, recovery: float | None, above: bool) -> str:
    """'' if recovery lies on the good side of the threshold (or is the threshold), else why not."""
    if recovery is None or recovery == threshold:
        return ""
    if above and recovery > threshold:
        return (f"the recovery value {recovery:g} is above the threshold {threshold:g}: an alert on a rate above "
                "the threshold resolves when it falls below the recovery value, so give one at or below it")
    if not above and recovery < threshold:
        return (f"the recovery value {recovery:g} is below the threshold {threshold:g}: an alert on a rate below "
                "the threshold resolves when it rises above the recovery value, so give one at or above it")
    return ""
