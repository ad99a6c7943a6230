"""Compile modules, check them against what is compiled already, write them all or nothing.

    compiled = compile_modules(["CISCO-ATM-EXT-MIB"], mibs_dir, given=[Path("x/CISCO-ATM-EXT-MIB.my")])
    write(compiled, mibs_dir / "compiled")

A module's compact form (compact.render) is a pure function of its text and of the texts it
imports, so `rebuild` writes every compiled module again and `drift` says which differ: the
shipped mibs/compiled/*.yaml are tested to be exactly what their texts compile to.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from collector.mibc import MibError, Problem, compact, smi, sources
from collector.mibc.sources import Source

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Compiled:
    module: str
    source: Source
    form: compact.Compact
    text: str                        # the YAML to write

    @property
    def filename(self) -> str:
        return f"{self.module}.yaml"


def source_name(src: Source, mibs_dir: Path) -> str:
    """The text's path as the compiled file records it: relative to mibs/ when inside."""
    try:
        return src.path.resolve().relative_to(mibs_dir.resolve()).as_posix()
    except ValueError:
        return str(src.path.resolve())


def compile_modules(modules: Iterable[str], mibs_dir: Path, given: Iterable[Path] = (),
                    found: Mapping[str, Source] | None = None) -> list[Compiled]:
    """Compile `modules` (names) from the texts of `mibs_dir` and `given`; MibError lists every
    problem (syntax, imports, symbols, syntaxes the core cannot read, names two modules define)."""
    texts = dict(found) if found is not None else sources.scan(mibs_dir, given)
    names = list(dict.fromkeys(modules))
    docs = smi.run(names, texts)
    problems: list[Problem] = []
    out = []
    for name in names:
        src = texts[name]
        form = compact.module(name, docs, src)
        sha = hashlib.sha256(src.text.encode("utf-8")).hexdigest()
        out.append(Compiled(name, src, form, compact.render(form, source_name(src, mibs_dir), sha)))
    problems += clashes(out, {})
    if problems:
        raise MibError(problems)
    return out


def load_compiled(directory: Path) -> dict[str, dict]:
    """module -> its compiled YAML document, for every file of `directory`."""
    out = {}
    if directory.is_dir():
        for path in sorted(directory.glob("*.yaml")):
            doc = yaml.safe_load(path.read_text()) or {}
            out[str(doc.get("module", path.stem))] = doc
    return out


def same_object(a: Mapping, b: Mapping) -> bool:
    """Two definitions of one name are one object when they name the same OID the same way (a
    scalar, or a column with as many index components) and a counter keeps its width: SMIv1 and
    SMIv2 texts of one MIB (RFC1271-MIB and RMON-MIB) differ only in their textual conventions."""
    def width(syntax: object) -> object:
        return syntax if syntax in ("Counter32", "Counter64") else "other"
    return (str(a.get("oid")) == str(b.get("oid")) and bool(a.get("scalar")) == bool(b.get("scalar"))
            and len(a.get("index") or ()) == len(b.get("index") or ())
            and width(a.get("syntax")) == width(b.get("syntax")))


def clashes(new: list[Compiled], existing: Mapping[str, dict]) -> list[Problem]:
    """An object name two modules define as different objects (the new ones, or a new one and one
    compiled already that the new set does not replace): the archive names series by object."""
    owners: dict[str, tuple[str, dict]] = {}
    replaced = {c.module for c in new}
    for module, doc in existing.items():
        if module in replaced:
            continue
        for sym, spec in (doc.get("objects") or {}).items():
            owners.setdefault(sym, (module, spec))
    problems = []
    for c in new:
        for sym, spec in c.form.objects.items():
            old = owners.get(sym)
            if old is None:
                owners[sym] = (c.module, spec)
                continue
            module, other = old
            if not same_object(other, spec):
                problems.append(Problem(
                    str(c.source.path), c.source.definition_line(sym), c.module,
                    f"{sym} is already defined by {module} as {other.get('oid')} ({other.get('syntax')}); "
                    f"here as {spec['oid']} ({spec['syntax']}): one name, one object"))
    return problems


def write(compiled: list[Compiled], out_dir: Path) -> list[Path]:
    """Write every module's YAML into `out_dir`, all or nothing: each file is written beside its
    place and renamed over it only when all are written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    staged: list[tuple[Path, Path]] = []
    try:
        for c in compiled:
            fd, name = tempfile.mkstemp(prefix=f".{c.module}.", suffix=".tmp", dir=out_dir)
            with os.fdopen(fd, "w") as fh:
                fh.write(c.text)
            os.chmod(name, 0o644)
            staged.append((Path(name), out_dir / c.filename))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, final in staged:
        os.replace(tmp, final)
    return [final for _, final in staged]


def compiled_modules(compiled_dir: Path) -> list[str]:
    return sorted(load_compiled(compiled_dir))


def rebuild(mibs_dir: Path, compiled_dir: Path | None = None) -> list[Compiled]:
    """Every module of the compiled directory, compiled again from its text (not written)."""
    compiled_dir = compiled_dir or mibs_dir / "compiled"
    return compile_modules(compiled_modules(compiled_dir), mibs_dir)


def drift(mibs_dir: Path, compiled_dir: Path | None = None) -> list[str]:
    """The compiled files that are not what their texts compile to (one line each), [] when all agree."""
    compiled_dir = compiled_dir or mibs_dir / "compiled"
    out = []
    for c in rebuild(mibs_dir, compiled_dir):
        path = compiled_dir / c.filename
        if not path.exists():
            out.append(f"{path}: missing (module {c.module})")
        elif path.read_text() != c.text:
            out.append(f"{path}: differs from what {source_name(c.source, mibs_dir)} compiles to")
    return out


def place_texts(compiled: list[Compiled], mibs_dir: Path, vendor: str | None
                ) -> tuple[list[Compiled], list[tuple[Path, Path]]]:
    """Where the given texts that live outside mibs/ go: mibs/<vendor>/ (vendor: the module name's
    first word, lower case: CISCO-ATM-EXT-MIB -> cisco), so `rebuild` finds them again. Returns the
    modules with their compiled text naming that place, and the (from, to) copies to make."""
    out, copies = [], []
    for c in compiled:
        src = c.source
        if not src.given or source_name(src, mibs_dir) != str(src.path.resolve()):
            out.append(c)
            continue
        folder = vendor or re.split(r"[-_]", c.module)[0].lower()
        if not SAFE_NAME.fullmatch(folder) or folder in sources.NOT_TEXTS:
            raise MibError([Problem(str(src.path), 0, c.module, f"cannot copy the text into mibs/{folder}/")])
        target = mibs_dir / folder / src.path.name
        if target.exists() and target.read_bytes() != src.path.read_bytes() and \
                c.module not in sources.modules_in(sources.decode(target.read_bytes())):
            raise MibError([Problem(str(src.path), 0, c.module,
                                    f"mibs/{folder}/{src.path.name} exists and holds another module")])
        sha = hashlib.sha256(src.text.encode("utf-8")).hexdigest()
        out.append(Compiled(c.module, src, c.form, compact.render(c.form, f"{folder}/{src.path.name}", sha)))
        copies.append((src.path, target))
    return out, copies


def copy_texts(copies: list[tuple[Path, Path]]) -> None:
    for frm, to in copies:
        to.parent.mkdir(parents=True, exist_ok=True)
        if frm.resolve() != to.resolve():
            shutil.copyfile(frm, to)
