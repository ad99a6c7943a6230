"""Facts every layer shares, each defined once: sample flags, ATM cell arithmetic, the uint64
storage convention, the capacity of a port and how a rate is written for people.

Pure and Django-free. The archive stores flags as smallint bits and Counter64 readings as
bigint, so the values here are a storage contract: they never change.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

# No switch was polled before this: a time earlier than it in a request is a mistake, not data.
EARLIEST_DATA = datetime(1990, 1, 1, tzinfo=UTC)


class Flag(enum.IntFlag):
    """Bits of a sample's flag word (smallint in the database: keep bits < 2**15)."""
    NONE = 0
    WRAP = 1           # delta computed across one counter wrap
    REBOOT = 2         # agent restarted (uptime evidence): new epoch, no delta
    RESET = 4          # counter reset without reboot: new epoch, no delta
    OVER_CAPACITY = 8  # rate above the port's capacity (+tolerance): delta kept, not drawn as traffic
    MISSING = 16       # the agent did not answer this object this poll
    FIRST = 32         # no usable previous reading (none, or it was unanswered): no delta
    GAP = 64           # interval > 1.5x nominal (missed polls): delta is the average over the gap
    AMBIGUOUS = 128    # interval so long that more than one wrap is possible at capacity: no delta
    CLOCK = 256        # interval <= 0 (wall clock stepped back, or a redelivered poll): no delta
    WIDTH = 512        # the counter's width changed (its 64-bit column <-> its 32-bit one): no delta


@dataclass(frozen=True)
class FlagInfo:
    flag: Flag
    meaning: str       # what it means to someone reading a plot or a CSV
    word: str          # a short word for tables ("counter reset")

    @property
    def bit(self) -> int:
        return int(self.flag)

    @property
    def name(self) -> str:
        return self.flag.name or ""


# The one table of flags: bit, name, what it means. Plots, CSV, the API and the status pages
# read it; tests/collector/core/test_facts.py checks that it covers every Flag.
FLAGS: tuple[FlagInfo, ...] = (
    FlagInfo(Flag.WRAP, "counter wrapped; delta exact", "wrap"),
    FlagInfo(Flag.REBOOT, "agent restarted: counters began again, no delta", "reboot"),
    FlagInfo(Flag.RESET, "counters reset by the agent: no delta", "counter reset"),
    FlagInfo(Flag.OVER_CAPACITY, "rate above the port's capacity: kept, not drawn", "over capacity"),
    FlagInfo(Flag.MISSING, "the agent did not answer this counter", "not answered"),
    FlagInfo(Flag.FIRST, "first reading: no previous value", "first reading"),
    FlagInfo(Flag.GAP, "missed polls: average over the whole gap", "gap"),
    FlagInfo(Flag.AMBIGUOUS, "gap too long: more than one wrap possible, no delta", "ambiguous"),
    FlagInfo(Flag.CLOCK, "poll clock went back: no delta", "clock step"),
    FlagInfo(Flag.WIDTH, "counter read from its other column (64-bit <-> 32-bit): new epoch, no delta",
             "width change"),
)
# A wrap is routine for a busy Counter32 and its delta is exact: a sample flagged WRAP alone
# does not count as "flagged" in rollups and plots.
ROUTINE = Flag.WRAP
# Kept in the archive, never drawn as traffic.
NOT_DRAWN = Flag.OVER_CAPACITY
ALL_FLAGS = 1 << len(FLAGS)        # every flag word is below this


def flag_names(flags: int) -> list[str]:
    """["WRAP", "GAP"] for WRAP | GAP."""
    return [f.name for f in FLAGS if flags & f.bit]


def flag_meanings(flags: int) -> str:
    """"WRAP: counter wrapped; delta exact; GAP: ..." for hover texts."""
    return "; ".join(f"{f.name}: {f.meaning}" for f in FLAGS if flags & f.bit)


def flag_words(flags: int) -> str:
    """"wrap, gap" for tables."""
    return ", ".join(f.word for f in FLAGS if flags & f.bit)


# --- ATM cells --------------------------------------------------------------------------------

CELL_BYTES = 53            # on the wire: 5 header + 48 payload
PAYLOAD_BYTES = 48
CELL_BITS = CELL_BYTES * 8
# SONET/PDH line rates (bit/s) -> cells/s actually available to ATM (payload after framing).
ATM_LINE_CELL_RATES = {155_520_000: 353_207, 622_080_000: 1_412_830, 44_736_000: 96_000, 34_368_000: 80_000}


BITS_PER_UNIT = {"cells": CELL_BITS, "octets": 8}     # a counter's unit in bits on the wire (packets: none)


