"""collector/exports/bulkfiles.py and `manage.py export`: the long CSV, the wide CSV and the Parquet of
one bulk export hold the same data; Parquet is typed and written a row group per batch; the CLI's bad
input is a clear error and leaves no file. Data: every flag a poll can give (traffic_factory
derived_archive: the collector's own counter math)."""
from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collector.core.facts import flag_names
from collector.exports import bulkfiles
from collector.reader import bulk, bulkscope
from collector.reader.bulkscope import Scope
from tests.support import bulk_check
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive():
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    a = f.derived_archive("files-a", t0)
    b = f.derived_archive("files-b", t0 + timedelta(seconds=4, milliseconds=250), series_count=3, shift=11)
    return t0, a[2] + b[2]


def _plan(t0, res="raw", start=None):
    series = bulkscope.series_of(Scope(all=True), t0, 100)
    return bulk.plan(series, start or t0, t0 + timedelta(minutes=10), res, max_rows=10_000)


def test_parquet_and_long_csv_hold_the_archived_rows(archive, tmp_path, monkeypatch):
    monkeypatch.setattr(bulk, "BATCH_ROWS", 20)        # several batches: several row groups
    t0, truth = archive
    p = _plan(t0)
    for fmt in ("csv", "parquet"):
        with open(tmp_path / f"x.{fmt}", "wb") as out:
            rows, size = bulkfiles.write(p, fmt, out)
        assert rows == len(truth) and size == (tmp_path / f"x.{fmt}").stat().st_size
    df = bulk_check.assert_same(tmp_path / "x.csv", tmp_path / "x.parquet")
    facts = bulk_check.parquet_facts(tmp_path / "x.parquet")
    assert facts["types"]["time"] == "timestamp[us, tz=UTC]" and facts["types"]["counter"] == "uint64"
    assert facts["types"]["switch"] == "dictionary<values=string, indices=int32, ordered=0>"
    assert facts["types"]["delta"] == "int64" and facts["metadata"]["cellar.resolution"] == "raw"
    assert len(facts["row_groups"]) >= 3 and max(facts["row_groups"]) <= 20
    got = {(int(r.time.value // 1000), r.series_id): r for r in df.itertuples()}
    for t, sid, raw, delta, flags, interval in truth:
        r = got[(t, sid)]
        assert _none(r.counter) == raw and _none(r.delta) == delta
        assert _none(r.flags) == ("|".join(flag_names(flags)) or None)
        assert (None if _none(r.interval_s) is None else round(r.interval_s * 1000)) == interval
    assert {"WRAP", "REBOOT", "GAP", "MISSING", "OVER_CAPACITY", "FIRST"} <= {
        w for x in df["flags"].dropna() for w in x.split("|")}
    assert df.loc[df["flags"].fillna("").str.contains("OVER_CAPACITY"), "rate"].isna().all()
    assert list(df["switch"].astype(str).unique()) == ["files-a", "files-b"]


def _none(v):
    return None if bulk_check.missing(v) else v


def test_the_wide_csv_is_the_long_rates_pivoted(archive, tmp_path, monkeypatch):
    monkeypatch.setattr(bulk, "WIDE_CELLS", 12)
    t0, _ = archive
    p = _plan(t0)
    out = io.BytesIO()
    bulkfiles.write(p, "csv", out)
    long = pd.read_csv(io.BytesIO(out.getvalue()))
    wide_bytes = io.BytesIO()
    lines, _ = bulkfiles.write(p, "csv-wide", wide_bytes)
    wide = pd.read_csv(io.BytesIO(wide_bytes.getvalue()))
    assert list(wide.columns) == bulkfiles.wide_header(p) and wide.columns[1] == "files-a A1 Receive [cells/s]"
    assert lines == len(wide) == long["time"].nunique()
    assert pd.to_datetime(wide["time"], format="ISO8601").is_monotonic_increasing
    want = long.pivot(index="time", columns="series_id", values="rate")
    for j, s in enumerate(p.series):
        np.testing.assert_array_equal(wide[wide.columns[j + 1]].to_numpy(), want.loc[wide["time"], s.id].to_numpy())


ISO_TIMES = [  # (microseconds since the epoch, as the CSV writes it)
    (1_764_288_000_000_000, "2025-11-28T00:00:00Z"),        # a day bucket: not a bare date
    (1_764_291_600_000_000, "2025-11-28T01:00:00Z"),        # a whole hour, a whole minute: seconds kept
    (1_764_291_660_000_000, "2025-11-28T01:01:00Z"),
    (1_764_291_661_000_000, "2025-11-28T01:01:01Z"),
    (1_764_291_661_250_000, "2025-11-28T01:01:01.250Z"),
    (1_764_291_661_250_001, "2025-11-28T01:01:01.250001Z"),
]


@pytest.mark.parametrize("whole_only", [True, False])
def test_csv_times_always_carry_their_seconds(whole_only):
    cases = [c for c in ISO_TIMES if not whole_only or c[0] % 1_000_000 == 0]
    got = bulkfiles.iso_times(np.array([t for t, _ in cases], dtype=np.int64)).to_pylist()
    assert got == [text for _, text in cases]
    parsed = pd.to_datetime(pd.Series(got), format="ISO8601")
    assert [int(x.value // 1000) for x in parsed] == [t for t, _ in cases]


def test_a_streamed_export_is_the_written_file_byte_for_byte(archive):
    t0, _ = archive
    p = _plan(t0)
    for fmt in bulkfiles.FORMATS:
        out = io.BytesIO()
        bulkfiles.write(p, fmt, out)
        assert b"".join(bulkfiles.stream(p, fmt)) == out.getvalue(), fmt


@pytest.mark.django_db(transaction=True)
def test_tier_exports_have_the_tier_columns(archive, tmp_path):
    from collector.archive import rollup

    f.reset_rollups()
    rollup.run(budget_s=30, lag_s=0)
    t0, truth = archive
    p = _plan(t0, "1m", start=t0 - timedelta(minutes=1))
    for fmt in ("csv", "parquet"):
        with open(tmp_path / f"t.{fmt}", "wb") as out:
            bulkfiles.write(p, fmt, out)
    df = bulk_check.assert_same(tmp_path / "t.csv", tmp_path / "t.parquet")
    assert list(df.columns) == list(bulkfiles.LABEL_COLUMNS) + list(bulk.TIER_FIELDS)
    assert int(df["samples"].sum()) == len(truth)


def _export(*args, tmp_path=None):
    out = tmp_path / "cli.out"
    call_command("export", "--output", str(out), *args, stdout=io.StringIO())
    return out


# arguments -> words of the error
BAD = {
    "two scopes": (["--switch", "files-a", "--all"], "give one scope, not switches and all"),
    "no scope": ([], "say what to export"),
    "unknown switch": (["--switch", "nosuch"], "unknown switch 'nosuch'"),
    "unknown group": (["--group", "nosuch"], "no group 'nosuch'"),
    "bad series": (["--series", "1,x"], "--series='1,x': give series ids separated by commas"),
    "bad window": (["--all", "--start", "yesterday"], "start='yesterday' is not an ISO 8601 time"),
    "end before start": (["--all", "--start", "2026-01-02T00:00Z", "--end", "2026-01-01T00:00Z"], "is not before end"),
    "over the row limit": (["--all", "--start", "30d"], "a bulk export holds at most 1,000"),
    "parquet to stdout": (["--all", "--format", "parquet", "-o", ""], "Parquet is a file: give --output"),
}


@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_bad_input_is_a_clear_error_and_leaves_no_file(name, archive, tmp_path, settings):
    settings.CELLAR_BULK_EXPORT_MAX_ROWS = 1000
    args, words = BAD[name]
    with pytest.raises(CommandError) as caught:
        _export(*args, tmp_path=tmp_path)
    assert words in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_the_files_the_module_writes(archive, tmp_path):
    t0, truth = archive
    start, end = t0.strftime("%Y-%m-%dT%H:%M:%SZ"), (t0 + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for fmt in bulkfiles.FORMATS:
        got = _export("--all", "--start", start, "--end", end, "--format", fmt, tmp_path=tmp_path).read_bytes()
        want = io.BytesIO()
        bulkfiles.write(_plan(t0), fmt, want)
        assert got == want.getvalue(), fmt
    csv = _export("--switch", "files-b", "--start", start, "--end", end, tmp_path=tmp_path)
    assert len(pd.read_csv(csv)) == sum(1 for r in truth if r[1] in {
        s.id for s in bulkscope.series_of(Scope(switches=("files-b",)), t0, 10)})
