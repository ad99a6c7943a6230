"""Display units: factors from a series' own unit per second to what the plot shows. Pure.

Cell arithmetic (docs: /work/shared/notes/mibs.md): a cell is 53 bytes on the wire, 48 of them
payload. An ATM interface's ifTable counts octets as cells x 53, so port-level octet counters of
an ATM port convert to cells; AAL5 per-VC octets count payload bytes and do not.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core.facts import CELL_BYTES, PAYLOAD_BYTES, bits_per_unit
from collector.reader.catalog import SeriesInfo


@dataclass(frozen=True)
class Unit:
    key: str
    label: str        # axis title and CSV header
    short: str        # after a number
    si: bool          # axis ticks with SI prefixes (k, M, G)


UNITS: dict[str, Unit] = {u.key: u for u in (
    Unit("cells", "cells/s", "cells/s", True),
    Unit("mbps_cells", "Mb/s of 53-byte cells", "Mb/s", False),
    Unit("mbps_payload", "Mb/s of 48-byte payload", "Mb/s", False),
    Unit("bps", "bits/s", "b/s", True),
    Unit("pps", "packets/s", "pkt/s", True),
    Unit("eps", "events/s", "events/s", True),
    Unit("pct", "% of capacity", "%", False),
)}
CHOICES = ("auto", *UNITS)


class UnitError(ValueError):
    """The unit does not apply to a series; the message says which and why."""


def counts_cells(s: SeriesInfo) -> bool:
    return s.unit == "cells"


def atm_port_octets(s: SeriesInfo) -> bool:
    """Octets of an ATM interface's ifTable row: cells x 53."""
    return s.unit == "octets" and s.is_atm and s.port_level


def factor(s: SeriesInfo, unit: str) -> float:
    """Multiply a rate in the series' own unit per second by this to get `unit`."""
    if unit not in UNITS:
        raise UnitError(f"unknown unit {unit!r}; use one of {', '.join(CHOICES)}")
    if unit == "pct":
        if not s.capacity_per_s:
            raise UnitError(f"% of capacity: the capacity of {s.label} is not known")
        return 100.0 / s.capacity_per_s
    if counts_cells(s):
        table = {"cells": 1.0, "mbps_cells": CELL_BYTES * 8 / 1e6, "mbps_payload": PAYLOAD_BYTES * 8 / 1e6,
                 "bps": float(bits_per_unit("cells") or 0)}
    elif atm_port_octets(s):
        table = {"cells": 1 / CELL_BYTES, "mbps_cells": 8 / 1e6, "mbps_payload": 8 / 1e6 * PAYLOAD_BYTES / CELL_BYTES,
                 "bps": float(bits_per_unit("octets") or 0)}
    elif s.unit == "octets":
        table = {"bps": float(bits_per_unit("octets") or 0)}
    elif s.unit == "packets":
        table = {"pps": 1.0}
    elif s.unit == "events":
        table = {"eps": 1.0}
    else:
        table = {}
    if unit not in table:
        raise UnitError(f"{UNITS[unit].label} does not apply to {s.label} (it counts {s.unit}); "
                        f"use {', '.join(sorted(table) + ['pct'])}")
    return table[unit]


def auto_unit(series: list[SeriesInfo]) -> str:
    """The natural unit for a set of series: cells/s for cells, bits/s for bytes or a mix."""
    kinds = {"cells" if counts_cells(s) or atm_port_octets(s) else s.unit for s in series}
    if not kinds:
        return "cells"
    if kinds == {"cells"}:
        return "cells"
    if kinds <= {"cells", "octets"}:
        return "bps"
    if kinds == {"packets"}:
        return "pps"
    if kinds == {"events"}:
        return "eps"
    if all(s.capacity_per_s for s in series):
        return "pct"
    raise UnitError("these series count different things (" + ", ".join(sorted(kinds)) +
                    "): choose a unit that applies to all, or plot them separately")


def total_unit(s: SeriesInfo) -> str:
    """What a sum of deltas counts: cells, bytes or packets."""
    return {"cells": "cells", "octets": "bytes", "packets": "packets"}.get(s.unit, s.unit)
