"""Bulk exports asked from the web and the API: the query grammar, the plan, the job, and the worker's
writing of its file (collector/exports/bulkfiles.py).

  switch=NAME (repeatable) | g=ID or name | s=ID,ID,... | all=1     the scope (exactly one)
  start=ISO|24h  end=ISO|now     the window (bulk.window: ISO 8601, or a span back; default the last 24 h)
  res=raw|1m|15m|1h|1d|auto      default raw
  format=csv|csv-wide|parquet    default csv

A job stores the scope and the window made absolute (`spec`), so it exports what was asked when it was
asked; the worker resolves the scope again (a group's members at the window's start) and writes the
file batch by batch, reporting rows and bytes.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from django.conf import settings

from collector.core.isotime import iso, parse_iso
from collector.exports import bulkfiles, jobs
from collector.exports.models import ExportJob
from collector.reader import bulk, bulkscope, resolution, selection
from collector.reader.bulk import BulkPlan
from collector.reader.bulkscope import Scope
from collector.reader.selection import BadRequest


@dataclass(frozen=True)
class BulkRequest:
    scope: Scope
    start: datetime
    end: datetime
    res: str = "raw"
    fmt: str = "csv"

    def query(self, p: BulkPlan | None = None) -> str:
        """The request as a query string, the window absolute (the plan's, aligned, when given)."""
        lo, hi = (p.start, p.end) if p is not None else (self.start, self.end)
        return (f"{self.scope.query()}&start={iso(lo)}&end={iso(hi)}&res={p.res if p is not None else self.res}"
                f"&format={self.fmt}")


def parse(params: Mapping, now: datetime) -> BulkRequest:
    """The web's and the API's parameters; BadRequest saying what is wrong."""
    getlist = getattr(params, "getlist", None)
    switches = tuple(n.strip() for n in (getlist("switch") if getlist else [params.get("switch", "")]) if n.strip())
    ids_text = ",".join(getlist("s") if getlist else [params.get("s", "")])
    ids = bulkscope.parse_ids(ids_text) if ids_text.strip(", ") else ()
    scope = Scope(switches, selection.single(params, "g").strip(), ids, selection.on_off(params, "all", False))
    scope.check()
    start, end = bulk.window(selection.single(params, "start"), selection.single(params, "end"), now)
    res = selection.single(params, "res", "raw")
    if res not in resolution.CHOICES:
        raise BadRequest(f"unknown resolution {res!r}; use one of {', '.join(resolution.CHOICES)}")
    fmt = selection.single(params, "format", "csv")
    if fmt not in bulkfiles.FORMATS:
        raise BadRequest(f"unknown format {fmt!r}; use one of {', '.join(bulkfiles.FORMATS)}")
    return BulkRequest(scope, start, end, res, fmt)


def prepare(req: BulkRequest) -> BulkPlan:
    """The plan of the request (its series resolved, the limits checked); BadRequest otherwise."""
    series = bulkscope.series_of(req.scope, req.start, settings.CELLAR_BULK_EXPORT_MAX_SERIES)
    p = bulk.plan(series, req.start, req.end, req.res, max_rows=settings.CELLAR_BULK_EXPORT_MAX_ROWS)
    try:
        bulkfiles.check(p, req.fmt)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return p


def filename(req: BulkRequest, p: BulkPlan) -> str:
    what = "-".join(req.scope.switches) or (f"group-{req.scope.group}" if req.scope.group else "")
    what = what or (f"{len(req.scope.series)}-series" if req.scope.series else "network")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in what)[:80]
    return f"cellar_{safe}_{p.start:%Y%m%dT%H%M%SZ}_{p.end:%Y%m%dT%H%M%SZ}_{p.res}{bulkfiles.SUFFIX[req.fmt]}"


def create(req: BulkRequest, p: BulkPlan, *, owner_id: int | None, session_key: str | None) -> ExportJob:
    """A queued bulk job of this request (the window made absolute: the plan's)."""
    spec = {"scope": {"switches": list(req.scope.switches), "group": req.scope.group,
                      "series": list(req.scope.series), "all": req.scope.all},
            "start": iso(p.start), "end": iso(p.end), "res": p.res, "format": req.fmt}
    return jobs.create(owner_id=owner_id, session_key=session_key, selection=req.query(p),
                       filename=filename(req, p), expected_rows=p.expected_rows, kind=ExportJob.Kind.BULK, spec=spec)


def from_spec(spec: dict) -> BulkRequest:
    sc = spec["scope"]
    return BulkRequest(Scope(tuple(sc["switches"]), sc["group"], tuple(sc["series"]), bool(sc["all"])),
                       parse_iso(spec["start"]), parse_iso(spec["end"]), spec["res"], spec["format"])


def suffix(job: ExportJob) -> str:
    return bulkfiles.SUFFIX[job.spec["format"]] if job.kind == ExportJob.Kind.BULK else ".csv"


def content_type(job: ExportJob) -> str:
    return bulkfiles.CONTENT_TYPE[job.spec["format"]] if job.kind == ExportJob.Kind.BULK else "text/csv; charset=utf-8"


def write(job: ExportJob, out: BinaryIO, progress: Callable[..., None]) -> tuple[int, int]:
    """The worker: the job's file into `out`; (rows, bytes)."""
    req = from_spec(job.spec)
    return bulkfiles.write(prepare(req), req.fmt, out, progress)
