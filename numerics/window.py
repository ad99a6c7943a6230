"""TCP window advice: window = rate x round-trip time (seed 002, section 2.2.2). Pure.

"The window size (in bytes) needed to ensure continuous transmission in the absence of packet
errors can be calculated simply as the product of the link speed times the round-trip delay
... about 34 Mbps ... and a round-trip delay of 60 ms, a window size of 255,000 bytes would be
needed ... conventional TCP window sizes (i.e., 32 to 64 kilobytes) limit the throughput to
about 8 to 9 Mbps" (coast to coast). And the other way round: throughput <= window / RTT.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core.facts import PAYLOAD_BYTES

# The windows TCP offers without window scaling (RFC 7323): the seed's "32 to 64 kilobytes".
CONVENTIONAL_WINDOWS = (32_768, 65_535)
MAX_UNSCALED_WINDOW = 65_535
MAX_WINDOW_SCALE = 14           # RFC 7323: the shift count is at most 14


def window_bytes(rate_bps: float, rtt_s: float) -> float:
    """Bytes in flight needed to keep a path of `rate_bps` busy over `rtt_s`."""
    _check(rate_bps, rtt_s)
    return rate_bps * rtt_s / 8


def throughput_limit_bps(window: float, rtt_s: float) -> float:
    """The most a window of `window` bytes can carry per second over `rtt_s`."""
    _check(window, rtt_s)
    return window * 8 / rtt_s


def window_scale(window: float) -> int:
    """The smallest RFC 7323 shift count that lets TCP advertise `window` bytes."""
    shift = 0
    while (MAX_UNSCALED_WINDOW << shift) < window and shift < MAX_WINDOW_SCALE:
        shift += 1
    return shift


def payload_bps(cells_per_s: float) -> float:
    """The AAL payload rate of a cell rate: what a TCP connection over the VC can at most use."""
    return cells_per_s * PAYLOAD_BYTES * 8


@dataclass(frozen=True)
class Limit:
    window: int
    limit_bps: float
    share: float            # of the bottleneck rate (capped at 1)


@dataclass(frozen=True)
class Advice:
    rate_bps: float         # the bottleneck rate the advice is for
    rtt_s: float
    window: float           # bytes needed = rate x RTT
    scale: int              # window scale shift needed (0 = none)
    limits: list[Limit]     # what conventional windows limit the throughput to


def advise(rate_bps: float, rtt_s: float, windows: tuple[int, ...] = CONVENTIONAL_WINDOWS) -> Advice:
    need = window_bytes(rate_bps, rtt_s)
    limits = [Limit(w, throughput_limit_bps(w, rtt_s), min(1.0, throughput_limit_bps(w, rtt_s) / rate_bps))
              for w in windows]
    return Advice(rate_bps, rtt_s, need, window_scale(need), limits)


def _check(amount: float, rtt_s: float) -> None:
    if not amount > 0:
        raise ValueError(f"a rate or window must be > 0, not {amount}")
    if not 0 < rtt_s <= 60:
        raise ValueError(f"a round-trip time must be within (0, 60] seconds, not {rtt_s}")
