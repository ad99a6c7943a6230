"""Significant bursts of plotted series: the request's rule, the detection over the plotted
points (numerics/bursts.py, pure), their JSON and their bands on the figure.

Bursts are found at the plot's own resolution, over exactly the points drawn: the answer says
which resolution, because a burst of two minutes is a burst in 15-second samples and is not
one in hourly averages. Parameters (each optional, defaults in settings CELLAR_BURST_*):

  bursts=0|1       find bursts (default 1)
  burst_k=4        times the median rate of the window
  burst_pct=0.01   percent of the port's capacity (a noise floor)
  burst_min=30     minimum duration, seconds
  burst_samples=2  minimum poll samples above the threshold
"""
from __future__ import annotations

from collections.abc import Mapping

from collector.bursts.scan import default_rule
from collector.core.isotime import iso
from collector.reader.points import at
from collector.reader.selection import BadRequest, on_off
from numerics.bursts import Burst, BurstReport, BurstRule, find
from webapp.traffic.plots import px

# Violet: grey, amber and red bands already mean no data, missed polls and withheld samples.
BAND_FILL = "rgba(124, 58, 237, 0.12)"
BAND_EDGE = "rgba(109, 40, 217, 0.6)"
LIMITS = {"burst_k": (0.0, 1000.0), "burst_pct": (0.0, 100.0), "burst_min": (0.0, 86400.0 * 7),
          "burst_samples": (1.0, 10000.0)}


def rule_from(params: Mapping) -> BurstRule | None:
    """The request's rule, None when bursts=0; BadRequest naming the parameter and its limits."""
    if not on_off(params, "bursts", True):
        return None
    base = default_rule()
    values = {"burst_k": base.k, "burst_pct": base.capacity_pct, "burst_min": base.min_duration_s,
              "burst_samples": float(base.min_samples)}
    for name, (lo, hi) in LIMITS.items():
        text = (params.get(name) or "").strip()
        if not text:
            continue
        try:
            value = float(text)
        except ValueError:
            raise BadRequest(f"{name}={text!r} is not a number") from None
        if not lo <= value <= hi:
            raise BadRequest(f"{name}={text} is outside {lo:g}..{hi:g}")
        if name == "burst_samples" and value != int(value):
            raise BadRequest(f"{name}={text} is not a whole number of samples")
        values[name] = value
    return BurstRule(k=values["burst_k"], capacity_pct=values["burst_pct"], min_duration_s=values["burst_min"],
                     min_samples=int(values["burst_samples"]))


def of(plotted, rule: BurstRule, raw: bool) -> BurstReport:
    """Bursts of one service.Plotted: raw points end at t and are one sample each; bucket points
    start at t and hold `samples`, the fastest at `peak`."""
    c = plotted.cols
    if raw:
        return find(c.t - c.span, c.t, c.delta, c.seconds, rule, plotted.info.capacity_per_s)
    return find(c.t, c.t + c.span, c.delta, c.seconds, rule, plotted.info.capacity_per_s, c.peak, c.samples)


def burst_json(b: Burst, factor: float) -> dict:
    return {"start": iso(at(b.start)), "end": iso(at(b.end)), "duration_s": b.duration,
            "peak": b.peak * factor, "mean": b.mean * factor, "volume": b.volume, "points": b.points,
            "samples": b.samples, "gap_s": b.gap_seconds}


def report_json(report: BurstReport, factor: float) -> dict:
    median, threshold = report.median, report.threshold
    return {"median": None if median != median else median * factor,
            "threshold": None if threshold != threshold else threshold * factor,
            "bursts": [burst_json(b, factor) for b in report.bursts]}


def rule_json(rule: BurstRule, resolution_label: str) -> dict:
    return {"k": rule.k, "capacity_pct": rule.capacity_pct, "min_duration_s": rule.min_duration_s,
            "min_samples": rule.min_samples, "definition": rule.describe(), "found_at": resolution_label}


def attach(body: dict, plotted: list, rule: BurstRule | None, raw: bool) -> list[BurstReport]:
    """Add the rule and each series' bursts to an api/data answer; the reports, for the bands."""
    if rule is None:
        return []
    found = [of(pl, rule, raw) for pl in plotted]
    body["burst_rule"] = rule_json(rule, body["resolution_label"])
    for entry, pl, report in zip(body["series"], plotted, found, strict=True):
        entry["bursts"] = report_json(report, pl.factor)
    return found


def bands(reports: list[BurstReport]) -> list[dict]:
    """One translucent band per burst, under the lines (layout shapes)."""
    out = []
    for report in reports:
        for b in report.bursts:
            out.append({"type": "rect", "xref": "x", "yref": "paper", "x0": px(at(b.start)), "x1": px(at(b.end)),
                        "y0": 0, "y1": 1, "fillcolor": BAND_FILL, "layer": "below",
                        "line": {"width": 1, "color": BAND_EDGE, "dash": "dot"}, "name": "burst"})
    return out
