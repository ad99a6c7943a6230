"""The MIB command (collector/mibc/cli.py; manage.py mib, python -m collector.mibc, make mib-add):
adding a vendor module writes its compiled form and keeps its text in mibs/<vendor>/, all or
nothing; a module that would leave a profile unloadable is refused before anything is written."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collector.core import profiles
from collector.mibc import cli

VENDOR = Path(__file__).resolve().parents[2] / "data" / "mibs"


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A copy of mibs/ that the command writes into."""
    mibs = tmp_path / "mibs"
    shutil.copytree(profiles.MIBS_DIR, mibs)
    monkeypatch.setattr(profiles, "MIBS_DIR", mibs)
    monkeypatch.setattr(profiles, "COMPILED_DIR", mibs / "compiled")
    monkeypatch.setattr(profiles, "PROFILES_DIR", mibs / "profiles")
    return mibs


def run(*argv: str, extra: tuple = ()) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(vars(cli.parser().parse_args(argv)), list(extra), out, err)
    return rc, out.getvalue(), err.getvalue()


def files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_mib_add_compiles_a_vendor_module_and_keeps_its_text(sandbox):
    rc, out, err = run("add", str(VENDOR / "CISCO-ATM-EXT-MIB.my"))
    assert rc == 0, err
    assert (sandbox / "cisco" / "CISCO-ATM-EXT-MIB.my").read_bytes() == (VENDOR / "CISCO-ATM-EXT-MIB.my").read_bytes()
    text = (sandbox / "compiled" / "CISCO-ATM-EXT-MIB.yaml").read_text()
    assert "source: cisco/CISCO-ATM-EXT-MIB.my" in text
    assert "catmxVclOamCellsDropped: {oid: 1.3.6.1.4.1.9.9.88.1.2.1.1.20, syntax: Counter32, " \
           "index: [ifIndex, atmVclVpi, atmVclVci]}" in text
    assert "CISCO-ATM-EXT-MIB: 28 objects" in out
    assert run("check") == (0, "mibs/compiled/: 9 modules, as their texts compile\n", "")
    registry = profiles.load(compiled_dir=sandbox / "compiled", profiles_dir=sandbox / "profiles")
    assert registry.objects["catmxVclOamCellsDropped"].module == "CISCO-ATM-EXT-MIB"
    # Named by module, from mibs/: compiled again to the same text.
    before = files(sandbox)
    assert run("add", "CISCO-ATM-EXT-MIB")[0] == 0
    assert files(sandbox) == before


def test_a_refused_module_writes_nothing(sandbox, tmp_path):
    bad = tmp_path / "BAD-MIB.txt"
    bad.write_text((VENDOR / "CISCO-ATM-EXT-MIB.my").read_text().replace("FROM ATM-MIB;", "FROM NOBODY-MIB;"))
    before = files(sandbox)
    rc, out, err = run("add", str(bad))
    assert rc == 1 and out == ""
    assert err.splitlines() == [f"{bad}:25: CISCO-ATM-EXT-MIB: imports NOBODY-MIB, which no text in mibs/ or the "
                                f"files given defines", "1 problem; nothing written"]
    assert files(sandbox) == before


def test_a_module_that_would_break_a_profile_is_refused(sandbox, tmp_path):
    """A newer IF-MIB text without ifHCInOctets: every profile that polls it would not load."""
    text = (sandbox / "ietf" / "IF-MIB.txt").read_text()
    start = text.index("ifHCInOctets OBJECT-TYPE")
    end = text.index("ifHCInUcastPkts OBJECT-TYPE")
    cut = tmp_path / "IF-MIB.txt"
    cut.write_text(text[:start] + text[end:])
    before = files(sandbox)
    rc, out, err = run("add", str(cut))
    assert rc == 1
    assert "with these modules a profile would not load" in err and "IF-MIB::ifHCInOctets" in err
    assert files(sandbox) == before


def test_into_writes_a_profile_directory_and_leaves_mibs_alone(sandbox, tmp_path):
    into = tmp_path / "site-profiles"
    before = files(sandbox)
    rc, out, err = run("add", str(VENDOR / "CISCO-ATM-EXT-MIB.my"), "--into", str(into), extra=(into,))
    assert rc == 0, err
    assert files(sandbox) == before
    assert (into / "CISCO-ATM-EXT-MIB.yaml").exists()
    registry = profiles.load([into], compiled_dir=sandbox / "compiled", profiles_dir=sandbox / "profiles")
    assert "catmxVclOamCellsReceived" in registry.modules["CISCO-ATM-EXT-MIB"]


def test_the_management_command_checks_and_refuses_like_the_cli(sandbox):
    out = io.StringIO()
    call_command("mib", "check", stdout=out)
    assert "8 modules, as their texts compile" in out.getvalue()
    (sandbox / "compiled" / "IF-MIB.yaml").write_text((sandbox / "compiled" / "IF-MIB.yaml").read_text() + "\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="mib check: refused"):
        call_command("mib", "check", stdout=io.StringIO(), stderr=err)
    assert "IF-MIB.yaml: differs from what ietf/IF-MIB.txt compiles to" in err.getvalue()
