"""Pure tests: model consistency, recording format, and the counter formula (no processes)."""

from __future__ import annotations

import os
import random

import pytest

from simnet import manifest as mf
from simnet import recording as rec
from simnet.model import hms
from simnet.network import build_network
from simnet.records import SENTINEL_OID, TAG_TIMETICKS, oid_s

T0 = 1_795_000_000


@pytest.fixture(scope="module")
def net():
    return build_network()


@pytest.fixture(scope="module")
def records(net):
    return {sw.name: rec.switch_records(sw) for sw in net.switches}


def test_records_sorted_unique_and_sentinel(records):
    for name, recs in records.items():
        oids = [r.oid for r in recs]
        assert oids == sorted(oids), name
        assert len(set(oids)) == len(oids), name
        text = rec.render(recs, T0).splitlines()
        assert text[-1].startswith(oid_s(SENTINEL_OID) + "|4|")
        assert len(text) == len(recs) + 1
        for line in text:
            oid, tag, value = line.split("|", 2)
            assert tag.split(":")[0].rstrip("x") in {"2", "4", "6", "64", "65", "66", "67", "70"}, line


def test_static_values_are_valid_snmp_values(records):
    """Every static line parses into a pyasn1 value with snmpsim's own grammar (ranges!)."""
    from snmpsim.record.snmprec import SnmprecRecord
    parser = SnmprecRecord()
    for recs in records.values():
        for line in rec.render(recs, T0).splitlines():
            oid, tag, value = parser.grammar.parse(line.encode("iso-8859-1"))
            if ":" in tag:
                continue
            parser.evaluate_value(oid, tag, value)   # raises on invalid values


def test_numeric_line_format(records):
    recs = records["asx200bx"]
    up = next(r for r in recs if r.name == "sysUpTime")
    assert rec.render_line(up, T0) == (
        f"1.3.6.1.2.1.1.3.0|67:numeric|atime=1,rate=100,offset={-100 * T0},"
        f"initial={hms(10, 6, 26)},wrap=1,max=4294967296")
    c = next(r for r in recs if r.name == "portReceivedCells" and r.index == (0,))
    assert rec.render_line(c, T0).startswith(
        "1.3.6.1.4.1.326.2.2.2.1.2.2.1.12.0|65:numeric|atime=1,rate=140010,")


def _load_numeric():
    """snmpsim loads variation modules by exec()-ing their file (snmpsim/variation/ is not
    a package); do the same."""
    import snmpsim
    path = os.path.join(os.path.dirname(snmpsim.__file__), "variation", "numeric.py")
    ns = {"__name__": "snmpsim_numeric_under_test", "moduleContext": {}}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


class _Clock:
    def __init__(self, t):
        self.t = t

    def time(self):
        return self.t


def _snmpsim_value(line: str, t: float) -> int:
    """Evaluate one numeric record with snmpsim's own variation module at time t."""
    from pysnmp.proto import rfc1902
    ns = _load_numeric()
    ns["recordContext"] = {}
    ns["time"] = _Clock(t)
    oid, tagmod, value = line.split("|", 2)
    tag = tagmod.split(":")[0]
    _, _, v = ns["variate"](oid, tag, value, nextFlag=False, exactMatch=True, setFlag=False,
                            origOid=oid, errorStatus=None)
    typ = {"65": rfc1902.Counter32, "70": rfc1902.Counter64, "67": rfc1902.TimeTicks}[tag]
    return int(typ(v))


def test_expected_value_matches_snmpsim_numeric_exactly(net):
    """The manifest formula reproduces snmpsim 1.2.2's numeric variation bit for bit."""
    rnd = random.Random(7)
    for sw in net.switches:
        recs = rec.switch_records(sw)
        entries = {s["oid"]: s for s in rec.series_entries(recs, T0)}
        growing = [r for r in recs if r.series is not None and r.series.rate]
        for r in rnd.sample(growing, min(40, len(growing))):
            line = rec.render_line(r, T0)
            s = entries[oid_s(r.oid)]
            for dt in (0.0, 0.5, 1.234567, 61.0, 3600.25, rnd.uniform(0, 86400)):
                t = T0 + dt
                assert _snmpsim_value(line, t) == mf.expected_value(s, T0, t), (line, dt)


