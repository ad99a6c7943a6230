"""What a bulk export's files must agree on, read as an analyst reads them (pandas): the Parquet and the
long CSV of the same export hold the same rows, times with their zone, labels, exact integers and
rates (shared by the unit tests of collector/exports and the end-to-end test on the simulated network)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

RAW_VALUES = ("counter", "delta", "rate", "interval_s", "flags")
TIER_VALUES = ("delta", "rate", "peak_rate", "min_rate", "drawn_s", "samples", "flagged")
INTS = {"vpi": "Int32", "vci": "Int32", "series_id": "Int32", "counter": "UInt64", "delta": "Int64",
        "samples": "Int64", "flagged": "Int64"}


def read_csv(path: Path) -> pd.DataFrame:
    """The long CSV with exact integer columns (nullable) and the time parsed with its zone."""
    header = pd.read_csv(path, nrows=0).columns
    df = pd.read_csv(path, dtype={k: v for k, v in INTS.items() if k in header} | {
        "switch": "string", "port": "string", "direction": "string", "metric": "string", "unit": "string",
        "object": "string", "flags": "string"}, keep_default_na=False, na_values=[""])
    df["time"] = pd.to_datetime(df["time"], format="ISO8601", utc=True)
    return df


def read_parquet(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path, dtype_backend="numpy_nullable")


def assert_same(csv_path: Path, parquet_path: Path) -> pd.DataFrame:
    """Every row and value of the Parquet equals the CSV's: the Parquet, read by pandas."""
    c, p = read_csv(csv_path), read_parquet(parquet_path)
    assert list(c.columns) == list(p.columns), (list(c.columns), list(p.columns))
    assert len(c) == len(p) and len(c) > 0
    assert str(p["time"].dt.tz) == "UTC" and (c["time"] == p["time"]).all()
    for name in c.columns:
        if name == "time":
            continue
        left, right = c[name].tolist(), p[name].astype(object).tolist()
        for k, (a, b) in enumerate(zip(left, right)):
            if missing(a) or missing(b):
                assert missing(a) and missing(b), (name, k, a, b)
            elif isinstance(a, float) or isinstance(b, float):
                assert float(a) == float(b), (name, k, a, b)        # the CSV's repr reads back exactly
            else:
                assert a == b, (name, k, a, b)
    return p


def missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def parquet_facts(path: Path) -> dict:
    """Types and row groups as stored."""
    f = pq.ParquetFile(path)
    arrow = f.schema_arrow
    return {"types": {name: str(arrow.field(name).type) for name in arrow.names},
            "row_groups": [f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups)],
            "metadata": {k.decode(): v.decode() for k, v in (arrow.metadata or {}).items()
                         if k.decode().startswith("cellar.")}}
