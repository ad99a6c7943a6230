"""Inferred links in the inventory (collector/inventory/topology.py) and their admin: claims stored,
links created, updated and withdrawn with their evidence, decisions remembered, conflicts shown."""
from __future__ import annotations

import pytest
from django.utils import timezone

from collector.audit.models import AuditEvent
from collector.inventory import topology
from collector.inventory.models import Link, LinkEvidence, Port, Switch

pytestmark = pytest.mark.django_db


@pytest.fixture
def lab():
    a = Switch.objects.create(name="a", address="10.0.0.1", community="x", sys_name="a.lab")
    b = Switch.objects.create(name="b", address="10.0.0.2", community="x", sys_name="b.lab",
                              identity={"lldp_chassis": "4:00bb"})
    pa = Port.objects.create(switch=a, key="1", name="Gi1/0/1", agent_name="Gi1/0/1")
    pb = Port.objects.create(switch=b, key="7", name="xe-0/0/7", agent_name="xe-0/0/7")
    Port.objects.create(switch=b, key="8", name="xe-0/0/8", agent_name="xe-0/0/8")
    return a, b, pa, pb


def claim(switch, port, far):
    return LinkEvidence.objects.create(switch=switch, port=port, kind="lldp", says=f"LLDP: {far}", far=far,
                                       seen_at=timezone.now())


def test_a_link_appears_with_its_evidence_and_goes_with_it(lab):
    a, b, pa, pb = lab
    ev = claim(a, pa, {"chassis": "4:00bb", "port_id": "5:xe-0/0/7"})
    report = topology.infer_links()
    [link] = Link.objects.all()
    assert (link.a_port, link.b_port, link.state, link.source, link.confidence) == (pa, pb, "inferred", "inferred", 0.8)
    assert link.evidence == [{"kind": "lldp", "side": "a", "says": "LLDP: {'chassis': '4:00bb', 'port_id': "
                              "'5:xe-0/0/7'}", "weight": 0.8}]
    assert report.created == 1 and report.links == 1
    ev.refresh_from_db()
    assert (ev.far_switch, ev.far_port, ev.resolution) == (b, pb, "b xe-0/0/7")
    assert AuditEvent.objects.filter(action="create", object_type="inventory.link").count() == 1
    ev.delete()
    assert topology.infer_links().withdrawn == 1 and not Link.objects.exists()


def test_admin_confirms_and_rejects_and_shows_conflicts(lab, admin_client):
    a, b, pa, pb = lab
    claim(a, pa, {"chassis": "4:00bb", "port_id": "5:xe-0/0/7"})
    topology.infer_links()
    link = Link.objects.get()
    page = admin_client.get("/admin/inventory/link/").content.decode()
    assert "inferred" in page and "0.8" in page
    detail = admin_client.get(f"/admin/inventory/link/{link.id}/change/").content.decode()
    assert "lldp (a, weight 0.8): LLDP:" in detail
    resp = admin_client.post("/admin/inventory/link/", {"action": "reject", "_selected_action": [link.id]})
    assert resp.status_code == 302
    link.refresh_from_db()
    assert link.state == "rejected" and link.decided_by == "admin" and link.decided_at is not None
    topology.infer_links()                                  # the agents still say it: still rejected
    assert Link.objects.get().state == "rejected"
    admin_client.post("/admin/inventory/link/", {"action": "confirm", "_selected_action": [link.id]})
    assert Link.objects.get().state == "confirmed"
    # a second link typed by hand on the same port: both in conflict, listed by the filter
    Link.objects.create(a_port=pa, b_port=Port.objects.get(name="xe-0/0/8"))
    topology.infer_links()
    assert all("a Gi1/0/1 is claimed by another link too" in lk.conflict for lk in Link.objects.all())
    listed = admin_client.get("/admin/inventory/link/?conflict=yes").content.decode()
    assert listed.count("claimed by another link too") >= 2
    evidence = admin_client.get("/admin/inventory/linkevidence/").content.decode()
    assert "b xe-0/0/7" in evidence
    assert admin_client.get("/admin/inventory/linkevidence/add/").status_code == 403


def test_the_command_runs_inference_and_lists_the_links(lab):
    import io

    from django.core.management import call_command

    a, b, pa, pb = lab
    claim(a, pa, {"chassis": "4:00bb", "port_id": "5:xe-0/0/7"})
    out = io.StringIO()
    call_command("infer_links", "--window", "5", stdout=out)
    assert out.getvalue().splitlines() == ["links: 1 inferred (1 new, 0 withdrawn), 0 in conflict",
                                           "a Gi1/0/1 - b xe-0/0/7: inferred 0.80"]
