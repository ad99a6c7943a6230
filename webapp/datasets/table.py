"""Rows of the data inventory: built from the tier aggregates, sorted, filtered, as CSV. Pure.

One row per archived series with data in the range, as the seed's table 15 listed them (switch,
T/R, port, VP) and what a researcher needs next: VC, first and last data, coverage, missed polls,
total, peak and the significant bursts, with a link to the plot zoomed to them.
"""
from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from collector.core.isotime import iso

TR = {"in": "R", "out": "T"}


@dataclass
class Row:
    series_id: int
    switch: str
    tr: str                     # T (transmit) / R (receive), as table 15
    port: str
    vpi: int | None
    vci: int | None
    metric: str
    unit: str
    first: datetime
    first_precision: str        # the tier the first bucket was found in (1m ... 1d)
    last: datetime
    last_precision: str
    coverage: float | None      # samples / polls due between first and last
    missed_polls: int
    total: int                  # units counted (cells, octets, packets)
    peak: float | None          # highest sample rate, units/s
    bursts: int                 # significant bursts stored for the range
    burst_start: datetime | None
    burst_end: datetime | None

    @property
    def coverage_pct(self) -> float | None:
        return None if self.coverage is None else 100 * self.coverage

    def plot_url(self) -> str:
        """The plot of this series zoomed to its bursts (with context), else over its data."""
        lo, hi = (self.burst_start, self.burst_end) if self.bursts and self.burst_start else (self.first, self.last)
        assert lo is not None and hi is not None
        pad = max((hi - lo) / 2, timedelta(minutes=10))
        return "/traffic/?" + urlencode({"s": self.series_id, "start": iso(lo - pad), "end": iso(hi + pad)})

    def as_json(self) -> dict:
        d = asdict(self)
        for k in ("first", "last", "burst_start", "burst_end"):
            d[k] = iso(d[k]) if d[k] else None
        d["plot"] = self.plot_url()
        return d


# column key -> header (the page's, the CSV's and the API's names); any of them can sort
COLUMNS = {
    "switch": "Switch", "tr": "T/R", "port": "Port", "vpi": "VP", "vci": "VC", "metric": "Metric",
    "first": "First data (UTC)", "last": "Last data (UTC)", "coverage": "Coverage", "missed_polls": "Missed polls",
    "total": "Total", "unit": "Unit", "peak": "Peak rate (/s)", "bursts": "Significant bursts",
}
DEFAULT_SORT = ("switch", "port", "tr", "vpi", "vci", "metric")


def build(meta: Iterable, aggs: dict[int, tuple], firsts: dict[int, tuple], lasts: dict[int, tuple],
          bursts: dict[int, tuple]) -> list[Row]:
    """meta: queries.SeriesMeta; aggs: id -> (total, samples, peak);
    firsts/lasts: id -> (time, tier); bursts: id -> (count, first start, last end)."""
    rows = []
    for m in meta:
        agg = aggs.get(m.id)
        if agg is None:
            continue
        total, samples, peak = agg
        (first, ft), (last, lt) = firsts[m.id], lasts[m.id]
        due = max(1, math.ceil(((last + lt.width) - first).total_seconds() / m.poll_interval_s))
        n, b_start, b_end = bursts.get(m.id, (0, None, None))
        rows.append(Row(m.id, m.switch, TR.get(m.direction, ""), m.port or m.index, m.vpi, m.vci, m.metric, m.unit,
                        first, ft.name, last, lt.name, min(1.0, samples / due), max(0, due - samples), int(total),
                        peak, n, b_start, b_end))
    return rows


# What None sorts as (first, ascending): VPI/VCI are >= 0, rates and coverage >= 0.
NULLS: dict[str, object] = {"vpi": -1, "vci": -1, "peak": -1.0, "coverage": -1.0}


def _key(columns: list[str]):
    def key(r: Row) -> tuple:
        return tuple(NULLS.get(c) if (v := getattr(r, c)) is None else v for c in columns)
    return key


def sort(rows: list[Row], spec: str) -> list[Row]:
    """spec: columns separated by commas, each with '-' in front for descending; ties keep the
    table-15 order (DEFAULT_SORT). Unknown columns raise ValueError (a 400). One stable sort per
    run of columns sorted the same way (usually one or two passes over the rows)."""
    groups: list[tuple[list[str], bool]] = []
    for item in (k.strip() for k in spec.split(",") if k.strip()):
        desc, name = item.startswith("-"), item.lstrip("-")
        if name not in COLUMNS:
            raise ValueError(f"cannot sort by {name!r}: use one of {', '.join(COLUMNS)} (prefix - for descending)")
        if groups and groups[-1][1] == desc:
            groups[-1][0].append(name)
        else:
            groups.append(([name], desc))
    if groups != [(list(DEFAULT_SORT), False)]:
        rows = sorted(rows, key=_key(list(DEFAULT_SORT)))
    for columns, desc in reversed(groups):
        rows = sorted(rows, key=_key(columns), reverse=desc)
    return rows


CSV_FIELDS = ["series_id", "switch", "tr", "port", "vpi", "vci", "metric", "unit", "first", "first_precision",
              "last", "last_precision", "coverage", "missed_polls", "total", "peak", "bursts", "burst_start",
              "burst_end", "plot"]


def csv_lines(rows: Iterable[Row], header_notes: list[str]) -> Iterator[str]:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for note in header_notes:
        buf.write(f"# {note}\n")
    w.writerow(CSV_FIELDS)
    yield buf.getvalue()
    for r in rows:
        buf.seek(0)
        buf.truncate()
        d = r.as_json()
        w.writerow(["" if d[k] is None else d[k] for k in CSV_FIELDS])
        yield buf.getvalue()
