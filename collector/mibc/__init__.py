"""The MIB compiler: MIB module texts (SMIv1, SMIv2) -> the compact definitions collector/core loads.

No Django, no network. pysmi (the pinned parser and its JSON code generator) reads the texts, never
a hand parser; every import is resolved from the texts of mibs/ and the files named, never fetched.

    sources.scan()     the MIB texts of mibs/ and the files given, by the module each defines
    smi.run()          pysmi over those texts; its failures as problems with module, file, line
    compact.module()   a module's objects (OID, syntax, index) and notifications, in Cellar's form
    build.compile_modules() / build.write()   all of the above, checked; written all or nothing

`manage.py mib add|rebuild|check|list` (collector/inventory/management/commands/mib.py) is the
command; mibs/README.md the manual.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one module: printed as one line, `path:line: MODULE: reason`."""
    path: str
    line: int
    module: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.module}: {self.reason}" if self.module else f"{where}: {self.reason}"


class MibError(Exception):
    """The modules cannot be compiled; nothing was written. One problem per line."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems))
        super().__init__("\n".join(map(str, self.problems)))
