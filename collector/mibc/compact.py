"""pysmi's JSON document of a module -> Cellar's compact definitions of it. Pure.

What the core needs of an object: its OID, the syntax its values come in (the textual
convention resolved to the SMI type underneath; DisplayString and TimeStamp are kept, the core
reads them as such), and, for a column, the names of the objects that index its row (an
AUGMENTS row has the index of the row it augments, in whichever module). Scalars are marked
`scalar: true`. Notifications keep their OID; what Cellar does with one is mibs/notifications.yaml.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from collector.mibc.sources import Source

# SMI types (SMIv2, SMIv1 and ASN.1 names as pysmi writes them) -> the core's syntax names
# (collector/core/profiles.py SYNTAXES). Unsigned32 is Gauge32 on the wire (same tag).
BASE_TYPES = {
    "Integer32": "Integer32", "INTEGER": "Integer32", "Integer": "Integer32",
    "Unsigned32": "Gauge32", "Gauge32": "Gauge32", "Gauge": "Gauge32",
    "Counter32": "Counter32", "Counter": "Counter32", "Counter64": "Counter64",
    "TimeTicks": "TimeTicks", "IpAddress": "IpAddress", "NetworkAddress": "IpAddress",
    "OCTET STRING": "OctetString", "OctetString": "OctetString", "Bits": "OctetString", "BITS": "OctetString",
    "Opaque": "OctetString", "OBJECT IDENTIFIER": "ObjectIdentifier", "ObjectIdentifier": "ObjectIdentifier",
    "NsapAddress": "OctetString", "UInteger32": "Gauge32",
}
# Textual conventions the core reads as themselves (SnmpAdminString is text too: UTF-8).
KEPT = {"DisplayString": "DisplayString", "SnmpAdminString": "DisplayString", "TimeStamp": "TimeStamp"}


@dataclass
class Compact:
    module: str
    objects: dict[str, dict] = field(default_factory=dict)          # name -> {oid, syntax, index | scalar}
    notifications: dict[str, dict] = field(default_factory=dict)    # name -> {oid}
    imports: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)               # objects the core could not read, and why


def oid_key(oid: str) -> tuple[int, ...]:
    return tuple(int(x) for x in oid.split("."))


class _Resolver:
    def __init__(self, docs: Mapping[str, dict]):
        self.docs = docs
        self.rows = {node["oid"]: (module, node) for module, doc in docs.items() for node in doc.values()
                     if isinstance(node, dict) and node.get("nodetype") == "row"}

    def exporter(self, module: str, symbol: str) -> str | None:
        """The module whose definition of `symbol` `module` uses (its own, else the one it imports it from)."""
        doc = self.docs.get(module) or {}
        if symbol in doc and isinstance(doc[symbol], dict) and doc[symbol].get("class") != "imports":
            return module
        for exporter, symbols in (doc.get("imports") or {}).items():
            if exporter != "class" and symbol in symbols:
                return exporter
        return None

    def syntax(self, module: str, type_name: str, depth: int = 0) -> str | None:
        if type_name in KEPT:
            return KEPT[type_name]
        if type_name in BASE_TYPES:
            return BASE_TYPES[type_name]
        where = self.exporter(module, type_name)
        if where is None or depth > 10:
            return None
        node = self.docs[where].get(type_name)
        inner = (node or {}).get("type") if isinstance(node, dict) else None
        if isinstance(inner, dict) and inner.get("type"):
            return self.syntax(where, inner["type"], depth + 1)
        return None

    def index(self, row_module: str, row: dict, depth: int = 0) -> list[str] | None:
        if row.get("indices"):
            return [i["object"] for i in row["indices"]]
        aug = row.get("augmention")
        if aug and depth < 5:
            target_module = self.exporter(row_module, aug["object"]) or aug.get("module") or row_module
            target = (self.docs.get(target_module) or {}).get(aug["object"])
            if isinstance(target, dict):
                return self.index(target_module, target, depth + 1)
        return None


def module(name: str, docs: Mapping[str, dict], src: Source) -> Compact:
    """The compact form of module `name` (every OBJECT-TYPE column and scalar, every notification).
    An object the core could not read (a SYNTAX that resolves to no SMI type, a column whose row has
    no INDEX) is left out of it and said in `left_out`, not refused: the rest of a vendor's module
    stays usable, and a profile naming that object is refused at start with its name."""
    resolver = _Resolver(docs)
    doc = docs[name]
    out = Compact(name, imports=sorted(m for m in (doc.get("imports") or {}) if m != "class"))
    for sym, node in doc.items():
        if not isinstance(node, dict):
            continue
        if node.get("class") == "notificationtype" and node.get("oid"):
            out.notifications[sym] = {"oid": node["oid"]}
            continue
        if node.get("class") != "objecttype" or node.get("nodetype") not in ("column", "scalar"):
            continue
        type_name = (node.get("syntax") or {}).get("type", "")
        syntax = resolver.syntax(name, type_name)
        if syntax is None:
            out.left_out.append(f"{sym} (line {src.definition_line(sym)}: SYNTAX {type_name} resolves to no SMI type)")
            continue
        spec: dict = {"oid": node["oid"], "syntax": syntax}
        if node["nodetype"] == "scalar":
            spec["scalar"] = True
        else:
            row_oid = node["oid"].rsplit(".", 1)[0]
            row_module, row = resolver.rows.get(row_oid, (name, None))
            index = resolver.index(row_module, row) if row is not None else None
            if not index:
                out.left_out.append(f"{sym} (line {src.definition_line(sym)}: its row {row_oid} has no INDEX)")
                continue
            spec["index"] = index
        out.objects[sym] = spec
    out.objects = dict(sorted(out.objects.items(), key=lambda kv: (oid_key(kv[1]["oid"]), kv[0])))
    out.notifications = dict(sorted(out.notifications.items(), key=lambda kv: (oid_key(kv[1]["oid"]), kv[0])))
    return out


def render(c: Compact, source: str, sha256: str) -> str:
    """The compact YAML of a module, byte for byte the same from the same text (no dates)."""
    lines = [
        f"# {c.module}: compiled by `manage.py mib add` (collector/mibc, pysmi) from mibs/{source}.",
        "# Generated: do not edit; change the text and run `make mibs` (tests/collector/mibc checks they agree).",
        f"module: {c.module}",
        f"source: {source}",
        f"sha256: {sha256}",
        f"imports: [{', '.join(c.imports)}]",
        "objects:" if c.objects else "objects: {}",
    ]
    for sym, spec in c.objects.items():
        parts = [f"oid: {spec['oid']}", f"syntax: {spec['syntax']}"]
        parts.append("scalar: true" if spec.get("scalar") else f"index: [{', '.join(spec['index'])}]")
        lines.append(f"  {sym}: {{{', '.join(parts)}}}")
    if c.notifications:
        lines.append("notifications:")
        for sym, spec in c.notifications.items():
            lines.append(f"  {sym}: {{oid: {spec['oid']}}}")
    return "\n".join(lines) + "\n"
