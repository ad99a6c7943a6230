"""`make bench-smoke` in the test suite: the benchmark harness runs every figure at a tiny size.

It runs `python -m benchmarks.run --smoke` (as the Makefile's bench-smoke target does) in a
subprocess with a database name of its own, and checks that every figure was produced with
min/median/max over at least 3 runs and that the markdown table is well formed. There is no
timing assertion: the figures of a smoke run measure nothing (they are too small), and a loaded
CI machine must not fail the suite; `make bench` is the measurement.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXPECTED = ("1a", "1a-db", "1b", "1b-db", "2", "2-1", "3a", "3b", "3c", "3d", "4a", "4b", "5", "6a", "6b", "6c", "6d",
            "7a", "7b", "7c", "15a", "15b", "16a", "16c", "18a", "18b", "18e", "19", "20a", "20b")

pytestmark = [pytest.mark.netns, pytest.mark.timeout(560)]


def test_bench_smoke_produces_every_figure_and_a_well_formed_table(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("the benchmarks build network namespaces: run `make test` as root")
    out = tmp_path / "bench.md"
    env = {**os.environ, "CELLAR_BENCH_DB": f"cellar_bench_smoke_{os.getpid()}", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.run([sys.executable, "-m", "benchmarks.run", "--smoke", "--output", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=520)
    assert proc.returncode == 0, f"harness failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"

    doc = json.loads(out.with_suffix(".json").read_text())
    assert doc["smoke"] is True and not doc["failures"]
    measures = {m["key"]: m for m in doc["measures"]}
    missing = [k for k in EXPECTED if k not in measures]
    assert not missing, f"figures not produced: {missing}"
    for key in EXPECTED:
        m = measures[key]
        assert len(m["cellar"]) >= 3, (key, m["cellar"])
        assert all(isinstance(v, (int, float)) and v == v for v in m["cellar"]), (key, m["cellar"])
        if m["reference"]:
            assert len(m["reference"]) == len(m["ratio"]) == len(m["cellar"]), key
            assert all(v > 0 for v in m["reference"]), (key, m["reference"])
        assert m["met"] in (True, False, None)
    for key in ("1a", "1b", "2", "3a", "3b", "4a", "4b", "5", "6d"):
        assert measures[key]["goal"] and measures[key]["met"] is not None, key
    # storage options (one run each) come after figure 5
    assert any(k.startswith("5-") for k in measures)
    # bytes per sample beside Prometheus: one measurement of each pipeline's settled storage
    assert measures["16b"]["cellar"][0] > 0 and measures["16b"]["reference"][0] > 0

    text = out.read_text()
    begin = text.index("<!-- BEGIN GENERATED")
    end = text.index("<!-- END GENERATED -->")
    generated = text[begin:end]
    for word in ("Machine:", "cores", "RAM", "kernel", "PostgreSQL", "TimescaleDB", "Python", "SMOKE"):
        assert word in generated, word
    header = next(line for line in generated.splitlines() if line.startswith("| # |"))
    columns = header.count("|")
    rows = [line for line in generated.splitlines() if line.startswith("| ") and not line.startswith("| # |")]
    assert len(rows) == len(doc["measures"])
    for line in rows:
        assert line.count("|") == columns, line
    for key in EXPECTED:
        assert any(line.startswith(f"| {key} |") for line in rows), key
    # hand-written notes below the table survive a regeneration
    out.write_text(text + "\nhand-written line\n")
    from benchmarks.run import write_doc

    write_doc(out, "<!-- BEGIN GENERATED x -->\nnew\n<!-- END GENERATED -->")
    assert "hand-written line" in out.read_text()
