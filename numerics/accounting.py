"""Accounting: what switches counted in a window against what an application says it sent. Pure.

Seed 002, section 2.2.2: "Since an ATM cell can carry up to 48 bytes of information, we would
expect a minimum of 291,670 cells [for 14 million bytes]. The actual number of cells measured
at an intermediate switch was 297,375 ... such a result seems to indicate the absence of
significant cell losses".

Expected cells (AAL5, ITU-T I.363.5): each message (CPCS-SDU) of s bytes, plus `overhead`
bytes of headers the application does not count (e.g. 8 for LLC/SNAP, 40 more for TCP/IP),
plus the 8-byte AAL5 trailer, padded up to whole 48-byte cell payloads:

    cells(message) = ceil((s + overhead + 8) / 48)
    expected       = n_full x cells(size) + cells(remainder)       (message size known)
    expected       = ceil(bytes / 48)                              (only the bytes known: a floor)

Expected in the unit of the counter that counts it (`expected`, by the medium of its port):
- cells (ATM): the formula above;
- octets of an ATM port's ifTable row: 53 x those cells (the interface counts whole cells);
- octets of an Ethernet port: bytes + frames x (overhead + the 14-byte Ethernet header), frames =
  ceil(bytes / message size) (a message is a TCP segment or a datagram: one frame each). Counters
  count no preamble; Linux counts no FCS, switches that do count 4 bytes more per frame (0.3 % at
  1,500 bytes, within EXCESS_TOLERANCE). Message size unknown: bytes alone, a floor;
- octets of another IP interface: bytes + frames x overhead (its link header is not known);
- packets: the frames, ceil(bytes / message size); unknown without the message size.

Counted: switch counters are read at poll times that seldom match the window. A sample covers
(t_prev, t]; one that lies inside the window counts whole, one that straddles an edge counts
anywhere from 0 to all of its delta. So the count is an interval [low, high], with a pro-rated
point estimate; a sample in the window without a usable delta (a gap, a reboot) leaves `high`
unknown. The same holds for cells, octets and packets.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from collector.core.facts import CELL_BYTES, PAYLOAD_BYTES, bits_per_unit

AAL5_TRAILER_BYTES = 8
LLC_SNAP_BYTES = 8              # RFC 2684 LLC/SNAP encapsulation of a routed IP packet
ETHERNET_HEADER_BYTES = 14      # destination, source, EtherType
# What each medium's counters count, and the name the pages give it.
MEDIA = {"atm": "ATM (AAL5 cells)", "atm-octets": "ATM interface octets (53-byte cells)",
         "ethernet": "Ethernet", "ip": "IP interface (link header not known)"}
# Defaults of the verdict: counted cells more than this above the expected minimum are excess
# (retransmissions or other traffic on the VC); below it by more than LOSS_TOLERANCE is loss.
EXCESS_TOLERANCE = 0.05
LOSS_TOLERANCE = 0.001


def cells_for_message(size: int, overhead: int = 0) -> int:
    if size < 0 or overhead < 0:
        raise ValueError("message size and overhead must be >= 0")
    return math.ceil((size + overhead + AAL5_TRAILER_BYTES) / PAYLOAD_BYTES)


def expected_cells(sent_bytes: int, message_size: int | None = None, overhead: int = 0) -> int:
    """Fewest cells that can carry `sent_bytes` (see the module's formula)."""
    if sent_bytes < 0:
        raise ValueError(f"bytes sent must be >= 0, not {sent_bytes}")
    if not message_size:
        return math.ceil(sent_bytes / PAYLOAD_BYTES)
    if message_size < 0:
        raise ValueError(f"message size must be > 0, not {message_size}")
    full, rest = divmod(sent_bytes, message_size)
    return full * cells_for_message(message_size, overhead) + (cells_for_message(rest, overhead) if rest else 0)


def formula(message_size: int | None, overhead: int) -> str:
    if not message_size:
        return f"ceil(bytes / {PAYLOAD_BYTES}) (message size unknown: a floor)"
    return (f"messages x ceil((size {message_size} + overhead {overhead} + AAL5 trailer {AAL5_TRAILER_BYTES})"
            f" / {PAYLOAD_BYTES})")


def medium(unit: str, port_type: str, is_atm: bool, port_level: bool) -> str:
    """The medium whose arithmetic gives what a counter of `unit` on that port should count."""
    if unit == "cells":
        return "atm"
    if is_atm:
        return "atm-octets" if unit == "octets" and port_level else "ip"
    return "ethernet" if "ethernet" in port_type.lower() else "ip"


@dataclass(frozen=True)
class Expected:
    unit: str               # cells | octets | packets: what the counter counts
    medium: str             # a key of MEDIA
    value: int | None       # the least it should count; None: not known (the formula says why)
    formula: str            # the arithmetic with the run's numbers

    @property
    def medium_name(self) -> str:
        return MEDIA[self.medium]


def _frames(sent: int, message_size: int | None) -> int | None:
    return math.ceil(sent / message_size) if message_size else None


def expected(unit: str, medium_key: str, sent: int, message_size: int | None = None,
             overhead: int = 0) -> Expected:
    """What a counter of `unit` on `medium_key` should count at least for `sent` bytes."""
    cells = expected_cells(sent, message_size, overhead)
    frames = _frames(sent, message_size)
    if unit == "cells":
        return Expected(unit, medium_key, cells, formula(message_size, overhead))
    if unit == "packets":
        if frames is None:
            return Expected(unit, medium_key, None, "unknown: give the message size (one frame per message)")
        return Expected(unit, medium_key, frames,
                        f"ceil(bytes / message size {message_size:,}): one frame per message")
    if medium_key == "atm-octets":
        return Expected(unit, medium_key, cells * CELL_BYTES,
                        f"{CELL_BYTES} x cells, cells = {formula(message_size, overhead)}")
    header = ETHERNET_HEADER_BYTES if medium_key == "ethernet" else 0
    link = f" + Ethernet header {ETHERNET_HEADER_BYTES}" if header else ""
    if frames is None:
        return Expected(unit, medium_key, sent, "bytes alone (message size unknown: per-frame headers not counted, "
                                                "a floor)")
    return Expected(unit, medium_key, sent + frames * (overhead + header),
                    f"bytes + {frames:,} frames x (overhead {overhead}{link}), frames = ceil(bytes / message size "
                    f"{message_size:,})")


def rate_mbps(unit: str, per_s: float) -> tuple[float | None, float | None]:
    """(line, payload) Mb/s of a rate in `unit`/s: cells carry 53 bytes of which 48 payload; octets
    are counted as they cross the line (headers included, payload unknown); packets have no bits."""
    bits = bits_per_unit(unit)
    if bits is None:
        return None, None
    return per_s * bits / 1e6, per_s * PAYLOAD_BYTES * 8 / 1e6 if unit == "cells" else None


@dataclass(frozen=True)
class Count:
    low: int                # the least the window can hold (samples wholly inside)
    estimate: float         # straddling samples pro-rated by overlap
    high: int | None        # the most (every overlapping sample whole); None = a sample unusable
    samples: int            # samples overlapping the window
    unusable: int           # of those, samples without a usable delta

    @property
    def uncertainty(self) -> float | None:
        return None if self.high is None else (self.high - self.low) / 2


def count_window(t_end: np.ndarray, span: np.ndarray, delta: np.ndarray, usable: np.ndarray,
                 start: float, end: float) -> Count:
    """Cells, octets or packets counted in [start, end] from samples ending at t_end (epoch s) that
    cover `span` seconds each, with `delta` counted; usable False where the delta cannot be used."""
    if not end > start:
        raise ValueError("the window must end after it starts")
    t_end, span = np.asarray(t_end, np.float64), np.asarray(span, np.float64)
    delta, usable = np.asarray(delta, np.float64), np.asarray(usable, bool)
    t_start = t_end - span
    overlap = np.clip(np.minimum(t_end, end) - np.maximum(t_start, start), 0, None)
    touching = overlap > 0
    inside = touching & (t_start >= start) & (t_end <= end)
    straddling = touching & ~inside
    ok = usable & touching
    frac = np.divide(overlap, span, out=np.zeros_like(overlap), where=span > 0)
    low = int(delta[inside & usable].sum())
    high = int(delta[ok].sum())
    estimate = float(low + (delta * frac)[straddling & usable].sum())
    unusable = int((touching & ~usable).sum())
    covered = float(overlap[touching].sum())
    # Time in the window no sample covers (a missed poll at the edges, an agent down) is unknown.
    if unusable or covered < (end - start) - 1e-3:
        return Count(low, estimate, None, int(touching.sum()), unusable)
    return Count(low, estimate, high, int(touching.sum()), unusable)


@dataclass(frozen=True)
class Verdict:
    word: str               # consistent | excess | missing | unknown
    text: str
    ratio_low: float | None
    ratio_high: float | None


SLACK = {"cells": "partly filled cells and AAL5 trailers", "octets": "retransmissions, frame check sequences",
         "packets": "retransmissions"}


def verdict(count: Count, expected: int, excess_tol: float = EXCESS_TOLERANCE,
            loss_tol: float = LOSS_TOLERANCE, unit: str = "cells") -> Verdict:
    """Counted against expected, with the thresholds stated in the text."""
    if expected <= 0:
        return Verdict("unknown", "nothing expected (no bytes sent given)", None, None)
    lo = count.low / expected
    hi = None if count.high is None else count.high / expected
    if hi is not None and hi < 1 - loss_tol:
        return Verdict("missing", f"even the most the window can hold is {100 * (1 - hi):.2f} % below the "
                                  f"expected minimum (loss threshold {100 * loss_tol:g} %): {unit} were lost", lo, hi)
    if lo > 1 + excess_tol:
        return Verdict("excess", f"at least {100 * (lo - 1):.2f} % more {unit} than the expected minimum "
                                 f"(threshold {100 * excess_tol:g} %): retransmissions or other traffic", lo, hi)
    if hi is None and count.low < expected * (1 - loss_tol):
        return Verdict("unknown", "samples in the window are missing or unusable, and what was counted is "
                                  "below the expected minimum: loss cannot be told from the gap", lo, hi)
    return Verdict("consistent", f"within the expected minimum -{100 * loss_tol:g} % / +{100 * excess_tol:g} % "
                                 f"({SLACK.get(unit, 'retransmissions')})", lo, hi)
