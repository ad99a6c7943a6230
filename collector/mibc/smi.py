"""pysmi over Cellar's MIB texts: module names in, pysmi's JSON documents out, or the problems.

pysmi (2.0, pinned) parses each text (its SMIv1/v2 grammar, the relaxed dialect vendors need),
follows the IMPORTS to the modules named, builds a symbol table over all of them and renders
each module as a JSON document (`JsonCodeGen`: every node's OID, syntax, index or augmented row).
Its reader is a callback that serves the texts `sources.scan` found, and only those: a module no
text defines is missing, never fetched. pysmi compiles all or nothing (one failure and it writes
no module); its failures become `Problem`s naming the module, the file and the line.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from collector.mibc import MibError, Problem
from collector.mibc.sources import Source

# pysmi maps what modules import from these itself (macros, SMI base types); what they export is
# not checked against their JSON.
BASE_MODULES = {"SNMPv2-SMI", "SNMPv2-TC", "SNMPv2-CONF", "SNMPv2-TM", "RFC1155-SMI", "RFC1065-SMI",
                "RFC-1212", "RFC-1215", "RFC1158-MIB", "RFC1213-MIB"}
# SMI and ASN.1 types a module may use without importing them.
BASE_TYPES = {"INTEGER", "OCTET", "OBJECT", "BITS", "Integer32", "Unsigned32", "Counter32", "Counter64", "Gauge32",
              "TimeTicks", "IpAddress", "Opaque", "Counter", "Gauge", "NetworkAddress", "SEQUENCE"}
MACRO = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z][A-Z0-9]+")


def _compiler(texts: Mapping[str, str], out: dict[str, dict]):
    from pysmi.codegen.jsondoc import JsonCodeGen
    from pysmi.compiler import MibCompiler
    from pysmi.parser.dialect import smi_v1_relaxed
    from pysmi.parser.smi import parserFactory
    from pysmi.reader.callback import CallbackReader
    from pysmi.writer.callback import CallbackWriter

    def read(name: str, _ctx: object) -> str | None:
        return texts.get(name)

    def write(name: str, data: str, _ctx: object) -> None:
        out[name] = json.loads(data)

    compiler = MibCompiler(parserFactory(**smi_v1_relaxed)(), JsonCodeGen(), CallbackWriter(write))
    compiler.add_sources(CallbackReader(read))
    return compiler


def _importers(missing: str, sources: Mapping[str, Source]) -> list[tuple[Source, int]]:
    """The texts that import from `missing`, with the line of that FROM."""
    out = []
    pattern = rf"\bFROM\s+{re.escape(missing)}\b"
    for src in sources.values():
        line = src.find_line(pattern)
        if line:
            out.append((src, line))
    return out


def _parser_problem(src: Source, exc: Exception) -> Problem:
    msg = str(getattr(exc, "msg", exc))
    line = int(getattr(exc, "lineno", 0) or 0)
    m = re.search(r"near offset (\d+)", msg)
    if m:
        offset = int(m.group(1))
        token = src.text[offset:offset + 40].split()
        near = f" near {token[0]!r}" if token else " at the end of the text"
        line = src.line_of(offset) if not line else line
        return Problem(str(src.path), line, src.module, f"syntax error{near} (pysmi: bad grammar)")
    msg = re.sub(r"\s+at MIB \S+$", "", msg)
    return Problem(str(src.path), line, src.module, f"syntax error: {msg}")


def _semantic_problems(src: Source, exc: Exception) -> list[Problem]:
    msg = re.sub(r"\s+at MIB \S+$", "", str(getattr(exc, "msg", exc)))
    m = re.match(r"Unknown parents? (?:for )?symbols?:\s*(.+)$", msg)
    if m:
        return [Problem(str(src.path), src.definition_line(sym.strip()), src.module, _unknown_parent(src, sym.strip()))
                for sym in m.group(1).split(",")]
    sym = re.search(r"symbol:?\s*(\S+)", msg)
    line = src.definition_line(sym.group(1)) if sym else 0
    return [Problem(str(src.path), line, src.module, msg)]


def _known(src: Source, name: str) -> bool:
    """Whether the text defines or imports `name` (a type or a node), as far as a search can tell."""
    defined = src.find_line(rf"^[ \t]*{re.escape(name)}\s*(?:::=|OBJECT|MODULE-IDENTITY|TEXTUAL-CONVENTION)")
    imports = re.search(r"\bIMPORTS\b(.*?);", src.text, re.S)
    return bool(defined) or bool(imports and re.search(rf"\b{re.escape(name)}\b", imports.group(1)))


def _unknown_parent(src: Source, sym: str) -> str:
    """Why pysmi could not place `sym`: the SYNTAX type or the parent node it names is unknown."""
    definition = rf"^[ \t]*{re.escape(sym)}\s+OBJECT-TYPE\s+SYNTAX\s+([A-Za-z][\w-]*)"
    m = re.search(definition + r"(.*?)::=\s*\{\s*([A-Za-z][\w-]*)", src.text, re.M | re.S)
    if m:
        type_name, parent = m.group(1), m.group(3)
        if type_name[0].isupper() and type_name not in BASE_TYPES and not _known(src, type_name):
            return f"{sym}: SYNTAX {type_name} is neither defined nor imported"
        if not _known(src, parent):
            return f"{sym}: its parent {parent} is neither defined nor imported"
    return f"{sym}: its parent node or its SYNTAX type is neither defined nor imported"


def run(names: Iterable[str], sources: Mapping[str, Source]) -> dict[str, dict]:
    """pysmi's JSON document of each module in `names` and of every module they import. MibError
    lists every module that failed (syntax, symbols, a module no text defines)."""
    from pysmi import error as smi_error

    texts = {name: src.text for name, src in sources.items()}
    out: dict[str, dict] = {}
    names = list(dict.fromkeys(names))
    unknown = [n for n in names if n not in sources]
    if unknown:
        raise MibError([Problem("mibs/", 0, n, "no text in mibs/ or the files given defines this module")
                        for n in unknown])
    status = _compiler(texts, out).compile(*names, rebuild=True, genTexts=False)
    problems: list[Problem] = []
    for module, st in status.items():
        if st == "missing":
            importers = _importers(module, {m: s for m, s in sources.items() if m in status})
            problems += [Problem(str(src.path), line, src.module,
                                 f"imports {module}, which no text in mibs/ or the files given defines")
                         for src, line in importers]
            if not importers:
                problems.append(Problem("mibs/", 0, module, "no text in mibs/ or the files given defines this module"))
        elif st == "failed":
            src = sources[module]
            exc = getattr(st, "error", None)
            if isinstance(exc, smi_error.PySmiParserError) or "grammar" in str(exc):
                problems.append(_parser_problem(src, exc))       # type: ignore[arg-type]
            elif exc is not None:
                problems.extend(_semantic_problems(src, exc))
            else:
                problems.append(Problem(str(src.path), 0, module, "pysmi could not compile it"))
    if problems:
        raise MibError(problems)
    problems += _check_imported_symbols(out, sources)
    if problems:
        raise MibError(problems)
    return out


def _check_imported_symbols(docs: Mapping[str, dict], sources: Mapping[str, Source]) -> list[Problem]:
    """pysmi accepts an import of a name the exporting module does not define: refuse it here."""
    problems = []
    for module, doc in docs.items():
        src = sources.get(module)
        if src is None or src.stub:
            continue
        for exporter, symbols in (doc.get("imports") or {}).items():
            if exporter == "class" or exporter in BASE_MODULES or exporter not in docs:
                continue
            for sym in symbols:
                if MACRO.fullmatch(sym) or sym in docs[exporter]:
                    continue
                line = src.find_line(rf"\b{re.escape(sym)}\b[^;]*?\bFROM\s+{re.escape(exporter)}\b") or \
                    src.find_line(rf"\b{re.escape(sym)}\b")
                problems.append(Problem(str(src.path), line, module,
                                        f"imports {sym} from {exporter}, which {exporter} does not define"))
    return problems
