"""collector/mibc: MIB texts compiled by pysmi into the compact modules the core loads.

The shipped mibs/compiled/*.yaml are exactly what their texts compile to (the drift test); the
objects Cellar polls have the OIDs the texts give; bad input (syntax, a module nobody has, an
import its module does not define, a SYNTAX nobody defines, an object another module defines
differently) is one line each with file, line, module and reason; imports come from mibs/ and the
files given, never from the network.
"""
from __future__ import annotations

import re
import socket
import textwrap
from pathlib import Path

import pytest

from collector.core import profiles
from collector.mibc import MibError, build, sources

MIBS = profiles.MIBS_DIR
VENDOR = Path(__file__).resolve().parents[2] / "data" / "mibs"


def test_the_shipped_compiled_modules_are_what_their_texts_compile_to():
    assert build.drift(MIBS) == []
    compiled = build.load_compiled(profiles.COMPILED_DIR)
    assert set(compiled) == {"SNMPv2-MIB", "IF-MIB", "ATM-MIB", "ATM2-MIB", "LLDP-MIB", "BRIDGE-MIB",
                             "CISCO-AAL5-MIB", "Fore-Switch-MIB"}
    for module, doc in compiled.items():
        assert (MIBS / doc["source"]).is_file(), module       # every compiled module names its text


def test_every_text_of_mibs_compiles_with_the_others():
    """The texts shipped for imports too (vendor modules import ENTITY-MIB, CISCO-TC ...): all of them
    compile together, and no name means two objects."""
    found = sources.scan(MIBS)
    modules = [m for m, src in found.items() if not src.stub]
    assert {"ENTITY-MIB", "IP-MIB", "Q-BRIDGE-MIB", "CISCO-TC", "RMON2-MIB"} <= set(modules)
    assert len(build.compile_modules(modules, MIBS, found=found)) == len(modules)


def test_every_object_the_shipped_profiles_name_is_compiled_from_a_text():
    reg = profiles.registry()
    for p in reg.profiles.values():
        names = [p.probe, *p.uptime, *p.discovery_columns, *p.discovery_facts,
                 *[n for c in p.counters for n in (c.object, c.fallback) if n]]
        for name in names:
            assert reg.objects[name].module in reg.modules, (p.name, name)


# The OIDs of the loss and health counters, read off the module texts (ATM-MIB RFC 2515, ATM2-MIB
# RFC 3606, IF-MIB RFC 2863): the compiled form must give the same.
TEXT_OIDS = {
    "aal5VccCrcErrors": "1.3.6.1.2.1.37.1.12.1.3", "aal5VccSarTimeOuts": "1.3.6.1.2.1.37.1.12.1.4",
    "aal5VccOverSizedSDUs": "1.3.6.1.2.1.37.1.12.1.5", "atmInterfaceOCDEvents": "1.3.6.1.2.1.37.1.4.1.1",
    "atmVclStatClp0CellIns": "1.3.6.1.2.1.37.1.14.1.11.1.2", "atmVclStatClp0Discards": "1.3.6.1.2.1.37.1.14.1.11.1.4",
    "atmVclStatClp0CellOuts": "1.3.6.1.2.1.37.1.14.1.11.1.6", "atmVclStatClp0Tagged": "1.3.6.1.2.1.37.1.14.1.11.1.7",
    "atmVplStatClp0CellIns": "1.3.6.1.2.1.37.1.14.1.9.1.2", "atmVplStatClp0Tagged": "1.3.6.1.2.1.37.1.14.1.9.1.7",
    "ifInUnknownProtos": "1.3.6.1.2.1.2.2.1.15", "ifInErrors": "1.3.6.1.2.1.2.2.1.14",
    # The hand transcription had these at .8/.9/.10 (the VC cross-connect's columns).
    "atmVpCrossConnectAdminStatus": "1.3.6.1.2.1.37.1.9.1.6",
    "atmVpCrossConnectL2HOperStatus": "1.3.6.1.2.1.37.1.9.1.7",
    "atmVpCrossConnectH2LOperStatus": "1.3.6.1.2.1.37.1.9.1.8",
}


