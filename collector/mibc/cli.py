"""The MIB command, Django-free: `manage.py mib ...` and `python -m collector.mibc ...` (make mibs).

    mib add FILE|MODULE ...  [--vendor NAME] [--into DIR] [--dry-run]
    mib rebuild              every module of mibs/compiled/, again from its text
    mib check                exit 1 when mibs/compiled/ is not what the texts compile to
    mib list                 the compiled modules: objects, notifications, text

`add` compiles the modules the FILEs define (or the MODULEs named, whose texts are in mibs/) with
pysmi, resolving every import from the texts of mibs/ and the FILEs given (never the network);
checks that no object name is defined differently by two modules and that every profile still
loads with them; only then copies the FILEs that live outside mibs/ into mibs/<vendor>/ and writes
mibs/compiled/<MODULE>.yaml (or DIR/<MODULE>.yaml with --into, a directory named by
CELLAR_PROFILE_DIRS). Any problem: one line each (file:line: MODULE: reason) on stderr, nothing
written, exit status 1. Processes that poll read the compiled modules at start: restart them.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from collector.core import profiles
from collector.mibc import MibError, Problem, build, sources


def parser(prog: str = "mib") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Compile MIB modules (pysmi) into mibs/compiled/.")
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", help="compile MIB texts (files, or modules named) and what they import")
    add.add_argument("items", nargs="+", metavar="FILE|MODULE")
    add.add_argument("--vendor", help="mibs/ subdirectory for texts given from elsewhere "
                                      "(default: the module name's first word, lower case)")
    add.add_argument("--into", type=Path, help="write the compiled modules here (a CELLAR_PROFILE_DIRS "
                                               "directory) instead of mibs/compiled/; texts are not copied")
    add.add_argument("--dry-run", action="store_true", help="compile and check; write nothing")
    sub.add_parser("rebuild", help="compile every module of mibs/compiled/ again from its text")
    sub.add_parser("check", help="fail when mibs/compiled/ is not what the texts compile to")
    sub.add_parser("list", help="the compiled modules")


def run(options: dict, extra_dirs: Sequence[str | Path], out: TextIO, err: TextIO) -> int:
    """Carry out one parsed command; 0 when done, 1 when refused (the reasons on `err`)."""
    try:
        return ACTIONS[options["action"]](options, [Path(d) for d in extra_dirs], out, err)
    except MibError as exc:
        for problem in exc.problems:
            err.write(f"{problem}\n")
        n = len(exc.problems)
        err.write(f"{n} problem{'s' if n != 1 else ''}; nothing written\n")
        return 1


def _add(options: dict, extra_dirs: list[Path], out: TextIO, err: TextIO) -> int:
    mibs_dir = profiles.MIBS_DIR
    files = [Path(i) for i in options["items"] if Path(i).is_file()]
    names = [i for i in options["items"] if not Path(i).is_file()]
    found = sources.scan(mibs_dir, files)
    modules = [m for f in files for m in _modules_of(f, found)] + names
    compiled = build.compile_modules(modules, mibs_dir, found=found)
    into: Path | None = options.get("into")
    out_dir = into or profiles.COMPILED_DIR
    existing = build.load_compiled(profiles.COMPILED_DIR)
    if into:
        existing.update(build.load_compiled(into))
    problems = build.clashes(compiled, existing)
    if problems:
        raise MibError(problems)
    copies: list[tuple[Path, Path]] = []
    if not into:
        compiled, copies = build.place_texts(compiled, mibs_dir, options.get("vendor"))
    _profiles_still_load(compiled, out_dir, extra_dirs)
    for c in compiled:
        out.write(f"{c.module}: {len(c.form.objects)} objects, {len(c.form.notifications)} notifications "
                  f"from {c.source.path}\n")
        for what in c.form.left_out:
            out.write(f"{c.module}: left out {what}\n")
    if options.get("dry_run"):
        out.write("dry run: nothing written\n")
        return 0
    build.copy_texts(copies)
    for frm, to in copies:
        out.write(f"copied {frm} -> {to}\n")
    for path in build.write(compiled, out_dir):
        out.write(f"wrote {path}\n")
    out.write("restart the processes that poll (make stop; make run) to load them\n")
    return 0


def _rebuild(options: dict, extra_dirs: list[Path], out: TextIO, err: TextIO) -> int:
    compiled = build.rebuild(profiles.MIBS_DIR, profiles.COMPILED_DIR)
    _profiles_still_load(compiled, profiles.COMPILED_DIR, extra_dirs)
    for path in build.write(compiled, profiles.COMPILED_DIR):
        out.write(f"wrote {path}\n")
    return 0


def _check(options: dict, extra_dirs: list[Path], out: TextIO, err: TextIO) -> int:
    differ = build.drift(profiles.MIBS_DIR, profiles.COMPILED_DIR)
    for line in differ:
        err.write(f"{line}\n")
    if differ:
        err.write("mibs/compiled/ is not what the MIB texts compile to: run `make mibs`\n")
        return 1
    out.write(f"mibs/compiled/: {len(build.compiled_modules(profiles.COMPILED_DIR))} modules, as their texts "
              f"compile\n")
    return 0


def _list(options: dict, extra_dirs: list[Path], out: TextIO, err: TextIO) -> int:
    for module, doc in build.load_compiled(profiles.COMPILED_DIR).items():
        out.write(f"{module}: {len(doc.get('objects') or {})} objects, {len(doc.get('notifications') or {})} "
                  f"notifications, from mibs/{doc.get('source')}\n")
    return 0


ACTIONS = {"add": _add, "rebuild": _rebuild, "check": _check, "list": _list}


def _modules_of(path: Path, found: dict[str, sources.Source]) -> list[str]:
    resolved = path.resolve()
    return [m for m, src in found.items() if src.given and src.path.resolve() == resolved]


def _profiles_still_load(compiled: list[build.Compiled], out_dir: Path, extra_dirs: list[Path]) -> None:
    """The profiles (built-in and CELLAR_PROFILE_DIRS) load with the new modules in place of the old
    ones: a module that would leave a profile naming an object no module defines, or a name two
    modules define differently, is refused now, not at the next start."""
    with tempfile.TemporaryDirectory(prefix="cellar-mibs-") as tmp:
        tmp_dir = Path(tmp)
        compiled_dir = tmp_dir / "compiled"
        shutil.copytree(profiles.COMPILED_DIR, compiled_dir)
        extra = list(extra_dirs)
        if out_dir.resolve() != profiles.COMPILED_DIR.resolve():
            staged = tmp_dir / "into"
            if out_dir.is_dir():
                shutil.copytree(out_dir, staged)
            else:
                staged.mkdir()
            extra = [d for d in extra if d.resolve() != out_dir.resolve()] + [staged]
            build.write(compiled, staged)
        else:
            build.write(compiled, compiled_dir)
        try:
            profiles.load(extra, compiled_dir=compiled_dir, profiles_dir=profiles.PROFILES_DIR)
        except profiles.ProfileError as exc:
            raise MibError([Problem("mibs/profiles/", 0, "", f"with these modules a profile would not load: "
                                                             f"{exc}")]) from None


def main(argv: Sequence[str] | None = None) -> int:
    options = vars(parser("python -m collector.mibc").parse_args(argv))
    extra = [d for d in os.environ.get("CELLAR_PROFILE_DIRS", "").split(",") if d.strip()]
    return run(options, extra, sys.stdout, sys.stderr)
