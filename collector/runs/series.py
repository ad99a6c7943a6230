"""The series an experiment run names, as people name them.

A reference is a series id ("57") or the series' name as plots write it (collector/core/names.py
series_label): "ipsw Gi1/0/1 Transmit", "asx200bx A1 Receive VP:0 VC:100", "ipsw Gi1/0/1 Transmit
unicast packets"; with the operators' short forms: in/out/rx/tx for the direction, "0/100" for a
VC, a metric by its stored name ("ucast_pkts") or "packets". The switch is the first word, the
port what is left once the direction, VP/VC and metric words are taken from the end (its name, its
agent's name when unique, or ifindex:N). No direction: both; no metric: the entity's traffic
(cells, else octets). The run form (one per line; its picker writes names), `manage.py run
--series` and the API's "series" take the same references, and the run's pages list each series
by that name.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypedDict

from collector.archive.models import Series
from collector.core.names import METRIC_WORD, series_label
from collector.inventory.models import Switch
from collector.inventory.ports import PortLookupError, find_port

MAX_SERIES = 50          # a run's page counts each from raw samples
DIRECTIONS = {"in": "in", "rx": "in", "receive": "in", "out": "out", "tx": "out", "transmit": "out"}
METRIC_NAMES = {**{word: metric for metric, word in METRIC_WORD.items()}, **{m: m for m in METRIC_WORD},
                "packets": "ucast_pkts"}
_VP, _VC, _VPVC = re.compile(r"(?i)^vpi?[:=](\d+)$"), re.compile(r"(?i)^vci?[:=](\d+)$"), re.compile(r"^(\d+)/(\d+)$")


class SeriesRefError(ValueError):
    """str() says which reference and what is known."""


class Wanted(TypedDict, total=False):
    """What the words at the end of a reference ask for."""
    direction: str
    metric: str
    vpi: int
    vci: int


def resolve(refs: Iterable[str]) -> list[int]:
    """Series ids of the references, in their order, each once."""
    ids: list[int] = []
    for ref in refs:
        if ref.strip():
            ids += [i for i in one(ref) if i not in ids]
    if len(ids) > MAX_SERIES:
        raise SeriesRefError(f"{len(ids)} series named; a run counts at most {MAX_SERIES}")
    return ids


def _words(tokens: list[str], metrics: set[str]) -> tuple[list[str], Wanted]:
    """The port's words, and the direction, VP, VC and metric taken from the end."""
    found: Wanted = {}
    while len(tokens) > 1:
        last, two = tokens[-1].lower(), " ".join(tokens[-2:]).lower()
        if two in METRIC_NAMES and "metric" not in found:
            found["metric"] = METRIC_NAMES[two]
            tokens = tokens[:-2]
            continue
        vp, vc, vpvc = _VP.match(last), _VC.match(last), _VPVC.match(last)
        if last in DIRECTIONS and "direction" not in found:
            found["direction"] = DIRECTIONS[last]
        elif (last in METRIC_NAMES or last in metrics) and "metric" not in found:
            found["metric"] = METRIC_NAMES.get(last, last)
        elif vp and "vpi" not in found:
            found["vpi"] = int(vp.group(1))
        elif vc and "vci" not in found:
            found["vci"] = int(vc.group(1))
        elif vpvc and "vpi" not in found:
            found["vpi"], found["vci"] = int(vpvc.group(1)), int(vpvc.group(2))
        else:
            break
        tokens = tokens[:-1]
    return tokens, found


def one(ref: str) -> list[int]:
    text = " ".join(ref.split())
    if text.isdigit():
        if not Series.objects.filter(id=int(text), kind="counter").exists():
            raise SeriesRefError(f"no counter series with id {text} (ids: /traffic/api/series)")
        return [int(text)]
    first, _, rest = text.partition(" ")
    switch = Switch.objects.filter(name=first).first()
    if switch is None or not rest:
        raise SeriesRefError(f"series {text!r}: write 'switch port [vpi/vci] [in|out] [metric]' or a series id"
                             + ("" if switch else f" (no switch named {first!r})"))
    metrics = set(Series.objects.filter(switch=switch).values_list("metric", flat=True).distinct())
    words, want = _words(rest.split(" "), metrics)
    try:
        port = find_port(switch, " ".join(words))
    except PortLookupError as exc:
        raise SeriesRefError(f"series {text!r}: {exc}") from None
    qs = Series.objects.filter(port=port, kind="counter")
    if "vci" in want:
        # A VCI without its VPI names no VC: no series (the error below lists the port's).
        qs = qs.filter(vc__vpi=want["vpi"], vc__vci=want["vci"]) if "vpi" in want else qs.none()
    elif "vpi" in want:
        qs = qs.filter(vp__vpi=want["vpi"], vc__isnull=True)
    else:
        qs = qs.filter(vp__isnull=True, vc__isnull=True)
    if "direction" in want:
        qs = qs.filter(direction=want["direction"])
    available = list(qs.order_by("direction", "id"))
    metric = want.get("metric") or next((m for m in ("cells", "octets") if any(s.metric == m for s in available)), "")
    chosen = [s for s in available if s.metric == metric]
    if not chosen:
        known = sorted({label(s) for s in available})[:8]
        raise SeriesRefError(f"series {text!r}: no such counter" + (f" (this {port.name} has: {'; '.join(known)})"
                                                                      if known else f" of {switch.name} {port.name}"))
    return [s.id for s in chosen]


def label(s: Series) -> str:
    """The series' name (as plots write it): what `one` reads back."""
    port = s.port
    vpi, vci = s.vpi_vci()
    is_atm = port.is_atm if port is not None else s.unit == "cells"
    return series_label(s.switch.name, port.name if port is not None else s.index, s.direction, vpi,
                        vci, s.metric, is_atm)


def described(series: Iterable[Series]) -> list[dict]:
    """The series as the API and `run show` list them."""
    return [{"id": s.id, "name": label(s), "unit": s.unit, "metric": s.metric,
             "direction": s.direction} for s in series]
