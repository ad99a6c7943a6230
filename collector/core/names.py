"""How names that agents and operators give are compared: pure functions, no Django.

One definition of each rule, used by the inventory (port references, which switch a neighbour
claim names) and by the status pages (which host a port label names):

* FORE BNP names: "1A1" is board 1, network module A, port 1; on a single-board switch the board
  digit is implied ("A1"), so `strip_board` gives the short form;
* interface names: "Gi1/1/1", "GigabitEthernet 1/1/1" and "gigabitethernet1/1/1" name the same
  interface; netutils (Network to Code) knows the vendors' abbreviations, we only drop spaces and
  case around it (`interface_key`);
* labels naming a host or a switch: equal, a dotted prefix either way, or FORE's 15-character
  truncation of portName (`label_matches_name`);
* a counter series' name, as the 1995 data-set picker wrote it: "asx200bx A1 Receive VP:0 VC:15"
  (`series_label`: plots, CSV, run pages and the run references of the CLI and API).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from typing import Generic, TypeVar

from netutils.interface import canonical_interface_name

T = TypeVar("T")
_BOARD = re.compile(r"^\d+(?=[A-Za-z])")


def strip_board(bnp: str) -> str:
    """ "1A1" -> "A1", "2CTL" -> "CTL"; a name without a leading board number is returned as is."""
    return _BOARD.sub("", bnp.strip())


def has_board(name: str) -> bool:
    return bool(_BOARD.match(name.strip()))


def interface_key(name: str) -> str:
    """A comparison key under which the spellings of one interface name agree ("Gi1/1/1",
    "GigabitEthernet 1/1/1"): the vendor-neutral long form, without spaces, lower case."""
    text = name.replace("\x00", "").strip()
    if not text:
        return ""
    compact = re.sub(r"\s+", "", text)
    try:
        long = canonical_interface_name(compact)
    except Exception:            # netutils refuses some odd strings; they compare as written
        long = compact
    return long.lower()


def normalised(text: str) -> str:
    """A name or label as label_matches_name compares it."""
    return text.strip().strip(".").lower()


_norm = normalised


def label_matches_name(label: str, name: str) -> bool:
    """A port label designates a host/switch name: equal, a dotted prefix either way, or the
    15-character truncation FORE applies to portName ("punx-atm.tioc.m" ~ "punx-atm.tioc.magic.net")."""
    a, b = _norm(label), _norm(name)
    if len(a) < 3 or not b:
        return False
    if a == b or b.startswith(a + ".") or a.startswith(b + "."):
        return True
    if len(a) >= 12 and b.startswith(a):
        return True
    # Truncated in the middle of a dotted label: "houdini.tioc." vs "houdini.tioc"
    return len(a) >= 12 and a.startswith(b)


class NameIndex(Generic[T]):
    """The items whose name a label designates (`label_matches_name`), without comparing the label
    with every name: in every match one normalised string is a prefix of the other, so the
    candidates are the label's own prefixes (dictionary look-ups) and the names that start with
    the label (a range of the sorted names). A switch page with 100,000 ports and 1,000 hosts
    made 10^8 comparisons before."""

    def __init__(self, named: Iterable[tuple[str, T]]):
        self._by_norm: dict[str, list[tuple[str, T]]] = {}
        for name, item in named:
            self._by_norm.setdefault(_norm(name), []).append((name, item))
        self._sorted = sorted(self._by_norm)

    def matches(self, label: str) -> list[T]:
        """The items label_matches_name(label, name) holds for, in the order they were given."""
        a = _norm(label)
        if len(a) < 3:
            return []
        keys = {a[:i] for i in range(1, len(a) + 1) if a[:i] in self._by_norm}
        at = bisect_left(self._sorted, a)
        while at < len(self._sorted) and self._sorted[at].startswith(a):
            keys.add(self._sorted[at])
            at += 1
        return [item for key in keys for name, item in self._by_norm[key] if label_matches_name(label, name)]


def host_part(name: str) -> str:
    """The first label of a dotted name, lower case ("asx200bx.tioc.aai.net" -> "asx200bx")."""
    return _norm(name).split(".")[0]


DIRECTION_WORD = {"in": "Receive", "out": "Transmit", "": ""}
# Loss and health metrics too (mibs/README.md "Loss counters": what each profile counts under each name).
METRIC_WORD = {"cells": "cells", "octets": "octets", "ucast_pkts": "unicast packets", "discards": "discards",
               "errors": "errors", "rejected_cells": "rejected cells", "lost_cells": "lost cells",
               "overflow_cells": "overflow cells", "clp0_cells": "CLP0 cells", "clp0_discards": "CLP0 discards",
               "tagged_cells": "tagged cells", "unknown_cells": "unknown-VC cells", "ocd_events": "OCD events",
               "crc_errors": "AAL5 CRC errors", "sar_timeouts": "AAL5 SAR timeouts",
               "oversized_sdus": "AAL5 oversized SDUs"}
# The metric that is "the traffic" of an entity; others get their name appended to the label.
PRIMARY_METRIC = {True: "cells", False: "octets"}


def series_label(switch: str, port: str, direction: str, vpi: int | None, vci: int | None, metric: str,
                 is_atm: bool) -> str:
    """'asx200bx A1 Receive VP:0 VC:15'; a metric other than the entity's traffic is named last."""
    parts = [switch, port, DIRECTION_WORD.get(direction, direction)]
    if vpi is not None:
        parts.append(f"VP:{vpi}")
    if vci is not None:
        parts.append(f"VC:{vci}")
    if metric != PRIMARY_METRIC[is_atm]:
        parts.append(METRIC_WORD.get(metric, metric))
    return " ".join(p for p in parts if p)
