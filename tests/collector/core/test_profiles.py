"""collector/core/profiles.py: device profiles are YAML files, validated at load.

The last test adds a profile that exists only in this test (one file in a temporary directory)
and uses it end to end: add_switch accepts it, a real snmpd is discovered and polled with it,
and its series reach the archive and the CSV export. Nothing else had to change.
"""
from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from collector.core import profiles
from collector.core.profiles import ProfileError


def test_builtin_profiles_load_with_their_probing_order_and_choices():
    assert [p.name for p in profiles.probe_order()] == ["fore-asx", "atm2", "if-mib"]
    assert profiles.profile_names() == ("auto", "atm2", "fore-asx", "if-mib")
    assert profiles.choices()[0][0] == "auto" and ("if-mib", "IF-MIB interfaces") in profiles.choices()
    fore = profiles.get_profile("fore-asx")
    assert fore.reset_time == "switchCounterResetTime" and fore.discovery_parser == "fore"
    assert fore.counter("chanRejectedCells").unreliable
    assert fore.counter("hwPortOverflows").entity == "hwport" and fore.entity_of_index["hwport"] == 3
    atm2 = profiles.get_profile("atm2")
    assert {c.metric for c in atm2.counters} >= {"clp0_cells", "clp0_discards", "tagged_cells", "crc_errors",
                                                 "sar_timeouts", "oversized_sdus", "ocd_events", "unknown_cells"}
    ifmib = profiles.get_profile("if-mib")
    assert ifmib.counter("ifHCInOctets").fallback == "ifInOctets"
    assert profiles.object_by_name("ifHCInOctets").width == 64


@pytest.mark.parametrize("sys_oid, expected", [
    ("1.3.6.1.4.1.326.2.2.5", "fore-asx"),       # ASX-200BX
    ("1.3.6.1.4.1.326.2.2", "fore-asx"),
    ("1.3.6.1.4.1.326.2.20", None),              # a prefix must end on an arc
    ("1.3.6.1.4.1.9.1.1", None),
])
def test_sys_object_id_selects_a_profile(sys_oid, expected):
    found = profiles.profile_for_sys_object_id(sys_oid)
    assert (found.name if found else None) == expected


def test_unknown_profile_names_the_known_ones():
    with pytest.raises(ProfileError, match="unknown profile 'nope' \\(known: .*if-mib"):
        profiles.get_profile("nope")


GOOD = """
name: {name}
title: Test profile
detect: {{probe: ifDescr, probe_order: 90}}
entities: {{port: 1}}
counters:
  - {{object: ifInOctets, entity: port, direction: in, metric: octets, unit: octets}}
discovery: {{parser: interfaces, columns: [ifDescr]}}
"""


@pytest.mark.parametrize("text, message", [
    (GOOD.format(name="auto"), "not 'auto'"),
    (GOOD.format(name="a-name-much-longer-than-sixteen"), "longer than 16"),
    (GOOD.format(name="t1") + "colour: red\n", "unknown keys colour"),
    (GOOD.format(name="t1").replace("ifInOctets", "ifNoSuchThing"), "'ifNoSuchThing' is not defined"),
    (GOOD.format(name="t1").replace("ifInOctets", "IF-MIB::ifNoSuchThing"),
     "IF-MIB::ifNoSuchThing: module IF-MIB defines no object 'ifNoSuchThing'"),
    (GOOD.format(name="t1").replace("ifInOctets", "NOPE-MIB::ifInOctets"),
     "NOPE-MIB::ifInOctets: no MIB module NOPE-MIB is compiled"),
    (GOOD.format(name="t1").replace("metric: octets", "metric: Octets Lost"), "metric 'Octets Lost' must be a word"),
    (GOOD.format(name="t1").replace("ifInOctets", "ifDescr"), "ifDescr is not a counter"),
    (GOOD.format(name="t1").replace("entity: port", "entity: vc"), "entity 'vc' is not in entities"),
    (GOOD.format(name="t1").replace("unit: octets", "unit: bytes"), "unit in"),
    (GOOD.format(name="t1").replace("parser: interfaces", "parser: magic"), "discovery.parser must be one of"),
    (GOOD.format(name="t1").replace("probe: ifDescr, ", ""), "detect.probe"),
    (GOOD.format(name="t1").replace("metric: octets, unit: octets}", "metric: octets, unit: octets, "
                                    "fallback: ifInUcastPkts}"), "a fallback is the 32-bit column"),
    (GOOD.format(name="if-mib"), "profile if-mib is already defined"),
    ("- just\n- a list\n", "not a YAML mapping"),
    ("name: [unclosed\n", "cannot read"),
    (GOOD.format(name="t1") + "objects:\n  ifInOctets: {oid: 1.3.6.1.9, syntax: Counter32, index: [ifIndex]}\n",
     "ifInOctets already defined differently"),
])
def test_a_bad_profile_file_is_refused_with_its_name_and_the_reason(tmp_path, text, message):
    (tmp_path / "broken.yaml").write_text(text)
    before = profiles.profile_names()
    with pytest.raises(ProfileError, match=message) as info:
        profiles.use_directories([tmp_path])
    assert "broken.yaml" in str(info.value) or "already defined" in str(info.value)
    assert profiles.profile_names() == before          # the loaded set is kept


