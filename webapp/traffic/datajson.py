"""The JSON of a plot's data, as the page and the API answer it (collector/reader/reading.py reads it)."""
from __future__ import annotations

from collector.core.facts import flag_names
from collector.core.isotime import iso
from collector.reader import resolution, units
from collector.reader.points import at
from collector.reader.reading import Plan, Plotted
from webapp.traffic import grouptotal


def scale(v: float | None, f: float) -> float | None:
    return None if v is None else v * f


def stats_json(pl: Plotted) -> dict:
    st, f = pl.stats, pl.factor
    d = {"average": scale(st.average, f), "peak": scale(st.peak, f), "p95": scale(st.p95, f),
         "p95_basis": st.p95_basis, "total": st.total, "total_unit": units.total_unit(pl.info),
         "seconds": st.seconds, "coverage": st.coverage, "samples": st.samples, "flagged": st.flagged}
    if pl.info.unit == "cells":
        d["total_bytes"] = st.total * units.CELL_BYTES
        d["total_payload_bytes"] = st.total * units.PAYLOAD_BYTES
    return d


def _scaled(values, f: float) -> list[float | None]:
    return [None if v != v else v for v in (values * f).tolist()]


def points_json(pl: Plotted, raw: bool) -> dict:
    c, f = pl.cols, pl.factor
    d = {"t": [iso(at(t)) for t in c.t.tolist()], "avg": _scaled(c.avg(), f),
         "peak": _scaled(c.peak, f), "total": c.delta.tolist(), "seconds": c.seconds.tolist(),
         "samples": c.samples.tolist(), "flagged": c.flagged.tolist()}
    if raw:
        flags, stored = c.raw_flags()
        d["flags"] = [flag_names(v) for v in flags.tolist()]
        d["delta"] = list(stored)
        d["interval"] = c.span.tolist()
    else:
        d["low"] = _scaled(c.low, f)
    return d


def group_json(p: Plan, plotted: list[Plotted], with_points: bool) -> dict | None:
    """The group plotted and its total line (None when the plot is not of a group)."""
    if p.req.group is None:
        return None
    if p.unit == "pct":
        return {"id": p.req.group, "name": p.group_name, "total": None,
                "note": "a sum of percentages of different capacities is no total: choose a rate unit"}
    total = grouptotal.as_json(grouptotal.total(plotted), plotted, with_points) if p.res != "raw" else None
    return {"id": p.req.group, "name": p.group_name, "total": total}


def data_json(p: Plan, plotted: list[Plotted], *, with_points: bool = True) -> dict:
    """The API's answer. with_points=False (the page, which draws the figure): only the count."""
    return {
        "start": iso(p.start), "end": iso(p.end), "now": iso(p.now),
        "range": p.req.range, "resolution": p.res, "resolution_label": resolution.RES_LABEL[p.res],
        "resolution_seconds": p.res_seconds, "unit": p.unit, "unit_label": units.UNITS[p.unit].label,
        "stack": p.req.stack, "query": p.req.query(), "notes": p.notes,
        "group": group_json(p, plotted, with_points),
        "series": [{
            **pl.info.as_json(), "factor": pl.factor, "stats": stats_json(pl), "n_points": len(pl.cols),
            **({"points": points_json(pl, p.res == "raw")} if with_points else {}),
            "gaps": [{"start": iso(g.lo), "end": iso(g.hi), "kind": g.kind, "reason": g.text()}
                     for g in pl.gaps],
        } for pl in plotted],
    }


def p95_json(p: Plan, values: dict[int, float | None]) -> dict:
    return {"start": iso(p.start), "end": iso(p.end), "unit": p.unit, "p95_basis": p.p95_basis,
            "series": [{"id": s.id, "label": s.label, "p95": scale(values.get(s.id), p.factors[s.id])}
                       for s in p.series]}


