"""A bulk export's file: long CSV, wide CSV or Parquet, written batch by batch (collector/reader/bulk.py),
so memory stays bounded by one batch (~200,000 rows) whatever the export's size.

Long CSV and Parquet hold the same rows and columns (one row per series and time):

  time        timestamp, UTC (Parquet: timestamp[us, UTC]; CSV: ISO 8601 with Z, fractions only when
              present). Raw: the sample's time (the end of its interval); tiers: the bucket's start.
  switch, port, vpi, vci, direction, metric, unit, object, series_id
              what the counter counts (vpi/vci empty for a port's counter; object: the SNMP object)
  raw:        counter (the reading, unsigned 64-bit, exact), delta (the archived integer delta: empty
              after a reboot, reset or first reading), rate (delta per second, in `unit`, where drawn as
              traffic; empty otherwise), interval_s (since the switch's previous poll), flags (names of
              collector/core/facts.py FLAGS joined by '|': WRAP, REBOOT, RESET, OVER_CAPACITY, MISSING,
              FIRST, GAP, AMBIGUOUS, CLOCK, WIDTH; empty for none)
  tiers:      delta (the drawn deltas summed), rate (their average per second), peak_rate and min_rate
              (of one poll interval), drawn_s (seconds drawn), samples, flagged (samples with a flag
              other than WRAP)

Parquet: labels dictionary-encoded, integers exact (uint64 counter, int64 delta; empty cells are
nulls), one row group per batch, zstd. Wide CSV: `time`, then one column per series named
"<label> [<unit>/s]" holding its rate (raw: at the samples' own times; tiers: the bucket average).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from collector.core.facts import FLAGS, flag_names
from collector.reader import resolution
from collector.reader.bulk import RAW_FIELDS, TIER_FIELDS, Batch, BulkPlan, batches

FORMATS = ("csv", "csv-wide", "parquet")
SUFFIX = {"csv": ".csv", "csv-wide": ".csv", "parquet": ".parquet"}
CONTENT_TYPE = {"csv": "text/csv; charset=utf-8", "csv-wide": "text/csv; charset=utf-8",
                "parquet": "application/vnd.apache.parquet"}
LABELS = ("switch", "port", "direction", "metric", "unit", "object")
LABEL_COLUMNS = ("time", "switch", "port", "vpi", "vci", "direction", "metric", "unit", "object", "series_id")
WIDE_MAX_SERIES = 10_000     # columns of a wide CSV: beyond, the long form says the same in fewer bytes
TYPES = {"counter": pa.uint64(), "delta": pa.int64(), "rate": pa.float64(), "interval_s": pa.float64(),
         "flags": pa.dictionary(pa.int32(), pa.string()), "peak_rate": pa.float64(), "min_rate": pa.float64(),
         "drawn_s": pa.float64(), "samples": pa.int64(), "flagged": pa.int64()}
LABEL = pa.dictionary(pa.int32(), pa.string())
Progress = Callable[[int, int], None]       # (rows, bytes) so far


def columns(p: BulkPlan) -> tuple[str, ...]:
    return LABEL_COLUMNS + (RAW_FIELDS if p.res == "raw" else TIER_FIELDS)


def schema(p: BulkPlan) -> pa.Schema:
    fields = [pa.field("time", pa.timestamp("us", tz="UTC"), nullable=False)]
    fields += [pa.field(n, LABEL) for n in ("switch", "port")]
    fields += [pa.field("vpi", pa.int32()), pa.field("vci", pa.int32())]
    fields += [pa.field(n, LABEL) for n in ("direction", "metric", "unit", "object")]
    fields.append(pa.field("series_id", pa.int32(), nullable=False))
    fields += [pa.field(n, TYPES[n]) for n in (RAW_FIELDS if p.res == "raw" else TIER_FIELDS)]
    meta = {"cellar.resolution": p.res, "cellar.resolution_label": resolution.RES_LABEL[p.res],
            "cellar.start": p.start.isoformat(), "cellar.end": p.end.isoformat(),
            "cellar.flags": json.dumps({f.name: f.meaning for f in FLAGS})}
    return pa.schema(fields, metadata=meta)


class Labels:
    """Each label column's dictionary (the distinct values of the plan's series) and, per series rank,
    the index of its value: a batch's label columns are then one numpy take each."""

    def __init__(self, p: BulkPlan):
        values = {"switch": [s.switch for s in p.series], "port": [s.port or s.index for s in p.series],
                  "direction": [s.direction for s in p.series], "metric": [s.metric for s in p.series],
                  "unit": [s.unit for s in p.series], "object": [s.object_name for s in p.series]}
        self.dicts: dict[str, pa.Array] = {}
        self.index: dict[str, np.ndarray] = {}
        for name, vals in values.items():
            uniq, inverse = np.unique(np.asarray(vals, dtype=object), return_inverse=True)
            self.dicts[name], self.index[name] = pa.array(list(uniq), pa.string()), inverse.astype(np.int32)
        self.vpi = np.asarray([-1 if s.vpi is None else s.vpi for s in p.series], np.int32)
        self.vci = np.asarray([-1 if s.vci is None else s.vci for s in p.series], np.int32)

    def arrays(self, rank: np.ndarray) -> dict[str, pa.Array]:
        out: dict[str, pa.Array] = {}
        for name in LABELS:
            out[name] = pa.DictionaryArray.from_arrays(pa.array(self.index[name][rank]), self.dicts[name])
        for name, values in (("vpi", self.vpi[rank]), ("vci", self.vci[rank])):
            out[name] = pa.array(values, pa.int32(), mask=values < 0)
        return out