def test_profiles_name_objects_by_module(tmp_path):
    """MODULE::object and the bare name reach the same object; the series keeps the bare name."""
    (tmp_path / "qualified.yaml").write_text(GOOD.format(name="t-qualified").replace("ifInOctets", "IF-MIB::ifInOctets")
                                             .replace("ifDescr", "IF-MIB::ifDescr"))
    registry = profiles.load([tmp_path])
    p = registry.profiles["t-qualified"]
    assert p.counters[0].object == "ifInOctets" and p.probe == "ifDescr"
    assert profiles.object_by_name("IF-MIB::ifInOctets") is profiles.object_by_name("ifInOctets")
    assert "ifInOctets" in registry.modules["IF-MIB"]


def test_a_missing_profile_directory_is_an_error(tmp_path):
    with pytest.raises(ProfileError, match="does not exist"):
        profiles.use_directories([tmp_path / "nope"])


# A device profile that exists only here: 32-bit IF-MIB octets and, defined in the profile
# itself, the old non-unicast packet counters that no built-in profile polls.
TEST_ONLY = textwrap.dedent("""
    # Old IF-MIB agents: 32-bit counters only, and the non-unicast packets as well.
    name: test-if32
    title: IF-MIB, 32-bit only (test)
    description: exists only in tests/collector/core/test_profiles.py
    detect: {sys_object_ids: [1.3.6.1.4.1.99999.42], probe: ifDescr, probe_order: 40}
    uptime: [sysUpTime]
    entities: {port: 1}
    objects:
      ifInNUcastPkts: {oid: 1.3.6.1.2.1.2.2.1.12, syntax: Counter32, index: [ifIndex]}
    counters:
      - {object: ifInOctets, entity: port, direction: in, metric: octets, unit: octets}
      - {object: ifOutOctets, entity: port, direction: out, metric: octets, unit: octets}
      - {object: ifInNUcastPkts, entity: port, direction: in, metric: nucast_pkts, unit: packets}
    discovery: {parser: interfaces, columns: [ifDescr, ifType, ifSpeed, ifAdminStatus, ifOperStatus, ifName]}
""")


@pytest.fixture
def test_only_profile(tmp_path):
    directory = tmp_path / "profiles"
    directory.mkdir()
    (directory / "test-if32.yaml").write_text(TEST_ONLY)
    profiles.use_directories([directory])
    yield directory
    profiles.use_directories([])


def test_a_profile_file_in_an_extra_directory_joins_the_builtin_ones(test_only_profile):
    p = profiles.get_profile("test-if32")
    assert [c.object for c in p.counters] == ["ifInOctets", "ifOutOctets", "ifInNUcastPkts"]
    assert profiles.object_by_name("ifInNUcastPkts").width == 32
    assert profiles.profile_for_sys_object_id("1.3.6.1.4.1.99999.42.1").name == "test-if32"
    assert [x.name for x in profiles.probe_order()][-1] == "test-if32"
    assert ("test-if32", "IF-MIB, 32-bit only (test)") in profiles.choices()
    profiles.use_directories([])
    with pytest.raises(ProfileError):
        profiles.get_profile("test-if32")


@pytest.mark.django_db(transaction=True)
def test_a_switch_polled_with_a_profile_that_only_a_file_defines(test_only_profile, tmp_path):
    from collector.archive.models import Layout, Sample, Series
    from collector.inventory.models import Port, Switch
    from collector.poller import runner
    from tests.support.agents import NetSnmpAgent

    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "old-router", agent.host, "--port", str(agent.port), "--community",
                     agent.community, "--profile", "test-if32", "--interval", "1", stdout=io.StringIO())
        switch = Switch.objects.get(name="old-router")
        switch.full_clean()                              # the model's choices know the file's profile
        call_command("discover", "old-router", stdout=io.StringIO())
        assert Port.objects.filter(switch=switch, name="lo").exists()
        assert runner.poll_once(switch.id).status == "ok"
        assert runner.poll_once(switch.id).status == "ok"
    series = {(s.object_name, s.width, s.unit) for s in Series.objects.filter(switch=switch, kind="counter")}
    assert {("ifInOctets", 32, "octets"), ("ifOutOctets", 32, "octets"), ("ifInNUcastPkts", 32, "packets")} <= series
    rows = list(Sample.objects.filter(switch_id=switch.id).order_by("time"))
    assert len(rows) == 2 and rows[1].interval_ms > 0
    ids = Layout.objects.get(pk=rows[1].layout_id).series_ids
    lo_in = Series.objects.get(switch=switch, object_name="ifInOctets", port__name="lo")
    assert rows[1].delta[ids.index(lo_in.id)] is not None      # a delta derived with the profile's width
    out = tmp_path / "lo.csv"
    call_command("export_csv", "--switch", "old-router", "--port", "lo", "--resolution", "raw",
                 "--output", str(out))
    header = out.read_text().splitlines()[0]
    assert "old-router lo Receive rate [bits/s]" in header and len(out.read_text().splitlines()) >= 3
    # Without the file, the profile is gone and the switch no longer validates.
    profiles.use_directories([])
    with pytest.raises(ValidationError, match="profile"):
        switch.full_clean()
    assert Path(test_only_profile / "test-if32.yaml").exists()
