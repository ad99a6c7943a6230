"""The Current figures table of docs/benchmarks.md, printed by `--markdown` from past runs' JSON."""
from __future__ import annotations

import json
from pathlib import Path

from benchmarks import core, run

ROOT = Path(__file__).resolve().parents[2]


def _run(date: str, figures: list[str], measures: list[core.Measure], load=("0.50 0.40 0.30", "1.50 1.00 0.80")):
    return {"smoke": False, "runs": 3, "figures": figures, "partial": figures != list(run.FIGURES), "date": date,
            "load_start": load[0], "load_end": load[1], "measures": [m.as_json() for m in measures]}


def _plot(key: str, ms: list[float], ratio: list[float]) -> core.Measure:
    return core.Measure(key, "Plot of one port", "ms", ms, [1.0, 1.1, 1.2], "bare SELECT", ratio,
                        "Cellar / bare select", "ratio ≤ 2", met=sorted(ratio)[1] <= 2, higher_is_better=False)


FULL = _run("2026-11-25 01:39 UTC", list(run.FIGURES), [
    _plot("3a", [3.0, 3.05, 3.8], [3.1, 3.2, 3.5]),
    core.Measure("13a", "dashboard", "ms", [250.0, 260.0, 270.0], goal="< 300 ms", met=True),
    core.Measure("2-1", "Ingest, one row per call", "rows/s", [1900.0, 1971.0, 2050.0]),
    core.Measure("1a-db", "PostgreSQL CPU of the polls", "DB CPU s / 10k samples", [0.004, 0.0044, 0.005]),
    _plot("3b", [19.7, 19.8, 21.0], [1.04, 1.05, 1.12]),
])
LATER = _run("2026-11-26 04:40 UTC", ["plot"], [_plot("3a", [2.5, 2.78, 3.6], [2.0, 1.9, 3.7])],
             load=("0.40 0.30 0.20", "0.70 0.50 0.40"))


def _rows(text: str) -> dict[str, str]:
    return {line.split("|")[1].strip(): line for line in text.splitlines()[2:]}


def test_a_later_run_replaces_the_figures_it_measured_and_says_which_run():
    rows = _rows(core.current_table([FULL, LATER]))
    assert list(rows) == ["1a-db", "2-1", "3a", "3b", "13a"]    # figure order, not the runs' order
    assert "| 2.78 |" in rows["3a"] and "2.00 (Cellar / bare select)" in rows["3a"]   # medians
    assert "| met |" in rows["3a"] and "2026-11-26 04:40 UTC, load 0.40 -> 0.70, 3 runs, --only plot" in rows["3a"]
    assert "| 19.8 |" in rows["3b"] and "2026-11-25 01:39 UTC, load 0.50 -> 1.50, 3 runs |" in rows["3b"]
    assert "| **not met** |" in core.current_table([LATER, FULL]).splitlines()[4]   # 3a of FULL, given last
    assert "| – | – | – | – |" in rows["2-1"]    # no reference, ratio, goal nor status


def test_every_row_has_the_header_s_columns():
    text = core.current_table([FULL, LATER])
    columns = text.splitlines()[0].count("|")
    assert all(line.count("|") == columns for line in text.splitlines())


def test_markdown_prints_the_table_and_measures_nothing(tmp_path, monkeypatch, capsys):
    def no_database(*_a, **_k):
        raise AssertionError("--markdown must not touch the benchmark database")

    monkeypatch.setattr(run.db, "recreate", no_database)
    files = []
    for name, doc in (("full", FULL), ("later", LATER)):
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(doc))
    assert run.main(["--markdown", *map(str, files)]) == 0
    assert capsys.readouterr().out.strip() == core.current_table([FULL, LATER])


def test_a_run_without_dates_or_loads_still_prints():
    old = {"runs": 3, "measures": FULL["measures"]}     # JSON written before runs recorded them
    assert "?, load ? -> ?, 3 runs" in core.current_table([old])


def test_the_document_s_current_table_is_in_the_printed_format():
    assert core.CURRENT_HEADER in (ROOT / "docs" / "benchmarks.md").read_text()
