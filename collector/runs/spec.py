"""The fields of an experiment run: one list that every way in and out reads.

The web form (its inputs are named as here), POST /runs/api (the keys of its JSON), `manage.py
run start|add` (--name-with-dashes), and what comes out: /runs/api, /runs/api/<id>, the run page
and `manage.py run show` (tests/webapp/status/test_run_fields.py holds each interface to it).
`from_values` turns what any of them received into a RunSpec, with one wording of every mistake.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from collector.core.isotime import iso, parse_optional
from collector.runs import series
from collector.runs.edit import RunError, RunSpec
from collector.runs.models import ExperimentRun


@dataclass(frozen=True)
class Field:
    name: str
    kind: str            # text | time | whole | series | report
    help: str


FIELDS = (
    Field("name", "text", "1 to 100 characters; a name may repeat on windows that do not overlap"),
    Field("start", "time", "ISO 8601, UTC unless an offset is given; fractions of a second are kept"),
    Field("end", "time", "ISO 8601; empty: going on (end it with `run stop`)"),
    Field("description", "text", "free text"),
    Field("src", "text", "source host (name or address): the run counts its VCC path"),
    Field("dst", "text", "destination host"),
    Field("pvc", "text", "'switch port vpi/vci': the run counts the PVC's path"),
    Field("series", "series", "series the run counts: ids or names as plots write them, "
                              "e.g. 'ipsw Gi1/0/1 out' (collector/runs/series.py)"),
    Field("bytes_sent", "whole", "bytes the application says it sent"),
    Field("messages", "whole", "messages it sent"),
    Field("message_size", "whole", "bytes of data per message: an AAL5 CPCS-SDU on ATM, a segment (TCP MSS) "
                                   "or datagram on Ethernet"),
    Field("overhead", "whole", "header bytes per message not counted in bytes sent (TCP/IP 40, with timestamps "
                               "52; LLC/SNAP 8 on ATM)"),
    Field("report", "report", "iperf3 -J output, a NetSpec experiment script or a JSON summary "
                              "(collector/runs/reports.py)"),
)
NAMES = tuple(f.name for f in FIELDS)


def _whole(value: Any, name: str) -> int | None:
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip().replace(",", "")
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise RunError(f"{name} {text!r} is not a whole number") from None


def _series(value: Any) -> tuple[str, ...]:
    """A list of references (API, CLI), or text with one per line (the form)."""
    if value is None or value == "":
        return ()
    items = value if isinstance(value, list | tuple) else str(value).splitlines()
    out: list[str] = []
    for item in items:
        text = str(item).strip()
        # a line of ids "12, 13" is several references; a name never contains a comma between digits
        out += [t.strip() for t in text.split(",")] if text.replace(",", "").replace(" ", "").isdigit() else [text]
    return tuple(t for t in out if t)


def from_values(values: Mapping[str, Any], created_by: str) -> RunSpec:
    """A RunSpec from any interface's values (texts from the form, JSON from the API, the CLI's
    options); RunError names the field that is wrong."""
    unknown = sorted(set(values) - set(NAMES))
    if unknown:
        raise RunError(f"unknown run field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                       f"the fields are {', '.join(NAMES)}")
    got: dict[str, Any] = {}
    for f in FIELDS:
        v = values.get(f.name)
        if f.kind == "time":
            if v is not None and not isinstance(v, str | datetime):
                raise RunError(f"{f.name}={v!r} is not an ISO 8601 time (e.g. 2026-11-22T10:00:00Z)")
            try:
                got[f.name] = parse_optional(f.name, v) if isinstance(v, str) else v
            except ValueError as exc:
                raise RunError(str(exc)) from None
        elif f.kind == "whole":
            got[f.name] = _whole(v, f.name.replace("_", " "))
        elif f.kind == "series":
            got[f.name] = _series(v)
        else:
            got[f.name] = "" if v is None else str(v).strip() if f.kind == "text" else str(v)
    return RunSpec(got["name"], got["start"], got["end"], got["description"], got["src"], got["dst"], got["pvc"],
                   got["bytes_sent"], got["messages"], got["message_size"], got["overhead"], got["report"],
                   created_by, got["series"])


SERIES_RELATED = ("series__switch", "series__port", "series__vp", "series__vc")   # for prefetch_related


def as_json(run: ExperimentRun, with_report: bool = True) -> dict:
    """Every field of a stored run (the report as stored, unless left out of a list), its id and
    who made it. Prefetch SERIES_RELATED when describing many runs."""
    vc = run.channel
    out = {"id": run.id, "name": run.name, "start": iso(run.start), "end": iso(run.end) if run.end else None,
           "description": run.description, "src": run.src_host.name if run.src_host else None,
           "dst": run.dst_host.name if run.dst_host else None,
           "pvc": f"{vc.port.switch.name} {vc.port.name} {vc.vpi}/{vc.vci}" if vc else None,
           "series": series.described(sorted(run.series.all(), key=lambda s: s.id)),
           "bytes_sent": run.bytes_sent, "messages": run.messages, "message_size": run.message_size,
           "overhead": run.overhead, "report": run.report, "created_by": run.created_by,
           "created_at": iso(run.created_at), "url": f"/runs/{run.id}/"}
    if not with_report:
        del out["report"]
    return out