@pytest.mark.parametrize("name, oid", sorted(TEXT_OIDS.items()))
def test_the_loss_counters_have_the_oids_of_the_texts(name, oid):
    obj = profiles.object_by_name(name)
    assert obj.oid == oid
    assert obj.syntax in ("Counter32", "Integer32")


def test_indexes_come_from_the_row_or_the_row_it_augments():
    obj = profiles.object_by_name
    assert obj("atmVclStatClp0Tagged").index == ("ifIndex", "atmVclVpi", "atmVclVci")
    assert obj("aal5VccCrcErrors").index == ("ifIndex", "aal5VccVpi", "aal5VccVci")
    assert obj("cAal5VccHCInOctets").index == ("ifIndex", "aal5VccVpi", "aal5VccVci")   # AUGMENTS aal5VccEntry
    assert obj("ifHCInOctets").index == ("ifIndex",)                                    # AUGMENTS ifEntry
    assert obj("hwPortOverflows").index == ("hwPortBoard", "hwPortModule", "hwPortNumber")
    assert obj("sysUpTime").scalar and obj("ifCounterDiscontinuityTime").syntax == "TimeStamp"
    assert obj("ifDescr").syntax == "DisplayString" and obj("lldpLocSysName").syntax == "DisplayString"


def test_a_vendor_module_compiles_with_the_imports_mibs_holds():
    [c] = build.compile_modules(["CISCO-ATM-EXT-MIB"], MIBS, given=[VENDOR / "CISCO-ATM-EXT-MIB.my"])
    oam = c.form.objects["catmxVclOamCellsDropped"]
    assert oam == {"oid": "1.3.6.1.4.1.9.9.88.1.2.1.1.20", "syntax": "Counter32",
                   "index": ["ifIndex", "atmVclVpi", "atmVclVci"]}                       # AUGMENTS atmVclEntry
    assert "ATM-MIB" in c.form.imports and "CISCO-SMI" in c.form.imports
    assert c.text == build.compile_modules(["CISCO-ATM-EXT-MIB"], MIBS, given=[VENDOR / "CISCO-ATM-EXT-MIB.my"])[0].text


HEADER = textwrap.dedent("""\
    {name} DEFINITIONS ::= BEGIN
    IMPORTS
        MODULE-IDENTITY, OBJECT-TYPE, Counter32, enterprises FROM SNMPv2-SMI{imports};

    testMib MODULE-IDENTITY
        LAST-UPDATED "202611270000Z"
        ORGANIZATION "tests"
        CONTACT-INFO "tests"
        DESCRIPTION "A module written by tests/collector/mibc."
        ::= {{ enterprises {arc} }}
    """)


def _module(name: str, body: str, imports: str = "", arc: int = 99999) -> str:
    return HEADER.format(name=name, imports=imports, arc=arc) + textwrap.dedent(body) + "\nEND\n"


SCALAR = """
    testThing OBJECT-TYPE
        SYNTAX {syntax}
        MAX-ACCESS read-only
        STATUS current
        DESCRIPTION "x"
        ::= {{ testMib 1 }}
    """
TABLE = """
    testTable OBJECT-TYPE
        SYNTAX SEQUENCE OF TestEntry
        MAX-ACCESS not-accessible
        STATUS current
        DESCRIPTION "x"
        ::= { testMib 2 }
    testEntry OBJECT-TYPE
        SYNTAX TestEntry
        MAX-ACCESS not-accessible
        STATUS current
        DESCRIPTION "x"
        INDEX { ifIndex }
        ::= { testTable 1 }
    TestEntry ::= SEQUENCE { ifInOctets Counter32 }
    ifInOctets OBJECT-TYPE
        SYNTAX Counter32
        MAX-ACCESS read-only
        STATUS current
        DESCRIPTION "the name IF-MIB gives its ifInOctets"
        ::= { testEntry 1 }
    """

