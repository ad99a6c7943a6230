"""The collector against the simulated network: known rates, a wrapping counter, a reboot.

The simulated agents (snmpsim recordings written by simnet/) serve counters whose exact
rates are in the manifest, so every archived rate can be checked against the truth.
"""
from __future__ import annotations

import shutil
import time

import pytest
from django.core.management import call_command

from collector.archive.models import Layout, PollLog, Sample, Series
from collector.core.facts import Flag
from collector.core.profiles import probe_order
from collector.inventory.models import CrossConnect, Port, Switch, VirtualChannel
from collector.poller import runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
WRAP_IN = 25.0   # the near-wrap Counter32 (asx200bx D1 transmit) wraps this long after start


@pytest.fixture(scope="module")
def net():
    state = make_state_dir("collector")
    network = SimNetwork(state, find_free_base_port(5), wrap_in=WRAP_IN, hosts=False)
    network.start()
    yield network
    network.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def seeded(net):
    call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), "--interval", "5")
    return net


def _rows(switch: Switch):
    """[(row, {series_id: position})] in time order."""
    out = []
    for row in Sample.objects.filter(switch_id=switch.id).order_by("time"):
        ids = Layout.objects.get(pk=row.layout_id).series_ids
        out.append((row, {sid: i for i, sid in enumerate(ids)}))
    return out


def test_discovery_finds_the_layout_of_tables_2b_and_2d(seeded):
    asx = Switch.objects.get(name="asx200bx")
    assert asx.detected_profile == "fore-asx" and asx.switch_type == "ASX-200BX"
    assert asx.software_version.startswith("3.0")
    names = set(Port.objects.filter(switch=asx).values_list("name", flat=True))
    assert {"A1", "A2", "A3", "A4", "B1", "B4", "C1", "D1", "D4", "CTL"} <= names and len(names) == 17
    a1 = Port.objects.get(switch=asx, name="A1")
    assert a1.label == "merlin-atm.edc" and a1.port_type == "OC3" and a1.capacity_cells == 353_207
    assert Port.objects.get(switch=asx, name="C1").oper_status == "down"
    assert VirtualChannel.objects.filter(switch=asx, port__name="A4", vpi=0, vci=210).exists()
    assert CrossConnect.objects.filter(switch=asx, kind="vc", in_port__name="A4", in_vpi=0, in_vci=210,
                                       out_port__name="B4", out_vpi=0, out_vci=210).exists()
    assert Switch.objects.get(name="atm2sw").detected_profile == "atm2"
    assert Switch.objects.get(name="ipsw48").detected_profile == "if-mib"
    assert Port.objects.filter(switch__name="ipsw48").count() >= 48


def test_every_simulated_series_is_archived_at_its_rate_within_one_percent(seeded):
    manifest = seeded.manifest
    switches = {s.name: s for s in Switch.objects.all()}
    # Three polls 10 s apart; rates over the last two intervals (20 s), so that the jitter of
    # when, within a poll, the agent read each counter weighs less than 1 %.
    for i in range(3):
        if i:
            time.sleep(10)
        for name in switches:
            assert runner.poll_once(switches[name].id).ok
    checked: set[int] = set()
    truth_keys = {(e["name"], t["object"], t["index"]) for e in manifest["switches"] for t in e["series"]}
    # A series is named after its profile counter; the agent may have answered its 32-bit fallback.
    fallback_of = {c.fallback: c.object for p in probe_order() for c in p.counters if c.fallback}
    for entry in manifest["switches"]:
        switch = switches[entry["name"]]
        series = {(s.object_name, s.index): s for s in Series.objects.filter(switch=switch, kind="counter")}
        (_, _), (row1, pos1), (row, pos) = _rows(switch)[-3:]
        for truth in entry["series"]:
            if truth["syntax"] not in ("Counter32", "Counter64"):
                continue
            s = (series.get((truth["object"], truth["index"]))
                 or series.get((fallback_of.get(truth["object"]), truth["index"])))
            if s is None:
                continue   # an object this profile does not poll (e.g. a 32-bit twin of an HC counter)
            d1, d2 = row1.delta[pos1[s.id]], row.delta[pos[s.id]]
            assert None not in (d1, d2), (entry["name"], truth["object"], truth["index"], Flag(row.flags[pos[s.id]]))
            rate = (d1 + d2) / ((row1.interval_ms + row.interval_ms) / 1000)
            assert rate == pytest.approx(truth["rate"], rel=0.01, abs=2), (
                entry["name"], truth["object"], truth["index"])
            checked.add(s.id)
    # Every counter Cellar polls is one the simulator knows the truth of.
    answered = {v: k for k, v in fallback_of.items()}
    unknown = [(s.switch.name, s.object_name, s.index) for s in Series.objects.filter(kind="counter")
               if (s.switch.name, s.object_name, s.index) not in truth_keys
               and (s.switch.name, answered.get(s.object_name), s.index) not in truth_keys]
    assert not unknown and len(checked) == Series.objects.filter(kind="counter").count(), unknown[:10]