def test_near_wrap_values_match_snmpsim_across_the_wrap():
    net = build_network(wrap_in=5, wrap64_in=7)
    for swname, obj, label_key, label in (
            ("asx200bx", "portTransmittedCells", "port", "D1"),
            ("ipsw48", "ifHCInOctets", "ifindex", 48)):
        recs = rec.switch_records(net.switch(swname))
        entries = rec.series_entries(recs, T0)
        s = next(e for e in entries if e["object"] == obj and e["labels"][label_key] == label)
        r = next(x for x in recs if oid_s(x.oid) == s["oid"])
        line = rec.render_line(r, T0)
        assert s["wraps_at"] == pytest.approx(T0 + (5 if swname == "asx200bx" else 7))
        before = mf.expected_value(s, T0, s["wraps_at"] - 1)
        after = mf.expected_value(s, T0, s["wraps_at"] + 1)
        assert before > 2 ** s["width"] - 2 * s["rate"]
        assert after < 2 * s["rate"]
        tol = 2 * mf.float_error_bound(s, T0, s["wraps_at"] + 1)
        assert abs(mf.counter_delta(before, after, s["width"]) - 2 * s["rate"]) <= tol
        for t in (s["wraps_at"] - 1, s["wraps_at"] + 1):
            assert _snmpsim_value(line, t) == mf.expected_value(s, T0, t)


def test_exactly_one_counter32_initialised_near_wrap(net):
    """Exactly one Counter32 wraps in the first 2 minutes although its natural wrap
    period is long (i.e. it was *initialised* near 2^32): asx200bx D1 portTransmittedCells.
    ipsw48's 32-bit octet counters at Gb/s rates wrap every few seconds by nature and
    are not counted (that is what ifHC* are for)."""
    hits = []
    for sw in net.switches:
        for s in rec.series_entries(rec.switch_records(sw), T0):
            if s["syntax"] != "Counter32" or not s["rate"]:
                continue
            period = 2 ** 32 / s["rate"]
            if s["wraps_at"] - T0 <= 120 and period > 600:
                hits.append((sw.name, s["object"], s["labels"]))
            if sw.name != "ipsw48" and period > 600:
                pass
    assert hits == [("asx200bx", "portTransmittedCells", {"port": "D1"})]
    # and nothing else wraps within 2 minutes, but 32-bit octet counters whose rate wraps them
    # every few minutes by nature (ipsw48, ipsw8's uplink)
    for sw in net.switches:
        for s in rec.series_entries(rec.switch_records(sw), T0):
            if s["syntax"] == "Counter32" and s["rate"] and (sw.name, s["object"], s["labels"]) not in hits \
                    and 2 ** 32 / s["rate"] > 600:
                assert s["wraps_at"] - T0 > 120, (sw.name, s)


def test_fore_port_numbering(net):
    sw = net.switch("asx200bx")
    num = {p.name: p.number for p in sw.ports}
    assert (num["A1"], num["A4"], num["B1"], num["C1"], num["D1"], num["D4"], num["CTL"]) == \
        (0, 3, 8, 16, 24, 27, 56)
    assert [p.bnp for p in sw.ports][:5] == ["1A1", "1A2", "1A3", "1A4", "1B1"]
    assert sw.port("CTL").bnp == "1CTL"
    assert len(sw.ports) == 17
    assert sum(p.oper_up for p in sw.ports) == 10          # table 2c's 9 active + A4 (trunk)
    recs = rec.switch_records(sw)
    names = {r.index: r.value for r in recs if r.name == "hwPortName"}
    assert names[(0, 0, 0)] == "1A1" and names[(0, 3, 3)] == "1D4" and names[(0, 7, 0)] == "1CTL"
    pname = {r.index: r.value for r in recs if r.name == "portName"}
    assert pname[(0,)] == "merlin-atm.edc" and pname[(56,)] == "punx-atm.tioc.m"


def test_fore_counters_consistent(net):
    """port rx >= sum of its VPs >= sum of its VCs (rates and initial values); port
    utilisation below capacity; the table-2d PVCs exist in both directions."""
    for sw in (net.switch("asx200bx"), net.switch("asx200bx-b")):
        paths = sw.paths()
        for p in sw.ports:
            vcs = [v for v in sw.vcs if v.in_port == p.name]
            pp = [x for x in paths if x.port == p.name]
            assert sw.rx_rate(p.name) == sum(x.rate for x in pp)
            assert sw.rx_rate(p.name) >= sum(v.rate for v in vcs)
            assert sw.rx_initial(p.name) >= sum(v.initial for v in vcs)
            for x in pp:
                inner = [v for v in vcs if v.in_vpi == x.vpi]
                assert x.rate >= sum(v.rate for v in inner)
                assert x.initial >= sum(v.initial for v in inner)
            assert sw.rx_rate(p.name) < p.max_cells and sw.tx_rate(p.name) < p.max_cells
            assert sw.tx_rate(p.name) >= sum(v.rate for v in sw.vcs if v.out_port == p.name)
            if not p.oper_up:
                assert sw.rx_rate(p.name) == sw.tx_rate(p.name) == 0
    asx = net.switch("asx200bx")
    pvcs = {(v.in_port, v.in_vpi, v.in_vci): (v.out_port, v.out_vpi, v.out_vci) for v in asx.vcs}
    assert pvcs[("A4", 0, 210)] == ("B4", 0, 210) and pvcs[("B4", 0, 210)] == ("A4", 0, 210)
    assert ("A1", 0, 201) in pvcs and ("B1", 0, 201) in pvcs
    util = [asx.rx_rate(p.name) / p.max_cells for p in asx.ports]
    assert any(0.3 <= u <= 0.8 for u in util)
    assert len({v.rate for v in asx.vcs if v.rate}) == len([v for v in asx.vcs if v.rate])


