"""Where a benchmark run writes its table: only a whole full-size run replaces docs/benchmarks.md."""
from __future__ import annotations

import pytest

from benchmarks import run


@pytest.mark.parametrize("argv, written", [
    ([], "docs/benchmarks.md"),
    (["--runs", "5"], "docs/benchmarks.md"),
    (["--only", "plot"], "state/bench/benchmarks-partial.md"),
    (["--only", "plot,csv", "--runs", "3"], "state/bench/benchmarks-partial.md"),
    (["--smoke"], "state/bench/benchmarks-smoke.md"),
    (["--smoke", "--only", "plot"], "state/bench/benchmarks-smoke.md"),
    (["--only", "plot", "--output", "/tmp/x.md"], "/tmp/x.md"),
])
def test_output_of_a_run(argv, written):
    args = run.parse(argv)
    assert args.output.endswith(written)
    if written.startswith("state/"):
        assert args.json.endswith(written.replace(".md", ".json"))


def test_unknown_figure_is_an_error_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        run.parse(["--only", "nosuch"])
    assert "known: poll" in capsys.readouterr().err