def test_the_wrapping_counter32_gives_an_exact_delta_not_a_spike():
    state = make_state_dir("wrap")
    with SimNetwork(state, find_free_base_port(1), wrap_in=6.0, hosts=False, switches=["asx200bx"]) as net:
        entry = net.manifest["switches"][0]
        call_command("add_switch", "--no-check", "wrapsw", entry["address"], "--port", str(entry["port"]),
                     "--community", entry["community"], "--profile", "fore-asx", "--interval", "5")
        sw = Switch.objects.get(name="wrapsw")
        near = net.manifest["near_wrap"]["counter32"]
        assert runner.poll_once(sw.id).ok
        assert time.time() < near["wraps_at"], "the first poll must come before the wrap"
        time.sleep(max(0.0, near["wraps_at"] - time.time()) + 2)
        assert runner.poll_once(sw.id).ok
    shutil.rmtree(state, ignore_errors=True)
    truth = next(t for t in entry["series"] if t["oid"] == near["oid"])
    s = Series.objects.get(switch=sw, object_name=truth["object"], index=truth["index"])
    (prev, ppos), (row, pos) = _rows(sw)[-2:]
    assert row.raw[pos[s.id]] < prev.raw[ppos[s.id]]              # the agent's counter went round
    assert row.flags[pos[s.id]] & Flag.WRAP
    expected = truth["rate"] * row.interval_ms / 1000
    assert row.delta[pos[s.id]] == pytest.approx(expected, rel=0.01)   # not ~2**32 (a spike), not 0


def test_an_agent_reboot_is_a_flagged_epoch_change_not_a_spike(net, seeded):
    sw = Switch.objects.get(name="asx200bx-b")
    assert runner.poll_once(sw.id).ok
    net.restart_agent("asx200bx-b")
    outcome = runner.poll_once(sw.id)
    assert outcome.ok
    time.sleep(2)
    assert runner.poll_once(sw.id).ok
    (_, _), (reboot, rpos), (after, apos) = _rows(sw)[-3:]
    counters = Series.objects.filter(switch=sw, kind="counter")
    for s in counters:
        assert reboot.flags[rpos[s.id]] & Flag.REBOOT, s
        assert reboot.delta[rpos[s.id]] is None
        assert not after.flags[apos[s.id]] & (Flag.REBOOT | Flag.RESET | Flag.FIRST)
        capacity = s.capacity_per_s or 10**12
        assert after.delta[apos[s.id]] <= capacity * after.interval_ms / 1000


def test_a_dead_agent_says_why(net, seeded):
    sw = Switch.objects.get(name="ipsw48")
    net.kill_agent("ipsw48")
    try:
        started = time.monotonic()
        outcome = runner.poll_once(sw.id)
        # nothing listens on its port any more: ICMP port unreachable, not a credential problem
        assert outcome.status == "refused"
        assert time.monotonic() - started < 6     # timeout 1 s x (1 + 1 retry), plus a little
        log = PollLog.objects.filter(switch_id=sw.id).latest("time")
        assert log.status == "refused" and "no SNMP agent listens on port" in log.error
    finally:
        net.start_agent("ipsw48")