BAD = [
    ("syntax", _module("TEST-SYNTAX-MIB", SCALAR.format(syntax="Counter32").replace("testMib 1 }", "testMib 1")),
     r"TEST-SYNTAX-MIB\.txt:\d+: TEST-SYNTAX-MIB: syntax error near 'END'"),
    ("missing module", _module("TEST-NOBODY-MIB", SCALAR.format(syntax="Counter32"),
                               "\n    fooBar FROM NOBODY-HAS-THIS-MIB"),
     r"TEST-NOBODY-MIB\.txt:4: TEST-NOBODY-MIB: imports NOBODY-HAS-THIS-MIB, which no text in mibs/ or the files "
     r"given defines"),
    ("missing symbol", _module("TEST-SYMBOL-MIB", SCALAR.format(syntax="Counter32"), "\n    ifNoSuchThing FROM IF-MIB"),
     r"TEST-SYMBOL-MIB\.txt:4: TEST-SYMBOL-MIB: imports ifNoSuchThing from IF-MIB, which IF-MIB does not define"),
    ("unknown type", _module("TEST-TYPE-MIB", SCALAR.format(syntax="NoSuchType")),
     r"TEST-TYPE-MIB\.txt:12: TEST-TYPE-MIB: testThing: SYNTAX NoSuchType is neither defined nor imported"),
    ("clash", _module("TEST-CLASH-MIB", TABLE, "\n    ifIndex FROM IF-MIB"),
     r"TEST-CLASH-MIB\.txt:27: TEST-CLASH-MIB: ifInOctets is already defined by IF-MIB as "
     r"1\.3\.6\.1\.2\.1\.2\.2\.1\.10 \(Counter32\); here as 1\.3\.6\.1\.4\.1\.99999\.2\.1\.1 \(Counter32\)"),
]


@pytest.mark.parametrize("case, text, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_refused_with_the_module_the_line_and_the_reason(tmp_path, case, text, message):
    name = text.split()[0]
    path = tmp_path / f"{name}.txt"
    path.write_text(text)
    with pytest.raises(MibError) as info:
        compiled = build.compile_modules([name], MIBS, given=[path])
        problems = build.clashes(compiled, build.load_compiled(profiles.COMPILED_DIR))
        if problems:
            raise MibError(problems)
    lines = str(info.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(str(tmp_path)) and re.search(message, lines[0]), lines[0]


def test_a_file_with_no_module_and_two_texts_of_one_module_are_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("just words\n")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(_module("TEST-TWICE-MIB", SCALAR.format(syntax="Counter32")))
    b.write_text(_module("TEST-TWICE-MIB", SCALAR.format(syntax="Counter32")))
    with pytest.raises(MibError, match=r"notes\.txt:1: no MIB module in this file"):
        sources.scan(MIBS, [tmp_path / "notes.txt"])
    with pytest.raises(MibError, match=r"b\.txt:1: TEST-TWICE-MIB: module TEST-TWICE-MIB is also defined by .*a\.txt"):
        sources.scan(MIBS, [a, b])


def test_imports_come_from_the_files_given_and_never_from_the_network(tmp_path, monkeypatch):
    smi = tmp_path / "TEST-SMI.txt"
    smi.write_text(textwrap.dedent("""\
        TEST-SMI DEFINITIONS ::= BEGIN
        IMPORTS MODULE-IDENTITY, enterprises FROM SNMPv2-SMI;
        testSmi MODULE-IDENTITY
            LAST-UPDATED "202611270000Z"
            ORGANIZATION "tests"
            CONTACT-INFO "tests"
            DESCRIPTION "a vendor's SMI: its enterprise node"
            ::= { enterprises 99990 }
        END
        """))
    mib = tmp_path / "TEST-VENDOR-MIB.txt"
    mib.write_text(_module("TEST-VENDOR-MIB", SCALAR.format(syntax="Counter32").replace("testMib 1", "testSmi 7"),
                           "\n    testSmi FROM TEST-SMI"))

    def no_network(*args, **kwargs):
        raise AssertionError("the compiler opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    [c] = build.compile_modules(["TEST-VENDOR-MIB"], MIBS, given=[mib, smi])
    assert c.form.objects["testThing"] == {"oid": "1.3.6.1.4.1.99990.7", "syntax": "Counter32", "scalar": True}
    with pytest.raises(MibError, match="imports TEST-SMI, which no text in mibs/ or the files given defines"):
        build.compile_modules(["TEST-VENDOR-MIB"], MIBS, given=[mib])
