"""The Prometheus text format (version 0.0.4) of counter totals. Pure: no database.

One metric family per unit, `cellar_<unit>_total` (cellar_cells_total, cellar_octets_total,
cellar_packets_total), `# HELP` and `# TYPE ... counter` once before its samples, which follow
each other (the format asks every line of a family to be one group: the scope is ordered by unit).
Labels: switch, port, vpi, vci, direction, metric; a label without a value (a port-level series has
no vpi) is left out, which Prometheus reads as the same thing. Where two series of a family would
carry the same labels (two objects counting the same thing under one metric word), each of them also
carries `object`, the SNMP object's name, so no sample is ever a duplicate. Values are the exact
integers; the timestamp is the poll's, in milliseconds.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

HELP = {
    "cells": "ATM cells",
    "octets": "octets (bytes)",
    "packets": "packets",
}


class Named(Protocol):
    """What the text needs of a series (collector/reader/cumulative.Labelled), read-only."""
    @property
    def id(self) -> int: ...
    @property
    def switch(self) -> str: ...
    @property
    def port(self) -> str: ...
    @property
    def vpi(self) -> int | None: ...
    @property
    def vci(self) -> int | None: ...
    @property
    def direction(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def object_name(self) -> str: ...


class Read(Protocol):
    @property
    def series(self) -> Named: ...
    @property
    def total(self) -> int: ...
    @property
    def at_ms(self) -> int: ...


def family(unit: str) -> str:
    """cellar_cells_total for 'cells'; a unit of another profile becomes a valid metric name."""
    return "cellar_" + (re.sub(r"[^a-zA-Z0-9_]", "_", unit) or "count") + "_total"


def escape(value: str) -> str:
    """A label value as the format writes it between double quotes."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def key(s: Named) -> tuple:
    return (s.unit, s.switch, s.port, s.vpi, s.vci, s.direction, s.metric)


def shared(series: Iterable[Named]) -> set[int]:
    """Ids of the series whose labels another series of their family carries too."""
    listed = list(series)
    counts = Counter(key(s) for s in listed)
    return {s.id for s in listed if counts[key(s)] > 1}


def labels(s: Named, with_object: bool = False) -> str:
    pairs = [("switch", s.switch), ("port", s.port),
             ("vpi", "" if s.vpi is None else str(s.vpi)), ("vci", "" if s.vci is None else str(s.vci)),
             ("direction", s.direction), ("metric", s.metric)]
    if with_object:
        pairs.append(("object", s.object_name))
    return ",".join(f'{name}="{escape(value)}"' for name, value in pairs if value != "")


def header(unit: str) -> str:
    name = family(unit)
    what = HELP.get(unit, unit)
    return (f"# HELP {name} {what} counted by the switch since Cellar's first reading of the series: the sum of "
            "the archived deltas (exact across counter wraps; reboots and resets add nothing)\n"
            f"# TYPE {name} counter\n")


def render(readings: Iterable[Read], object_label: set[int] | Sequence[int] = ()) -> Iterator[str]:
    """The exposition's text, a family header before the first sample of each unit. `readings`
    come ordered by unit; `object_label`: ids that also carry `object` (shared())."""
    unit: str | None = None
    name = ""
    with_object = set(object_label)
    for r in readings:
        s = r.series
        if s.unit != unit:
            unit, name = s.unit, family(s.unit)
            yield header(s.unit)
        yield f"{name}{{{labels(s, s.id in with_object)}}} {int(r.total)} {int(r.at_ms)}\n"
