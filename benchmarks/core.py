"""What every figure produces (Measure), the run context, and the tables."""
from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Measure:
    """One row of the table: a Cellar figure and the reference measured beside it, per run."""
    key: str                          # "1a", "2", "3b" ...
    title: str                        # what was measured, with its size
    unit: str                         # unit of `cellar` and `reference`
    cellar: list[float]
    reference: list[float] = field(default_factory=list)
    ref_name: str = ""                # e.g. "snmpbulkwalk -Cr25"
    ratio: list[float] = field(default_factory=list)   # per run, computed from the same run's pair
    ratio_name: str = ""              # e.g. "Cellar CPU / snmpbulkwalk CPU"
    goal: str = ""
    met: bool | None = None           # judged on the medians
    notes: list[str] = field(default_factory=list)
    higher_is_better: bool = True     # for `cellar`

    def median(self, values: list[float]) -> float:
        return statistics.median(values) if values else math.nan

    def as_json(self) -> dict:
        return {k: getattr(self, k) for k in ("key", "title", "unit", "cellar", "reference", "ref_name", "ratio",
                                              "ratio_name", "goal", "met", "notes", "higher_is_better")}


@dataclass
class Context:
    smoke: bool
    runs: int
    db_url: str
    work: Path                        # scratch directory of this run (removed at the end)
    log_file: Path | None = None
    started: float = field(default_factory=time.monotonic)
    info: dict = field(default_factory=dict)    # facts a figure reports for the doc (sizes, commands)
    cache: dict = field(default_factory=dict)   # data one figure made and another reuses

    def log(self, msg: str) -> None:
        line = f"[{time.monotonic() - self.started:7.1f}s] {msg}"
        print(line, file=sys.stderr, flush=True)
        if self.log_file:
            with open(self.log_file, "a") as f:
                f.write(line + "\n")

    def size(self, smoke: int | float, full: int | float):
        return smoke if self.smoke else full


def fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 100_000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a >= 0.01:
        return f"{v:.3f}"
    return f"{v:.2g}"


def triple(values: list[float]) -> str:
    if not values:
        return "–"
    return f"{fmt(min(values))} / {fmt(statistics.median(values))} / {fmt(max(values))}"


def met_text(m: Measure) -> str:
    return {True: "**yes**", False: "**no**", None: "–"}[m.met]


TABLE_HEADER = ("| # | Figure | Unit | Cellar min / median / max | Reference (min / median / max) "
                "| Ratio min / median / max | Goal | Met |\n|---|---|---|---|---|---|---|---|")


def table(measures: list[Measure]) -> str:
    rows = [TABLE_HEADER]
    for m in measures:
        ref = f"{m.ref_name}: {triple(m.reference)}" if m.reference else (m.ref_name or "–")
        ratio = f"{triple(m.ratio)} ({m.ratio_name})" if m.ratio else "–"
        rows.append(f"| {m.key} | {m.title} | {m.unit} | {triple(m.cellar)} | {ref} | {ratio} | {m.goal or '–'} "
                    f"| {met_text(m)} |")
    return "\n".join(rows)


def plain_table(measures: list[Measure]) -> str:
    """The same figures for a terminal."""
    lines = []
    for m in measures:
        lines.append(f"{m.key:>3}  {m.title}")
        lines.append(f"     Cellar     {triple(m.cellar)} {m.unit}")
        if m.reference:
            lines.append(f"     reference  {triple(m.reference)} ({m.ref_name})")
        if m.ratio:
            lines.append(f"     ratio      {triple(m.ratio)} ({m.ratio_name})")
        if m.goal:
            lines.append(f"     goal       {m.goal}: {'met' if m.met else 'NOT met' if m.met is False else '-'}")
        for n in m.notes:
            lines.append(f"     note       {n}")
    return "\n".join(lines)


CURRENT_HEADER = ("| # | Figure | Unit | Cellar (median) | Reference (median) | Ratio (median) | Goal | Status "
                  "| Run |\n|---|---|---|---|---|---|---|---|---|")


def _figure_order(key: str) -> tuple[int, str]:
    digits = len(key) - len(key.lstrip("0123456789"))
    return (int(key[:digits] or 0), key[digits:])


def _median(values: list[float]) -> str:
    return fmt(statistics.median(values)) if values else "–"


def run_conditions(run: dict) -> str:
    """When and at what load a run measured (its JSON), as the Run column of the table says it."""
    start, end = ((run.get(k) or "?").split()[0] for k in ("load_start", "load_end"))   # 1-minute averages
    text = f"{run.get('date', '?')}, load {start} -> {end}, {run.get('runs', '?')} runs"
    if run.get("smoke"):
        text += ", SMOKE"
    if run.get("partial"):
        text += ", --only " + ",".join(run.get("figures", []))
    return text


def current_table(runs: list[dict]) -> str:
    """The 'Current figures' table of docs/benchmarks.md from the JSON of several runs, oldest
    first: partial runs measure a few figures each, so each figure's row comes from the latest
    run that measured it, and says which run that was."""
    latest: dict[str, tuple[dict, dict]] = {}
    for run in runs:
        for m in run.get("measures", []):
            latest[m["key"]] = (m, run)
    rows = [CURRENT_HEADER]
    for key in sorted(latest, key=_figure_order):
        m, run = latest[key]
        ref = f"{m['ref_name']}: {_median(m['reference'])}" if m["reference"] else (m["ref_name"] or "–")
        ratio = f"{_median(m['ratio'])} ({m['ratio_name']})" if m["ratio"] else "–"
        status = {True: "met", False: "**not met**", None: "–"}[m["met"]]
        rows.append(f"| {key} | {m['title']} | {m['unit']} | {_median(m['cellar'])} | {ref} | {ratio} "
                    f"| {m['goal'] or '–'} | {status} | {run_conditions(run)} |")
    return "\n".join(rows)
