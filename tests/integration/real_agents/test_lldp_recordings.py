"""LLDP neighbours of real agents: recordings of an H3C pair, a Juniper MX960 pair and a
Ruijie N18010, served by snmpsim as recorded, discovered, then link inference over all of them.

What the recordings hold (read from them, not assumed): the two Juniper routers see each other
(juniper-a xe-3/1/1, ifIndex 859, advertises port id "xe-3/1/1" by name; juniper-b xe-1/2/0, ifIndex
760, advertises a local id "760"); the two H3C E528 do not see each other, both see a switch that
is not in the inventory ("WRD-Huiju-2"), and have no lldpLocPortTable (their local port numbers are
bridge ports, dot1dBasePortIfIndex); the Ruijie names its ports "Gi1/1/1" in LLDP and
"GigabitEthernet 1/1/1" in ifDescr. So: exactly one link, between the Junipers, from both sides;
every other row a claim naming no known switch; every row accounted for (claims + unmatched).
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from collector.inventory import topology
from collector.inventory.models import Link, LinkEvidence, Switch
from collector.poller import actions
from simnet.replay import moving_copy, read_lines
from simnet.serve import RecordingServer

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT / "tests" / "data" / "recordings" / "real"      # in the repository (BSD licence, LICENSE.txt)
NAMES = ("h3c-e528-1", "h3c-e528-2", "juniper-mx960-16-1r6-7-a", "juniper-mx960-16-1r6-7-b", "ruijie-n18010")
START = 1_700_000_000        # as tests/integration/real_agents/test_recordings.py: the same files, one index
REM_CHASSIS = "1.0.8802.1.1.2.1.4.1.1.5."

pytestmark = pytest.mark.slow


def _dirs() -> tuple[Path, Path]:
    base = ROOT / "state" / "cache" / "real-agents"
    if not (ROOT / "state").is_dir():
        base = Path("/tmp/cellar-real-agents")
    return base / "data", base / "cache"


@pytest.fixture(scope="module")
def discovered(django_db_setup, django_db_blocker):
    missing = [n for n in NAMES if not (SHARED / f"{n}.snmprec.bz2").exists()]
    if missing:
        pytest.fail(f"real recordings missing from {SHARED}: {', '.join(missing)}")
    data, cache = _dirs()
    data.mkdir(parents=True, exist_ok=True)
    rows = {}
    for name in NAMES:
        rec = moving_copy(SHARED / f"{name}.snmprec.bz2", data, START)
        rows[name] = sum(1 for line in read_lines(rec.path) if line.startswith(REM_CHASSIS))
    with RecordingServer(data, cache, log_path=data.parent / "snmpsim-lldp.log") as server, \
            django_db_blocker.unblock():
        reports = {}
        for name in NAMES:
            call_command("add_switch", "--no-check", name, "127.0.0.1", "--port", str(server.port), "--community",
                         name, "--profile", "if-mib", "--timeout", "10", stdout=io.StringIO())
            reports[name] = actions.discover(Switch.objects.get(name=name).id)
        yield reports, rows, topology.infer_links()
        Switch.objects.filter(name__in=NAMES).delete()


@pytest.mark.django_db
def test_the_junipers_see_each_other_and_nothing_else_is_a_link(discovered):
    reports, rows, inference = discovered
    assert all(r.complete for r in reports.values()), [r.summary() for r in reports.values()]
    [link] = Link.objects.select_related("a_port__switch", "b_port__switch")
    ends = {(link.a_port.switch.name, link.a_port.name, link.a_port.if_index),
            (link.b_port.switch.name, link.b_port.name, link.b_port.if_index)}
    assert ends == {("juniper-mx960-16-1r6-7-a", "xe-3/1/1", 859), ("juniper-mx960-16-1r6-7-b", "xe-1/2/0", 760)}
    assert link.state == "inferred" and link.conflict == "" and link.confidence == 0.96
    assert sorted((e["kind"], e["side"]) for e in link.evidence) == [
        ("lldp", "juniper-mx960-16-1r6-7-a"), ("lldp", "juniper-mx960-16-1r6-7-b")]
    assert inference.links == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", NAMES)
def test_every_lldp_row_is_a_claim_or_counted_as_unmatched(discovered, name):
    reports, rows, _ = discovered
    report = reports[name]
    claims = LinkEvidence.objects.filter(switch__name=name, kind="lldp")
    assert claims.count() + sum(report.unmatched.values()) == rows[name] > 0
    assert report.claims >= claims.count()
    # what names no switch of the inventory stays a claim with its reason, never a link
    for e in claims.filter(far_switch__isnull=True):
        assert e.resolution.startswith("no switch in the inventory is chassis")


@pytest.mark.django_db
def test_each_agents_way_of_numbering_its_ports_is_read(discovered):
    reports, _, _ = discovered
    # H3C: no lldpLocPortTable; local port 24 is bridge port 24, ifIndex 24 (GigabitEthernet1/0/24)
    for name in ("h3c-e528-1", "h3c-e528-2"):
        [claim] = LinkEvidence.objects.filter(switch__name=name, kind="lldp").select_related("port")
        assert claim.port.if_index == 24 and "WRD-Huiju-2" in claim.says and claim.far_switch is None
        assert claim.far["port_id"] == "5:GigabitEthernet1/0/33"
    # Ruijie: "Gi1/1/1" in LLDP is the port the agent calls "GigabitEthernet 1/1/1"
    ruijie = LinkEvidence.objects.filter(switch__name="ruijie-n18010", kind="lldp").select_related("port")
    assert ruijie.count() > 100 and all(e.port.if_index is not None for e in ruijie)
    assert Switch.objects.get(name="juniper-mx960-16-1r6-7-b").identity["lldp_port_ids"]["760"] == "7:760"
