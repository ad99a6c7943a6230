"""Pure tests of the VCC path tracing (webapp/status/pathtrace.py, pathmodel.py): no database."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from webapp.status import pathmodel as pm
from webapp.status import pathtrace as pt

T = datetime(2026, 1, 1, tzinfo=UTC)


def net_two_switches(trunk=True, far_xc=True, **kw) -> pt.Network:
    """alpha - sa A1 ... sa A4 == sb A4 ... sb A1 - gamma, VCI translated on the way."""
    switches = [pm.SwitchInfo(1, "sa", "10.0.0.1"), pm.SwitchInfo(2, "sb", "10.0.0.2")]
    ports = [pm.PortInfo(11, 1, "A1", "0", "alpha-atm", "OC3", "up"),
             pm.PortInfo(14, 1, "A4", "3", "sb.trunk", "OC3", "up"),
             pm.PortInfo(19, 1, "CTL", "56", "", "CTL", "up"),
             pm.PortInfo(21, 2, "A1", "0", "gamma", "OC3", "up"),
             pm.PortInfo(24, 2, "A4", "3", "", "OC3", "up")]
    hosts = [pm.HostInfo(1, "alpha.example", "192.0.2.1"), pm.HostInfo(3, "gamma.example", "192.0.2.3")]
    links = [pm.LinkInfo(1, 11, None, 1), pm.LinkInfo(2, 21, None, 3)]
    if trunk:
        links.append(pm.LinkInfo(3, 14, 24, None, "manual"))
    xcs = [pm.XcInfo(1, 1, "vc", 11, 0, 100, 14, 0, 200, "a->g", "up"),
           pm.XcInfo(3, 2, "vc", 24, 0, 301, 21, 0, 400, "g->a (back half)", "up"),
           pm.XcInfo(4, 1, "vc", 14, 0, 301, 11, 0, 101, "g->a", "up"),
           pm.XcInfo(5, 2, "vc", 21, 0, 401, 24, 0, 301, "g->a", "up"),
           pm.XcInfo(6, 1, "vc", 11, 0, 16, 19, 0, 66, "ilmi", "up")]
    if far_xc:
        xcs.append(pm.XcInfo(2, 2, "vc", 24, 0, 200, 21, 0, 300, "a->g", "up"))
    rates = {("in", 11, 0, 100): pm.Rate(1000.0, T, 0, 5_000_000), ("in", 24, 0, 200): pm.Rate(998.0, T, 0, 7)}
    return pt.Network(switches, ports, hosts, links, xcs, rates=rates, **kw)


def test_path_across_two_switches_with_vci_translation_and_rates():
    net = net_two_switches()
    alpha, gamma = net.hosts[1], net.hosts[3]
    conn = net.connection(alpha, gamma)
    assert conn.found and len(conn.forward) == 1 and len(conn.reverse) == 1
    t = conn.forward[0]
    assert t.status == "up" and t.complete and t.start_host == alpha and t.end_host == gamma
    assert [(h.switch.name, h.in_port.name, h.in_vci, h.out_port.name, h.out_vci) for h in t.hops] == [
        ("sa", "A1", 100, "A4", 200), ("sb", "A4", 200, "A1", 300)]
    assert t.hops[0].rate.cells_per_s == 1000.0 and t.hops[1].rate.cells_per_s == 998.0
    assert t.hops[1].via.port.name == "A4" and t.hops[1].via.source == "manual"
    back = conn.reverse[0]
    assert [(h.switch.name, h.in_vci, h.out_vci) for h in back.hops] == [("sb", 401, 301), ("sa", 301, 101)]
    assert "both directions" in conn.summary


def test_missing_trunk_link_says_where_it_stops_and_hints_the_switch():
    net = net_two_switches(trunk=False)
    conn = net.connection(net.hosts[1], net.hosts[3])
    assert not conn.forward
    stopped = [t for t in conn.from_source if t.first.in_vci == 100][0]
    assert stopped.status == "incomplete" and stopped.end_kind == "open"     # leaves what we know
    assert "leaves sa on A4 as 0/200" in stopped.stop
    assert "suggests switch sb" in stopped.stop          # label "sb.trunk"
    assert stopped.stop_short == "sa A4 → ?"


def test_missing_cross_connect_on_far_switch():
    net = net_two_switches(far_xc=False)
    t = [t for t in net.traces_from_host(net.hosts[1]) if t.first.in_vci == 100][0]
    assert t.status == "broken" and t.end_kind == "stop"
    assert "arrives at sb A4 as 0/200, but sb has no cross-connect for it" in t.stop
    assert t.stop_short == "stops at sb A4"


def test_vanished_cross_connect_and_terminating_endpoint_are_told_apart():
    base = net_two_switches(far_xc=False)
    gone = pm.XcInfo(2, 2, "vc", 24, 0, 200, 21, 0, 300, "a->g", "up", gone_at=T)
    net = pt.Network(base.switches.values(), base.ports.values(), base.hosts.values(), base.links,
                     base.xcs + [gone])
    t = [t for t in net.traces_from_host(net.hosts[1]) if t.first.in_vci == 100][0]
    assert "vanished at 2026-01-01 00:00" in t.stop
    net2 = pt.Network(base.switches.values(), base.ports.values(), base.hosts.values(), base.links, base.xcs,
                      channels=[pm.EndpointInfo(1, 24, 0, 200, "up")])
    t2 = [t for t in net2.traces_from_host(net2.hosts[1]) if t.first.in_vci == 100][0]
    assert "terminates on sb" in t2.stop
    assert t2.end_kind == "switch" and t2.status == "up"      # e.g. signalling to the switch itself


def test_down_port_and_down_cross_connect_make_the_path_down_not_broken():
    base = net_two_switches()
    ports = [p if p.id != 24 else pm.PortInfo(24, 2, "A4", "3", "", "OC3", "down") for p in base.ports.values()]
    xcs = [x if x.id != 1 else pm.XcInfo(1, 1, "vc", 11, 0, 100, 14, 0, 200, "a->g", "down") for x in base.xcs]
    net = pt.Network(base.switches.values(), ports, base.hosts.values(), base.links, xcs)
    t = net.connection(net.hosts[1], net.hosts[3]).forward[0]
    assert t.status == "down"
    assert "sa: cross-connect down" in t.problems
    assert "sb: in port A4 is down" in t.problems


def test_control_port_ends_the_trace_on_the_switch():
    net = net_two_switches()
    t = [t for t in net.traces_from_host(net.hosts[1]) if t.first.in_vci == 16][0]
    assert t.end_kind == "switch" and t.end_switch.name == "sa" and t.status == "up"


def test_vp_cross_connect_carries_the_vci_through():
    switches = [pm.SwitchInfo(1, "s1"), pm.SwitchInfo(2, "s2")]
    ports = [pm.PortInfo(1, 1, "A1", "0", "", "OC3", "up"), pm.PortInfo(2, 1, "A2", "1", "", "OC3", "up"),
             pm.PortInfo(3, 2, "B1", "0", "", "OC3", "up"), pm.PortInfo(4, 2, "B2", "1", "", "OC3", "up")]
    hosts = [pm.HostInfo(1, "h1"), pm.HostInfo(2, "h2")]
    links = [pm.LinkInfo(1, 1, None, 1), pm.LinkInfo(2, 2, 3), pm.LinkInfo(3, 4, None, 2)]
    xcs = [pm.XcInfo(1, 1, "vc", 1, 0, 42, 2, 5, 42), pm.XcInfo(2, 2, "vp", 3, 5, None, 4, 9, None, status="up")]
    net = pt.Network(switches, ports, hosts, links, xcs)
    t = net.connection(net.hosts[1], net.hosts[2]).forward[0]
    assert [(h.xc.kind, h.in_vpi, h.in_vci, h.out_vpi, h.out_vci) for h in t.hops] == [
        ("vc", 0, 42, 5, 42), ("vp", 5, 42, 9, 42)]


def test_loop_is_detected():
    switches = [pm.SwitchInfo(1, "s1"), pm.SwitchInfo(2, "s2")]
    ports = [pm.PortInfo(1, 1, "A1", "0"), pm.PortInfo(2, 1, "A2", "1"), pm.PortInfo(3, 2, "B1", "0"),
             pm.PortInfo(4, 2, "B2", "1")]
    links = [pm.LinkInfo(1, 2, 3), pm.LinkInfo(2, 4, 1)]
    xcs = [pm.XcInfo(1, 1, "vc", 1, 0, 1, 2, 0, 1), pm.XcInfo(2, 2, "vc", 3, 0, 1, 4, 0, 1)]
    net = pt.Network(switches, ports, [], links, xcs)
    t = net.trace_xc(net.xcs[0])
    assert t.end_kind == "loop" and t.status == "broken"
    # the message names the cycle, hop by hop, back to where it started
    assert t.stop == ("loops: a cycle of 2 cross-connects: s1 A1 0/1 -> A2 0/1 -> s2 B1 0/1 -> B2 0/1 "
                      "-> back to s1 A1")


def _two_switches(*links: pm.LinkInfo) -> pt.Network:
    """h1 - s1 A1 -[xc]- A2 ... B1 -[xc]- B2 - h2, with the given links (host attachments by hand)."""
    switches = [pm.SwitchInfo(1, "s1"), pm.SwitchInfo(2, "s2")]
    ports = [pm.PortInfo(1, 1, "A1", "0"), pm.PortInfo(2, 1, "A2", "1"), pm.PortInfo(3, 2, "B1", "0"),
             pm.PortInfo(4, 2, "B2", "1"), pm.PortInfo(5, 2, "B3", "2")]
    hosts = [pm.HostInfo(1, "h1"), pm.HostInfo(2, "h2")]
    xcs = [pm.XcInfo(1, 1, "vc", 1, 0, 42, 2, 0, 42), pm.XcInfo(2, 2, "vc", 3, 0, 42, 4, 0, 42)]
    return pt.Network(switches, ports, hosts, [pm.LinkInfo(90, 1, None, 1), pm.LinkInfo(91, 4, None, 2), *links], xcs)


@pytest.mark.parametrize("link, followed, words", [
    (pm.LinkInfo(1, 2, 3, source="inferred", state="inferred", confidence=0.96, evidence=("s1: LLDP",)),
     True, "1 inferred (confidence 0.96)"),
    (pm.LinkInfo(1, 2, 3, source="inferred", state="confirmed", confidence=0.8), True, "1 confirmed"),
    (pm.LinkInfo(1, 2, 3), True, "1 manual"),
    (pm.LinkInfo(1, 2, 3, source="inferred", state="inferred", confidence=0.4), False, ""),       # too weak
    (pm.LinkInfo(1, 2, 3, source="inferred", state="inferred", confidence=0.9, conflict="x"), False, ""),
    (pm.LinkInfo(1, 2, 3, source="inferred", state="rejected", confidence=0.9), False, ""),
])
def test_the_tracer_follows_confirmed_and_inferred_links_and_says_which(link, followed, words):
    net = _two_switches(link)
    conn = net.connection(net.hosts[1], net.hosts[2])
    assert bool(conn.forward) is followed
    if followed:
        trace = conn.forward[0]
        assert trace.hops[1].via.link_id == 1 and trace.links_summary.endswith(words)
    else:
        assert "the inventory does not say what A2 connects to" in conn.from_source[0].stop


def test_two_links_on_one_port_stop_the_trace_as_a_conflict():
    net = _two_switches(pm.LinkInfo(1, 2, 3), pm.LinkInfo(2, 2, 5, source="inferred", state="confirmed"))
    trace = net.trace_xc(net.xcs[0])
    assert trace.end_kind == "stop" and "the inventory has 2 links on A2" in trace.stop
    assert "s2 B1 (manual)" in trace.stop and "s2 B3 (confirmed)" in trace.stop


def test_label_inference_only_for_a_single_matching_host():
    assert pm.label_matches_name("punx-atm.tioc.m", "punx-atm.tioc.magic.net")   # FORE 15-char truncation
    assert pm.label_matches_name("houdini", "houdini.tioc")
    assert pm.label_matches_name("houdini.tioc.", "houdini.tioc")
    assert not pm.label_matches_name("ho", "houdini.tioc")
    assert not pm.label_matches_name("merlin", "merlinx.edc")
    switches = [pm.SwitchInfo(1, "s")]
    ports = [pm.PortInfo(1, 1, "A1", "0", "houdini"), pm.PortInfo(2, 1, "A2", "1", "web")]
    hosts = [pm.HostInfo(1, "houdini.tioc"), pm.HostInfo(2, "web.a"), pm.HostInfo(3, "web.b")]
    net = pt.Network(switches, ports, hosts, [], [])
    assert net.neighbors_of(net.ports[1])[0].source == "inferred from port name"
    assert net.neighbors_of(net.ports[2]) == []          # ambiguous: two hosts match
    assert pt.Network(switches, ports, hosts, [], [], infer=False).neighbors_of(net.ports[1]) == []


def test_unattached_hosts_are_explained():
    net = net_two_switches()
    lonely = pm.HostInfo(9, "lonely")
    net.hosts[9] = lonely
    conn = net.connection(lonely, net.hosts[3])
    assert not conn.found and "not attached to any switch port" in conn.summary
    conn2 = net.connection(net.hosts[1], lonely)
    assert "lonely is not attached" in conn2.summary


def test_find_host_by_name_address_or_unique_prefix():
    net = net_two_switches()
    assert net.find_host("alpha.example").id == 1
    assert net.find_host("192.0.2.3").id == 3
    assert net.find_host("GAMMA").id == 3
    assert net.find_host("nosuch") is None
    assert net.find_host("") is None


def test_backward_trace_finds_the_origin_host_from_the_middle():
    net = net_two_switches()
    far = [x for x in net.xcs if x.id == 2][0]
    t = net.trace_xc(far)
    assert t.start_host.name == "alpha.example" and t.end_host.name == "gamma.example"
    assert [h.switch.name for h in t.hops] == ["sa", "sb"]
