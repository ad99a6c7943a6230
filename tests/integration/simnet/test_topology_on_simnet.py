"""Links between switches on the simulated network, inferred with no link typed by hand.

The network (simnet/network.py) has three cables between switches, known to the manifest:
asx200bx A4 == asx200bx-b A4 (FORE SPANS signalling and topology, port names, the PVC's cells),
asx200bx D1 == atm2sw atm1/0/0 (ILMI from atm2sw only, the cells of five VCs and VPs), ipsw48
Gi1/0/40 == ipsw8 Gi1/0/8 (LLDP from ipsw48 only). Everything else the agents say (UNI signalling
to hosts, LLDP neighbours that are not in the inventory, a row for a port ipsw48 does not have)
must be counted, never become a link.
"""
from __future__ import annotations

import time

import pytest
from django.core.management import call_command

from collector.inventory import topology
from collector.inventory.models import Link, LinkEvidence, Port, Switch
from collector.poller import actions, runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture(scope="module")
def net():
    state = make_state_dir("topology")
    network = SimNetwork(state, find_free_base_port(5), hosts=True, use_netns=False)
    network.start()
    yield network
    network.stop()


@pytest.fixture
def seeded(net):
    call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), "--interval", "5")
    return net


def pair(link: Link) -> frozenset:
    return frozenset({(link.a_port.switch.name, link.a_port.name), (link.b_port.switch.name, link.b_port.name)})


def truth(net) -> set[frozenset]:
    return {frozenset({(lk["a_switch"], lk["a_port"]), (lk["b_switch"], lk["b_port"])})
            for lk in net.manifest["links"]}


def usable_links() -> dict[frozenset, Link]:
    return {pair(lk): lk for lk in Link.objects.filter(b_port__isnull=False, state="inferred", conflict="",
                                                        confidence__gte=0.5).select_related("a_port__switch",
                                                                                            "b_port__switch")}


def test_every_cable_is_inferred_and_nothing_else(seeded):
    assert not Link.objects.filter(source="manual").exists()              # nothing typed by hand
    links = usable_links()
    assert set(links) == truth(seeded) and Link.objects.count() == 3
    trunk = links[frozenset({("asx200bx", "A4"), ("asx200bx-b", "A4")})]
    kinds = {(e["kind"], e["side"]) for e in trunk.evidence}
    assert {("fore-signalling", "asx200bx"), ("fore-signalling", "asx200bx-b"), ("fore-topology", "asx200bx"),
            ("port-label", "asx200bx-b")} <= kinds and trunk.confidence == pytest.approx(0.962, abs=0.001)
    # one side only: lower confidence
    wan = links[frozenset({("asx200bx", "D1"), ("atm2sw", "atm1/0/0")})]
    lldp = links[frozenset({("ipsw48", "Gi1/0/40"), ("ipsw8", "Gi1/0/8")})]
    assert [e["kind"] for e in wan.evidence] == ["ilmi"] and wan.confidence == 0.8
    assert [(e["kind"], e["side"]) for e in lldp.evidence] == [("lldp", "ipsw48")] and lldp.confidence == 0.8
    # what names no switch of the inventory is kept, with why, and counted
    unresolved = LinkEvidence.objects.filter(far_switch__isnull=True)
    assert {(e.kind, e.resolution.split(" is ")[-1]) for e in unresolved} == {
        ("fore-signalling", "address 127.0.0.15"), ("fore-signalling", "address 127.0.0.13"),
        ("fore-signalling", "address 127.0.0.11"), ("fore-signalling", "address 127.0.0.12"),
        ("lldp", "chassis 4:00005e0053a1 / sys name core-a.tioc.aai.net"),
        ("lldp", "chassis 4:00005e0053a2 / sys name core-b.tioc.aai.net")}
    report = actions.discover(Switch.objects.get(name="ipsw48").id)
    assert report.unmatched == {"LLDP neighbour on local port 99: local port number in neither lldpLocPortTable "
                                "nor dot1dBasePortIfIndex": 1}
    assert "1 neighbour rows not matched to a port" in report.summary()


def test_the_path_between_hosts_on_two_switches_traces_with_no_link_typed_by_hand(client, seeded, admin_client):
    from webapp.status import queries as q

    net = q.load_network().net
    conn = net.connection(net.find_host("mauchly"), net.find_host("houdini"))
    assert conn.forward and conn.reverse and all(t.status == "up" for t in conn.forward + conn.reverse)
    for t in conn.forward + conn.reverse:
        assert [h.switch.name for h in t.hops] in (["asx200bx-b", "asx200bx"], ["asx200bx", "asx200bx-b"])
        assert t.links_summary == "1 link between switches: 1 inferred (confidence 0.96)"
    page = admin_client.get("/path/?src=mauchly&dst=houdini").content.decode()
    assert "all hops up" in page and "1 inferred (confidence 0.96)" in page