def test_links_and_two_switch_path_consistent(net):
    asx, asxb, atm = net.switch("asx200bx"), net.switch("asx200bx-b"), net.switch("atm2sw")
    assert asx.tx_rate("A4") == asxb.rx_rate("A4") and asx.rx_rate("A4") == asxb.tx_rate("A4")
    assert asx.tx_rate("D1") == atm.in_cells(1)[0] and asx.rx_rate("D1") == atm.out_cells(1)[0]
    assert atm.iface(1).neighbor_ip == asx.mgmt_address and atm.iface(1).neighbor_ifname == "1D1"
    for path in net.pvc_paths:
        hops = path["hops"]
        for hop in hops:
            sw = net.switch(hop["switch"])
            vc = next(v for v in sw.vcs if [v.in_port, v.in_vpi, v.in_vci] == hop["in"])
            assert [vc.out_port, vc.out_vpi, vc.out_vci] == hop["out"]
            assert vc.rate == path["rate"]
        assert len({h["switch"] for h in hops}) == 2


def test_atm2_octets_are_cells_times_53(net):
    atm = net.switch("atm2sw")
    recs = rec.switch_records(atm)
    by = {(r.name, r.index): r for r in recs}
    for f in atm.interfaces:
        rate, init = atm.in_cells(f.ifindex)
        s = by[("ifInOctets", (f.ifindex,))].series
        assert (s.rate, s.initial) == (rate * 53, init * 53)
        h = by[("ifHCInOctets", (f.ifindex,))].series
        assert (h.rate, h.initial) == (rate * 53, init * 53)
        assert by[("ifType", (f.ifindex,))].value == 37
    for v in atm.vpls():
        inner = [c for c in atm.vcls() if (c.ifindex, c.vpi) == (v.ifindex, v.vpi)]
        assert v.in_rate >= sum(c.in_rate for c in inner)


def test_ipsw48_hc_and_32bit_agree(net):
    recs = rec.switch_records(net.switch("ipsw48"))
    by = {(r.name, r.index): r.series for r in recs if r.series}
    for i in range(1, 49):
        for n32, n64 in (("ifInOctets", "ifHCInOctets"), ("ifOutOctets", "ifHCOutOctets"),
                         ("ifInUcastPkts", "ifHCInUcastPkts")):
            a, b = by[(n32, (i,))], by[(n64, (i,))]
            assert a.rate == b.rate and a.initial == b.initial % 2 ** 32
    hc48 = by[("ifHCInOctets", (48,))]
    assert hc48.initial > 2 ** 64 - hc48.rate * 600
    assert sum(1 for (n, _), s in by.items() if n.startswith("ifHC") and s.initial > 2 ** 63) == 1
    assert any(s.rate >= 100_000_000 for (n, _), s in by.items() if n == "ifHCInOctets")


def test_float_error_bound_holds(net):
    """expected_value vs exact rational arithmetic stays within float_error_bound."""
    from fractions import Fraction
    rnd = random.Random(11)
    for sw in net.switches:
        for s in rec.series_entries(rec.switch_records(sw), T0):
            if not s["rate"]:
                continue
            for _ in range(5):
                t = T0 + rnd.uniform(0, 3 * 86400)
                exact = int(s["initial"] + Fraction(s["rate"]) * (Fraction(t) - T0)) % 2 ** s["width"]
                d = abs(mf.expected_value(s, T0, t) - exact)
                d = min(d, 2 ** s["width"] - d)
                assert d <= mf.float_error_bound(s, T0, t), (sw.name, s["object"], d)


def test_fresh_recording_starts_at_zero(net):
    for sw in net.switches:
        for r in rec.switch_records(sw, fresh=True):
            if r.series is not None:
                assert r.series.initial == 0, (sw.name, r.name)
            elif r.tag == TAG_TIMETICKS:
                assert r.value == 0, (sw.name, r.name)