def bits_per_unit(unit: str) -> int | None:
    """Bits of one counted unit (a cell on the wire, an octet), None where a count has no size."""
    return BITS_PER_UNIT.get(unit)


def line_cell_rate(speed_bps: int) -> int:
    """Cells/s an ATM interface of this line rate carries at most."""
    return ATM_LINE_CELL_RATES.get(speed_bps, speed_bps // CELL_BITS)


# --- Counter64 in a PostgreSQL bigint -------------------------------------------------------------

U64 = 1 << 64
I64_TOP = 1 << 63


def to_i64(v: int) -> int:
    """uint64 -> int64 with the same bits, to store a Counter64 exactly in a bigint."""
    if not 0 <= v < U64:
        raise ValueError(f"not a uint64: {v!r}")
    return v - U64 if v >= I64_TOP else v


def to_u64(v: int) -> int:
    """Inverse of to_i64 (SQL side: cellar_u64(bigint) -> numeric)."""
    if not -I64_TOP <= v < I64_TOP:
        raise ValueError(f"not an int64: {v!r}")
    return v + U64 if v < 0 else v


def to_i64_list(values: list[int | None]) -> list[int | None]:
    """to_i64 of each value (None kept); the list itself when nothing needs converting."""
    # None is not in values when max() runs: the cast only tells mypy so.
    if not values or (None not in values and max(cast("list[int]", values)) < I64_TOP):
        return values
    return [None if v is None else (v if v < I64_TOP else v - U64) for v in values]


def to_u64_list(values: Iterable[int | None]) -> list[int | None]:
    """to_u64 of each stored value (None kept)."""
    values = list(values)
    if None not in values and (not values or min(cast("list[int]", values)) >= 0):
        return values
    return [None if v is None else (v + U64 if v < 0 else v) for v in values]


def stored_to_u64(v: int | None) -> int | None:
    return None if v is None else (v + U64 if v < 0 else v)


# --- capacity -----------------------------------------------------------------------------------

# Packets: the smallest Ethernet frame plus preamble and gap is 84 bytes on the wire; a 64-byte
# bound stays safe for non-Ethernet media.
MIN_PACKET_BYTES = 64


def capacity_per_s(unit: str, speed_bps: int | None, capacity_cells: int | None) -> int | None:
    """Units per second a port can carry at most: the bound above which a rate is flagged
    OVER_CAPACITY and the 100 % of "% of capacity". None when the port's speed is unknown."""
    if unit == "cells":
        if capacity_cells:
            return capacity_cells
        return speed_bps // CELL_BITS if speed_bps else None
    if not speed_bps:
        return None
    if unit == "octets":
        return speed_bps // 8
    if unit == "packets":
        return max(1, speed_bps // (8 * MIN_PACKET_BYTES))
    return None


# --- rates written for people -------------------------------------------------------------------

# A rate read on a page or in a message: an SI prefix and a few significant digits ("24.0 Mb/s"
# beside "10.0 Mb/s"), never "23957320.93" nor an exponent. Pages, plots' hovers and the alerts'
# messages all write rates here.
SI_PREFIXES = ((1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"))


def significant(value: float, digits: int = 3) -> str:
    """The value with `digits` significant digits, trailing zeros kept (a column reads alike), no
    exponent: 0.5 -> '0.500', 999.4 -> '999', 32000 -> '32000'."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def rate_text(value: float, unit: str, digits: int = 3) -> str:
    """A rate with its unit: 23957320.93 b/s -> '24.0 Mb/s', 2500 cells/s -> '2.50 kcells/s';
    a percentage takes no prefix (92.04 % -> '92.0 %')."""
    rounded = float(f"{value:.{digits}g}")       # rounded first: 999,700 b/s is 1.00 Mb/s, not 1000 kb/s
    if unit == "%":
        return f"{significant(rounded, digits)} %"
    scale, prefix = next((p for p in reversed(SI_PREFIXES) if abs(rounded) >= p[0]), SI_PREFIXES[0])
    return f"{significant(rounded / scale, digits)} {prefix}{unit}"


def quantity(value: float | None, unit: str, digits: int = 3) -> str:
    """Any measured value with its unit: rates (a unit per second, %) by rate_text, counts and
    seconds whole when they are or from 10 up ('3 failed checks', '600 s'); '–' when there is none."""
    if value is None:
        return "–"
    if unit == "%" or unit.endswith("/s"):
        return rate_text(value, unit, digits)
    number = f"{value:,.0f}" if abs(value) >= 10 or float(value).is_integer() else significant(value, digits)
    return f"{number} {unit}".rstrip()