def test_cross_connect_continuity_from_the_archive_adds_to_the_right_links_only(seeded):
    ids = list(Switch.objects.values_list("id", flat=True))
    started = time.time()
    for i in range(6):
        if i:
            time.sleep(5)
        for sid in ids:
            assert runner.poll_once(sid).ok
    report = actions.infer_links(window_min=(time.time() - started) / 60 + 0.05)
    rows = LinkEvidence.objects.filter(kind="xc-continuity").select_related("port__switch", "far_port__switch")
    found = {frozenset({(r.port.switch.name, r.port.name), (r.far_port.switch.name, r.far_port.name)}) for r in rows}
    assert found == {frozenset({("asx200bx", "A4"), ("asx200bx-b", "A4")}),
                     frozenset({("asx200bx", "D1"), ("atm2sw", "atm1/0/0")})}
    wan = usable_links()[frozenset({("asx200bx", "D1"), ("atm2sw", "atm1/0/0")})]
    assert wan.confidence == 0.96 and {e["kind"] for e in wan.evidence} == {"ilmi", "xc-continuity"}
    assert set(usable_links()) == truth(seeded) and report.conflicts == 0


def test_decisions_are_remembered_and_bad_input_is_a_conflict(seeded, admin_client):
    lldp = usable_links()[frozenset({("ipsw48", "Gi1/0/40"), ("ipsw8", "Gi1/0/8")})]
    topology.decide(lldp.id, "rejected", "alice")
    topology.infer_links()
    assert Link.objects.get(pk=lldp.id).state == "rejected" and Link.objects.count() == 3
    # two links claimed for one port: one typed by hand onto the trunk port, contradicting the agents
    a4 = Port.objects.get(switch__name="asx200bx", name="A4")
    spare = Port.objects.get(switch__name="atm2sw", name="atm1/0/3")
    manual = Link.objects.create(a_port=a4, b_port=spare)
    topology.infer_links()
    manual.refresh_from_db()
    trunk = Link.objects.get(source="inferred", a_port__switch__name__in=["asx200bx", "asx200bx-b"],
                             b_port__name="A4")
    assert "asx200bx A4 is claimed by another link too" in manual.conflict
    assert "asx200bx A4 is claimed by another link too" in trunk.conflict
    from webapp.status import queries as q

    net = q.load_network().net
    conn = net.connection(net.find_host("mauchly"), net.find_host("houdini"))
    # the tracer follows the link typed by hand, not the inferred one in conflict, and says so
    stop = conn.from_source[0].stop
    assert not conn.forward and "an inferred link to asx200bx A4 is not followed, in conflict:" in stop
    # the far end vanished: the port is gone from the agent
    manual.delete()
    Port.objects.filter(pk=spare.pk).update(gone_at="2026-01-01T00:00Z")
    Link.objects.create(a_port=Port.objects.get(switch__name="ipsw48", name="Gi1/0/1"), b_port=spare)
    topology.infer_links()
    assert Link.objects.get(b_port=spare).conflict == "atm2sw atm1/0/3 has vanished"
    Port.objects.filter(pk=spare.pk).update(gone_at=None)
    Link.objects.filter(b_port=spare).delete()
    topology.decide(lldp.id, "confirmed", "alice")
    topology.infer_links()
    assert Link.objects.get(pk=lldp.id).state == "confirmed" and set(usable_links()) == truth(seeded) - {pair(lldp)}


def test_a_discovery_slot_infers_links_once_and_only_when_what_inference_reads_changed(seeded):
    """Rediscovery of the unchanged network runs no inference (at 100,000 ports it read the whole
    inventory once per switch discovered); evidence that changed brings one run for the slot."""
    ids = list(Switch.objects.values_list("id", flat=True))
    inferred_at = dict(Link.objects.values_list("id", "inferred_at"))
    counts = actions.discover_many(ids)
    assert counts == {"done": len(ids)}                      # no "links": inference did not run
    assert dict(Link.objects.values_list("id", "inferred_at")) == inferred_at
    # ipsw48's LLDP evidence lost (as if its table had answered nothing last time): it comes back
    # with the next discovery, and one inference run resolves it again.
    LinkEvidence.objects.filter(switch__name="ipsw48", kind="lldp").delete()
    counts = actions.discover_many(ids)
    assert counts == {"done": len(ids), "links": 3}
    assert set(usable_links()) == truth(seeded)
