"""manage.py import_csv: the sentence on success, a CommandError (exit 1) with the reason on refusal,
standard input, --replace, and the audit trail naming the command line's actor."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collector.audit.models import AuditEvent
from collector.external.models import ExternalPoint, ExternalSeries

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
CSV = "time,value\n2026-11-20T00:15:00Z,900\n2026-11-20T00:30:00Z,\n2026-11-20T00:45:00Z,1800\n"
ARGS = ["--name", "sprint-cells", "--unit", "cells", "--interval", "900"]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("import_csv", *args, stdout=out)
    return out.getvalue()


def test_a_file_is_imported_and_the_sentence_printed(tmp_path):
    f = tmp_path / "sprint.csv"
    f.write_text(CSV)
    out = run(str(f), *ARGS, "--stamp", "end", "--source", "Sprint", "--description", "cell counts of the OC-3")
    assert out.startswith("2 points stored in new series sprint-cells (cells per 900 s), intervals starting "
                          "2026-11-20T00:00:00Z to 2026-11-20T00:30:00Z; 1 empty (missing) value not stored; "
                          "the file's times were interval ends")
    s = ExternalSeries.objects.get()
    assert (s.stamp, s.source, s.description, s.n_points, s.created_by) == ("end", "Sprint", "cell counts of the OC-3",
                                                                            2, None)
    event = AuditEvent.objects.get(object_type="external.externalseries", action="create")
    assert event.source == "cli" and event.actor_label.startswith("cli:")


def test_standard_input_and_replace(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CSV.encode())))
    run("-", *ARGS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CSV.replace("1800", "1700").encode())))
    with pytest.raises(CommandError, match="2 of the file's intervals are already stored"):
        run("-", *ARGS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CSV.replace("1800", "1700").encode())))
    assert "2 of them replaced points stored before" in run("-", *ARGS, "--replace")
    assert sorted(ExternalPoint.objects.values_list("value", flat=True)) == [900.0, 1700.0]


@pytest.mark.parametrize("text,message", [
    ("2026-11-20T00:15:00Z,-5\n", "nothing imported: line 1: a negative value"),
    ("", "the file has no data rows"),
])
def test_a_refused_file_is_a_command_error_and_stores_nothing(tmp_path, text, message):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(CommandError, match=message):
        run(str(f), *ARGS)
    assert not ExternalSeries.objects.exists()


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="No such file or directory"):
        run(str(tmp_path / "none.csv"), *ARGS)


def test_the_process_exits_non_zero_with_the_reason(tmp_path):
    # A refused file is refused before the database is written: the real command line, exit 1.
    f = tmp_path / "bad.csv"
    f.write_text("2026-11-20T00:15:00Z,abc\n")
    p = subprocess.run([sys.executable, "manage.py", "import_csv", str(f), *ARGS], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1
    assert "CommandError: nothing imported: line 1: a value that cannot be read" in p.stderr
    p = subprocess.run([sys.executable, "manage.py", "import_csv", str(f), "--name", "x", "--unit", "bytes",
                        "--interval", "900"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "invalid choice: 'bytes'" in p.stderr