def flag_words(bits: np.ndarray) -> pa.Array:
    """'WRAP|GAP' per flag word, null for none, dictionary-encoded (a batch has a handful of words)."""
    uniq, inverse = np.unique(bits, return_inverse=True)
    words = pa.array(["|".join(flag_names(int(b))) for b in uniq], pa.string())     # "" for 0: masked
    indices = pa.array(inverse.astype(np.int32), mask=(uniq == 0)[inverse])
    return pa.DictionaryArray.from_arrays(indices, words)


def table(p: BulkPlan, labels: Labels, b: Batch, *, text_time: bool, sch: pa.Schema | None = None) -> pa.Table:
    """A batch as an Arrow table of columns(p); text_time: the time as ISO 8601 text (for the CSV);
    sch: the file's schema (Parquet: every row group the same)."""
    assert b.rank is not None
    cols: dict[str, pa.Array] = {"time": iso_times(b.t) if text_time
                                 else pa.array(b.t, pa.timestamp("us", tz="UTC"))}
    label = labels.arrays(b.rank)
    for name in LABEL_COLUMNS[1:-1]:
        cols[name] = label[name]
    cols["series_id"] = pa.array(b.sid, pa.int32())
    for name in RAW_FIELDS if p.res == "raw" else TIER_FIELDS:
        v = b.values[name]
        if name == "flags":
            cols[name] = flag_words(v)
        elif name in b.valid:
            cols[name] = pa.array(v, TYPES[name], mask=~b.valid[name])
        elif v.dtype.kind == "f":
            cols[name] = pa.array(v, TYPES[name], mask=np.isnan(v))
        else:
            cols[name] = pa.array(v, TYPES[name])
    return pa.table(cols) if sch is None else pa.Table.from_arrays(list(cols.values()), schema=sch)


def iso_times(t_us: np.ndarray) -> pa.Array:
    """ISO 8601 UTC with Z, always to the second, fractions only where present (as the view's CSV
    writes them, collector/reader/csvzone.py). numpy's "auto" unit alone would drop whatever is zero
    at the end: a whole minute as "10:00Z", a day bucket as a bare date."""
    t = np.asarray(t_us, dtype=np.int64)
    whole = t % 1_000_000 == 0
    if whole.all():
        return pa.array(np.datetime_as_string(t.astype("datetime64[us]"), unit="s", timezone="UTC"), pa.string())
    out = np.datetime_as_string(t.astype("datetime64[us]"), unit="auto", timezone="UTC")
    if whole.any():
        out[whole] = np.datetime_as_string(t[whole].astype("datetime64[us]"), unit="s", timezone="UTC")
    return pa.array(out, pa.string())


