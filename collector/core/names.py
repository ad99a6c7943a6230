"""How names that agents and operators give are compared: pure functions, no Django.

One definition of each rule, used by the inventory (port references, which switch a neighbour
claim names) and by the status pages (which host a port label names):

* FORE BNP names: "1A1" is board 1, network module A, port 1; on a single-board switch the board
  digit is implied ("A1"), so `strip_board` gives the short form;
* interface names: "Gi1/1/1", "GigabitEthernet 1/1/1" and "gigabitethernet1/1/1" name the same
  interface; netutils (Network to Code) knows the vendors' abbreviations, we only drop spaces and
  case around it (`interface_key`);
* labels naming a host or a switch: equal, a dotted prefix either way, or FORE's 15-character
  truncation of portName (`label_matches_name`).
"""
from __future__ import annotations

import re

from netutils.interface import canonical_interface_name

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


def _norm(text: str) -> str:
    return text.strip().strip(".").lower()


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


def host_part(name: str) -> str:
    """The first label of a dotted name, lower case ("asx200bx.tioc.aai.net" -> "asx200bx")."""
    return _norm(name).split(".")[0]
