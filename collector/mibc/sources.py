"""MIB texts by the module they define: every text under mibs/ and the files given. Pure I/O.

A text is found by its module's name (`NAME DEFINITIONS ::= BEGIN`, the line pysmi's parser
starts from), whatever its file is called: pysmi asks for modules by name and gets these texts,
nothing else (no search path, no URL). A file given on the command line takes the place of the
text of mibs/ that defines the same module (an updated vendor file).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from collector.mibc import MibError, Problem

HEADER = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9-]*)\s+DEFINITIONS\s*::=\s*BEGIN\b", re.M)
# Directories of mibs/ that hold no MIB text.
NOT_TEXTS = {"compiled", "profiles"}
TEXT_SUFFIXES = {"", ".txt", ".mib", ".my", ".smi"}
# Modules that only define ASN.1 macros pysmi's parser knows (RFC-1212: the SMIv1 OBJECT-TYPE,
# RFC-1215: TRAP-TYPE) or whose symbols pysmi maps to SNMPv2-SMI/TC itself (RFC1158-MIB, MIB-II
# before RFC 1213: DisplayString): an empty module stands for each when no text of mibs/ has it.
STUBS = ("RFC-1212", "RFC-1215", "RFC1158-MIB")


@dataclass(frozen=True)
class Source:
    module: str
    path: Path
    text: str
    given: bool = False              # named on the command line (else found under mibs/)
    stub: bool = False

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def find_line(self, pattern: str) -> int:
        """The line of the first match of `pattern` (a regex) in the text, 0 when none."""
        m = re.search(pattern, self.text, re.M)
        return self.line_of(m.start()) if m else 0

    def definition_line(self, symbol: str) -> int:
        """The line where `symbol` is defined (NAME OBJECT-TYPE, NAME ::= ..., NAME MACRO ...)."""
        return (self.find_line(rf"^[ \t]*{re.escape(symbol)}\s+(?:[A-Z][A-Z-]+|OBJECT\s+IDENTIFIER)\b")
                or self.find_line(rf"^[ \t]*{re.escape(symbol)}\s*::=")
                or self.find_line(rf"\b{re.escape(symbol)}\b"))


def decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")         # vendor texts in 8-bit encodings: the SMI itself is ASCII


def modules_in(text: str) -> list[str]:
    return HEADER.findall(text)


def _texts_under(mibs_dir: Path) -> list[Path]:
    out = []
    for path in sorted(mibs_dir.rglob("*")):
        rel = path.relative_to(mibs_dir)
        if (path.is_file() and rel.parts[0] not in NOT_TEXTS and len(rel.parts) > 1
                and path.suffix.lower() in TEXT_SUFFIXES and not path.name.startswith(".")):
            out.append(path)
    return out


def scan(mibs_dir: Path, given: Iterable[Path] = ()) -> dict[str, Source]:
    """module -> its text, from every MIB text under `mibs_dir` (in its subdirectories: rfc/, cisco/,
    fore/ ...) and the `given` files (which win over mibs/). MibError: a given file defining no
    module, two texts defining one module."""
    problems: list[Problem] = []
    found: dict[str, Source] = {}

    def add(path: Path, is_given: bool) -> None:
        try:
            text = decode(path.read_bytes())
        except OSError as exc:
            problems.append(Problem(str(path), 0, "", f"cannot read: {exc.strerror or exc}"))
            return
        names = modules_in(text)
        if not names and is_given:
            problems.append(Problem(str(path), 1, "", "no MIB module in this file (no 'NAME DEFINITIONS ::= BEGIN')"))
        for name in names:
            old = found.get(name)
            if old is not None and old.given == is_given and old.path != path:
                problems.append(Problem(str(path), Source(name, path, text).find_line(
                    rf"^[ \t]*{re.escape(name)}\s+DEFINITIONS"), name, f"module {name} is also defined by {old.path}"))
                continue
            if old is None or is_given:
                found[name] = Source(name, path, text, given=is_given)

    for path in _texts_under(mibs_dir):
        add(path, False)
    for path in given:
        add(Path(path), True)
    for name in STUBS:
        if name not in found:
            found[name] = Source(name, Path(f"<{name}: macros known to pysmi>"), f"{name} DEFINITIONS ::= BEGIN\nEND\n",
                                 stub=True)
    if problems:
        raise MibError(problems)
    return found
