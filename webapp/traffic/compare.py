"""Period comparison: the same series an offset earlier (a day, a week, any offset), drawn dashed
over the plot with its own legend entry; in the JSON and the CSV as well (compare=, params.py).

An earlier period is planned like the plot itself at the plot's resolution over [start - offset,
end - offset), read by the same queries, and moved forward by the offset to be drawn: its line is
exactly the earlier period's plot and CSV (tests/integration/traffic/test_compare.py checks it
against the CSV of the earlier range). Its statistics are the earlier period's own.

A comparison wholly before the series' first data (the archive) is refused with the first data
and the largest offset that still shows some of it; one partly before is drawn where it has data.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta

from collector.core.isotime import iso
from collector.reader import queries, reading
from collector.reader.catalog import SeriesInfo
from collector.reader.points import Gap
from collector.reader.reading import Plan, Plotted
from collector.reader.selection import BadRequest, Compare, PlotRequest
from webapp.traffic import datajson, plots


@dataclass
class Line:
    """The earlier period of some series of a plot: its own plan (the earlier range)."""
    spec: Compare
    series: list[SeriesInfo]
    plan: Plan

    @property
    def offset(self) -> timedelta:
        return self.spec.offset

    def label(self, s: SeriesInfo) -> str:
        return f"{s.label} ({self.spec.words} earlier)"


def attach(p: Plan, for_csv: bool = False) -> Plan:
    """Plan the comparisons the request asks for (p.compare); BadRequest when one is beyond the
    archive, or when the plot and its comparisons together read more than one request may."""
    if not p.req.compare:
        return p
    firsts = _first_data(p.series)
    lines: list[Line] = []
    for spec in p.req.compare:
        members = [s for s in p.series if spec.series is None or s.id == spec.series]
        lo, hi = p.start - spec.offset, p.end - spec.offset
        have = [s for s in members if (first := firsts.get(s.id)) is not None and first < hi]
        if not have:
            raise BadRequest(_beyond(spec, members, firsts, p))
        req = PlotRequest(tuple(s.id for s in have), "custom", lo, hi, p.unit, p.res)
        earlier = reading.plan(req, have, res=p.res, clock=(p.now, p.done), for_csv=for_csv)
        lines.append(Line(spec, have, earlier))
    reading.check_cells(len(p.series) + sum(len(x.series) for x in lines), p.expected_points, p.res, for_csv)
    p.compare = lines
    return p


def _first_data(series: list[SeriesInfo]) -> dict[int, datetime | None]:
    """The first data of each series (per switch: series of one switch start together)."""
    by_switch: dict[int, list[SeriesInfo]] = {}
    for s in series:
        by_switch.setdefault(s.switch_id, []).append(s)
    out: dict[int, datetime | None] = {}
    for group in by_switch.values():
        first = queries.first_data(group)
        out.update({s.id: first for s in group})
    return out


def _beyond(spec: Compare, members: list[SeriesInfo], firsts: dict[int, datetime | None], p: Plan) -> str:
    known = [t for t in (firsts.get(s.id) for s in members) if t is not None]
    what = ", ".join(s.label for s in members[:3]) + (f" and {len(members) - 3} more" if len(members) > 3 else "")
    if not known:
        return f"compare={spec.query_text()}: {what} has no data in the archive yet, so there is no earlier period"
    first = min(known)
    longest = p.end - first
    hours = int(longest.total_seconds() // 3600)
    most = f"{hours // 24} days" if hours >= 48 else f"{hours} hours" if hours >= 2 else \
        f"{int(longest.total_seconds() // 60)} minutes"
    return (f"compare={spec.query_text()} asks for {iso(p.start - spec.offset)} to {iso(p.end - spec.offset)}, "
            f"before the archive's first data of {what} ({iso(first)}): an offset of at most {most} "
            "shows some of it")


@dataclass
class Fetched:
    line: Line
    plotted: list[Plotted]        # the earlier period's points, times as stored


def fetch(p: Plan) -> list[Fetched]:
    return [Fetched(line, reading.fetch(line.plan, with_p95=False)) for line in p.compare]


def shifted(pl: Plotted, offset: timedelta) -> Plotted:
    """The same points moved forward by the offset (to be drawn over the later period)."""
    s = offset.total_seconds()
    cols = dataclasses.replace(pl.cols, t=pl.cols.t + s)
    gaps = [Gap(g.lo + offset, g.hi + offset, g.kind, g.detail, g.reason) for g in pl.gaps]
    return Plotted(pl.info, pl.factor, cols, gaps, pl.stats)


def traces(p: Plan, fetched: list[Fetched]) -> list[dict]:
    """Dashed lines of the earlier periods, each in its series' colour, with its own legend entry."""
    colour = {s.id: plots.PALETTE[i % len(plots.PALETTE)] for i, s in enumerate(p.series)}
    out: list[dict] = []
    for f in fetched:
        moved = [shifted(pl, f.line.offset) for pl in f.plotted]
        fig = plots.build(moved, p.unit, p.res, p.res_seconds, p.start, p.end, False)
        for tr in fig["data"]:
            meta = tr.get("meta") or {}
            if meta.get("role") != "average":
                continue
            info = next(pl.info for pl in moved if pl.info.id == meta["series"])
            tr["name"] = f.line.label(info)
            tr["legendgroup"] = f"compare-{info.id}-{f.line.spec.text}"
            tr["line"] = {**tr["line"], "color": colour[info.id], "dash": "dash", "width": 1.4}
            tr["opacity"] = 0.8
            tr["showlegend"] = True
            tr["meta"] = {"series": info.id, "role": "compare", "offset_s": int(f.line.offset.total_seconds())}
            tr["hovertemplate"] = f"{f.line.spec.words} earlier than " + tr["hovertemplate"]
            out.append(tr)
    return out


def as_json(fetched: list[Fetched], with_points: bool) -> list[dict]:
    """Per comparison line: its series, offset, the earlier range, statistics, points at their own
    (earlier) times."""
    out = []
    for f in fetched:
        for pl in f.plotted:
            d = {"series": pl.info.id, "label": f.line.label(pl.info), "offset": f.line.spec.text,
                 "offset_s": int(f.line.offset.total_seconds()), "start": iso(f.line.plan.start),
                 "end": iso(f.line.plan.end), "stats": datajson.stats_json(pl), "n_points": len(pl.cols)}
            if with_points:
                d["points"] = datajson.points_json(pl, f.line.plan.res == "raw")
            out.append(d)
    return out
