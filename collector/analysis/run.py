"""One analysis, end to end, on the worker: read the selection, make it regular, run the
estimators (analysis/), correlate with a second series if asked, and keep the numbers.

`compute` is a function of the request and the archive only; `execute` is the task's body
(claim the job, report progress between steps, store the result or the reason it failed).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from django.http import QueryDict

from collector.analysis import coarse, jobs, selection, source
from collector.analysis.selection import AnalysisRequest
from collector.core.isotime import iso
from collector.reader import timelimits
from collector.reader.selection import BadRequest
from collector.reader.units import UnitError
from numerics import gaps, selfsim

log = logging.getLogger(__name__)
ProgressFn = Callable[[float, str], None]
SERIES_POINTS_KEPT = 2_000       # the analysed series as drawn on the page: min/max per slice beyond this
SPECTRUM_KEPT = 2_000            # periodogram ordinates kept in the stored result (spectrum_for_page)


def compute(req: AnalysisRequest, progress: ProgressFn) -> dict:
    progress(0.02, "reading the archive")
    with timelimits.time_limited("analysis"):
        s = source.primary(req)
    progress(0.10, "placing the points on a regular grid")
    grid = gaps.regularize(s.t, s.rate, s.step_s)
    stretch = gaps.interpolate(grid, req.max_gap) if req.gaps == "interpolate" else gaps.longest_stretch(grid)
    n = len(stretch.values)
    if n < selfsim.MIN_SAMPLES:
        raise BadRequest(f"the longest usable stretch has {n:,} points ({stretch.describe()}); the estimators need "
                         f"at least {selfsim.MIN_SAMPLES:,}: choose a longer window, a finer resolution, or "
                         "gaps=interpolate")
    report = selfsim.analyse(stretch.values, s.step_s, progress=lambda f, what: progress(0.12 + 0.7 * f, what))
    result = {
        "selection": req.query(), "label": s.label, "series": s.series, "unit": s.unit,
        "start": iso(s.start), "end": iso(s.end),
        "resolution": s.res, "resolution_label": s.res_label, "step_s": s.step_s,
        "budget": selfsim.MAX_SAMPLES,
        "sampling": {
            "counts": s.counts, "text": s.accounting(),
            "gaps": stretch.describe(), "method": stretch.method, "n": n,
            "stretch_start": iso_epoch(stretch.t_start), "stretch_end": iso_epoch(stretch.t_start + n * s.step_s),
            "interpolated": stretch.n_interpolated,
        },
        "analysed": thinned(stretch.t_start, s.step_s, stretch.values),
        **report.as_json(),
    }
    result["spectrum"] = spectrum_for_page(result["spectrum"])
    if req.with_kind:
        progress(0.85, "correlating with the second series")
        with timelimits.time_limited("analysis"):
            result["correlation"] = coarse.correlate(req, s)
    return result


def iso_epoch(seconds: float) -> str:
    from collector.reader.points import at

    return iso(at(float(seconds)))


def thinned(t0: float, step: float, values: np.ndarray) -> dict:
    """The analysed stretch for its figure: every point up to SERIES_POINTS_KEPT, else the min and
    max of each of SERIES_POINTS_KEPT/2 slices (the envelope a plot of every point would show)."""
    n = len(values)
    if n <= SERIES_POINTS_KEPT:
        return {"t": [iso_epoch(t0 + i * step) for i in range(n)], "v": values.tolist(), "thinned": False}
    slices = np.array_split(np.arange(n), SERIES_POINTS_KEPT // 2)
    t, v = [], []
    for idx in slices:
        part = values[idx]
        lo, hi = int(idx[np.argmin(part)]), int(idx[np.argmax(part)])
        for i in sorted((lo, hi)):
            t.append(iso_epoch(t0 + i * step))
            v.append(float(values[i]))
    return {"t": t, "v": v, "thinned": True}


def spectrum_for_page(sp: dict) -> dict:
    """The periodogram has n/2 ordinates (32,768 at the budget): the stored result keeps every
    ordinate of the lowest SPECTRUM_KEPT/2 frequencies and log-spaced ones above (what a log-log
    plot can show), says how many, and gives each periodic line its periodogram value."""
    f, p = np.asarray(sp["frequencies"], dtype=float), np.asarray(sp["periodogram"], dtype=float)
    for peak in sp.get("peaks") or []:
        peak["power"] = float(p[int(np.argmin(np.abs(f - peak["frequency_hz"])))]) if len(f) else None
    if len(f) > SPECTRUM_KEPT:
        keep = np.unique(np.concatenate([np.arange(SPECTRUM_KEPT // 2),
                                         np.geomspace(SPECTRUM_KEPT // 2, len(f) - 1, SPECTRUM_KEPT // 2).astype(int)]))
        sp = {**sp, "frequencies": f[keep].tolist(), "periodogram": p[keep].tolist()}
    sp["ordinates"] = len(f)
    sp["ordinates_kept"] = len(sp["frequencies"])
    return sp


def execute(job_id: int) -> str:
    """The task's body: runs a queued job once (a duplicate message finds it claimed)."""
    job = jobs.claim(job_id)
    if job is None:
        return "not queued: skipped"
    progress = jobs.Progress(job.id)
    try:
        req = selection.parse(QueryDict(job.selection))
        jobs.finish(job.id, compute(req, progress))
        return "done"
    except (BadRequest, UnitError, ValueError, timelimits.TooSlow) as exc:
        jobs.fail(job.id, str(exc))
        return f"failed: {exc}"
    except Exception as exc:       # a database error: its first line, never the query's parameters
        text = f"{exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        log.exception("analysis job %s failed", job.id)
        jobs.fail(job.id, text)
        return f"failed: {text}"
    finally:
        progress.close()


def absolute(req: AnalysisRequest) -> AnalysisRequest:
    """The request with its window made absolute (now, resolved once) and aligned to the resolution
    it will read, as a job stores it; BadRequest now (not on the worker) for what cannot be read."""
    if req.external_id is not None:
        start, end = source.window(req.plot)
        if start is None or end is None:
            return req          # range=all of an external series: its extent, fixed by its points
    else:
        p = source.plan(req.plot, summed=len(req.plot.series_ids) > 1)
        start, end = p.start, p.end
    return replace(req, plot=replace(req.plot, range="custom", start=start, end=end))