def wide_header(p: BulkPlan) -> list[str]:
    names = [f"{s.label} [{s.unit}/s]" for s in p.series]
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    return ["time"] + [n if seen[n] == 1 else f"{n} (series {s.id})" for n, s in zip(names, p.series)]


def wide_table(p: BulkPlan, b: Batch, header: list[str]) -> pa.Table:
    assert b.rank is not None
    times, row = np.unique(b.t, return_inverse=True)
    grid = np.full((len(times), len(p.series)), np.nan)
    grid[row, b.rank] = b.values["rate"]
    cols = [iso_times(times)] + [pa.array(grid[:, j], pa.float64(), mask=np.isnan(grid[:, j]))
                                 for j in range(len(p.series))]
    return pa.Table.from_arrays(cols, names=header)


class Sink:
    """A file-like object pyarrow writes into: the bytes are kept until taken (a streamed answer), or
    passed on to a real file; it counts them either way."""

    def __init__(self, out: BinaryIO | None = None):
        self.out, self.buf, self.size, self.closed = out, bytearray(), 0, False

    def write(self, data) -> int:
        n = len(data)
        if self.out is not None:
            self.out.write(data)
        else:
            self.buf += data
        self.size += n
        return n

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        if self.out is not None:
            self.out.flush()

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        data = bytes(self.buf)
        self.buf.clear()
        return data


def check(p: BulkPlan, fmt: str) -> None:
    """ValueError when the format cannot hold the plan (a wide CSV of too many series)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv-wide" and len(p.series) > WIDE_MAX_SERIES:
        raise ValueError(f"a wide CSV has one column per series: {len(p.series):,} series is more than its "
                         f"{WIDE_MAX_SERIES:,}; use the long CSV (format csv) or Parquet")


def chunks(p: BulkPlan, fmt: str, sink: Sink, *, timeout_ms: int | None = None) -> Iterator[int]:
    """Write the export into `sink` batch by batch; after each batch, yield the rows written so far
    (a streamed answer takes the sink's bytes then). The file is whole when the iterator ends."""
    check(p, fmt)
    labels, rows = Labels(p), 0
    if fmt == "parquet":
        sch = schema(p)
        with pq.ParquetWriter(pa.PythonFile(sink, mode="w"), sch, compression="zstd") as writer:
            for b in batches(p, "switch", timeout_ms=timeout_ms):
                writer.write_table(table(p, labels, b, text_time=False, sch=sch), row_group_size=len(b))
                rows += len(b)
                yield rows
        yield rows
        return
    header = wide_header(p) if fmt == "csv-wide" else list(columns(p))
    pacsv.write_csv(pa.table({n: pa.array([], pa.string()) for n in header}), sink)     # the header line
    yield 0
    options = pacsv.WriteOptions(include_header=False)
    for b in batches(p, "time" if fmt == "csv-wide" else "switch", timeout_ms=timeout_ms):
        t = wide_table(p, b, header) if fmt == "csv-wide" else table(p, labels, b, text_time=True)
        pacsv.write_csv(t, sink, write_options=options)
        rows += t.num_rows
        yield rows


def write(p: BulkPlan, fmt: str, out: BinaryIO, progress: Progress | None = None) -> tuple[int, int]:
    """The whole export into `out`; (rows, bytes). progress(rows, bytes) after each batch."""
    sink = Sink(out)
    rows = 0
    for rows in chunks(p, fmt, sink):
        if progress is not None:
            progress(rows, sink.size)
    return rows, sink.size


def stream(p: BulkPlan, fmt: str, *, timeout_ms: int | None = None) -> Iterator[bytes]:
    """The export's bytes as they are written (a web answer), a batch at a time."""
    sink = Sink()
    for _ in chunks(p, fmt, sink, timeout_ms=timeout_ms):
        if sink.buf:
            yield sink.take()
    if sink.buf:
        yield sink.take()
