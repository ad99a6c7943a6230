"""Real agent, known traffic: the volume Cellar archives for a veth equals what iperf3 sent.

Topology (everything created here and removed at the end, even on failure):

    root namespace                 namespace A                         namespace B
    test process  --- clNNN <-> uplink [snmpd]  tob  <== iperf3 ==>  toa  iperf3 -s
                   169.254.213.x/30              10.213.0.1/30        10.213.0.2/30

net-snmp's snmpd runs inside A and reports A's interfaces; Cellar (add_switch, discover,
poll_once) reaches it over the root<->A veth. Between two polls iperf3 sends a known number
of TCP payload bytes from A to B across tob, and the archived ifHCOutOctets delta of tob
must match that payload plus the per-frame headers within 2 %.

Why GSO is off on tob/toa: a veth counts each skb it hands to its peer; with GSO a ~64 KB
TCP super-packet passes (and is counted) once with one set of headers, so the counters
would not be what an Ethernet port carries. With gso_max_segs 1 the kernel segments to
MTU-sized frames first, and the counters count real frames: 14 bytes Ethernet header + IP +
TCP headers + payload per segment (Linux counts no preamble and no FCS).
"""
from __future__ import annotations

import io
import json
import math

import pytest
from django.core.management import call_command

from collector.archive.models import Layout, Sample, Series
from collector.core.facts import Flag
from collector.inventory.models import Port, Switch
from collector.poller import runner
from simnet import netns
from tests.support.snmpd_lab import (
    B_ADDR,
    COMMUNITY,
    IPERF3,
    IPERF_PORT,
    MTU,
    SNMP_PORT,
    agent_hc_out_octets,
    iperf_server,
    snmpd_lab,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.netns]

PAYLOAD = 200 * 1024 * 1024        # bytes iperf3 sends (-n)
ETH_HEADER = 14
POLL_INTERVAL_S = 20               # nominal: the two polls ~10 s apart must not be flagged GAP


def _at(row, series: Series, ids: list[int]) -> tuple[int | None, int | None, int]:
    pos = ids.index(series.id)
    return row.raw[pos], row.delta[pos], row.flags[pos]


def test_archived_veth_octets_match_iperf3_volume(tmp_path):
    with snmpd_lab(tmp_path) as env:
        a, agent_addr = env.a, env.agent_addr
        # -- Cellar: add, discover ------------------------------------------------------------
        call_command("add_switch", "--no-check", "iperf-sw", agent_addr, "--port", str(SNMP_PORT), "--community",
                     COMMUNITY, "--profile", "if-mib", "--interval", str(POLL_INTERVAL_S), "--timeout", "2",
                     "--retries", "1", stdout=io.StringIO())
        switch = Switch.objects.get(name="iperf-sw")
        call_command("discover", switch.name, stdout=io.StringIO())
        names = sorted(Port.objects.filter(switch=switch).values_list("name", flat=True))
        assert names == ["lo", "tob", "uplink"], names
        port = Port.objects.get(switch=switch, name="tob")
        assert port.oper_status == "up"
        assert port.if_index is not None

        # -- poll, known traffic, poll ---------------------------------------------------------
        k1 = a.dev_counters("tob")
        first = runner.poll_once(switch.id)
        assert first.status == "ok" and first.stored == "written", (first.status, first.error)

        server = iperf_server(env)
        client = a.run([IPERF3, "-c", B_ADDR, "-p", str(IPERF_PORT), "-n", str(PAYLOAD), "-w", "128K", "-J",
                        "--connect-timeout", "5000"], timeout=60, check=False)
        report = json.loads(client.stdout or "{}")
        assert client.returncode == 0 and "error" not in report, (client.returncode, report.get("error"), client.stderr)
        server.wait(10)

        # net-snmp caches interface statistics for a few seconds: wait (bounded) until the
        # agent answers what A's kernel counts now, so the second poll reads the final value.
        agent_now: list[int | None] = [None]

        def agent_caught_up() -> bool:
            agent_now[0] = agent_hc_out_octets(agent_addr, port.if_index)
            return agent_now[0] == a.dev_counters("tob")["tx_bytes"]

        try:
            netns.wait_until(agent_caught_up, timeout=15, interval=0.5, what="snmpd's interface cache")
        except netns.NetnsError as exc:
            pytest.fail(f"{exc}: agent says {agent_now[0]}, kernel {a.dev_counters('tob')}")
        second = runner.poll_once(switch.id)
        assert second.status == "ok" and second.stored == "written", (second.status, second.error)
        k2 = a.dev_counters("tob")

    # -- what Cellar archived --------------------------------------------------------------------
    rows = list(Sample.objects.filter(switch_id=switch.id).order_by("time"))
    assert len(rows) == 2
    ids = Layout.objects.get(pk=rows[1].layout_id).series_ids
    series = {s.object_name: s for s in Series.objects.filter(switch=switch, index=port.key)}
    out_oct, out_pkt = series["ifHCOutOctets"], series["ifHCOutUcastPkts"]
    in_oct, in_pkt = series["ifHCInOctets"], series["ifHCInUcastPkts"]
    assert (out_oct.port_id, out_oct.direction, out_oct.unit, out_oct.width) == (port.id, "out", "octets", 64)
    if port.speed_bps:   # a veth reports 10 Gb/s (ifHighSpeed 10000)
        assert out_oct.capacity_per_s == port.speed_bps // 8

    archived = {}
    for s in (out_oct, out_pkt, in_oct, in_pkt):
        raw0, delta0, flags0 = _at(rows[0], s, ids)
        raw1, delta1, flags1 = _at(rows[1], s, ids)
        assert flags0 == Flag.FIRST and delta0 is None, (s.object_name, Flag(flags0))
        assert flags1 == 0, f"{s.object_name}: flags {Flag(flags1)!r} (interval {rows[1].interval_ms} ms)"
        assert delta1 == raw1 - raw0, s.object_name
        archived[s.object_name] = delta1

    # Cellar archived exactly what A's kernel counted on tob (nothing else crossed it).
    kernel = {"ifHCOutOctets": k2["tx_bytes"] - k1["tx_bytes"], "ifHCOutUcastPkts": k2["tx_packets"] - k1["tx_packets"],
              "ifHCInOctets": k2["rx_bytes"] - k1["rx_bytes"], "ifHCInUcastPkts": k2["rx_packets"] - k1["rx_packets"]}
    assert archived == kernel

    # -- against iperf3's own count -----------------------------------------------------------------
    sent = report["end"]["sum_sent"]
    payload = sent["bytes"]
    retransmits = sent.get("retransmits", 0)
    mss = report["start"].get("tcp_mss_default") or MTU - 52
    header = ETH_HEADER + MTU - mss                 # Ethernet 14 + IP 20 + TCP 20 + options (12: timestamps)
    segments = math.ceil(payload / mss)
    expected = payload + segments * header + retransmits * (mss + header)
    ratio = archived["ifHCOutOctets"] / expected
    summary = (f"iperf3 payload {payload} B in {sent['seconds']:.2f} s, mss {mss}, {retransmits} retransmits -> "
               f"expected {expected} B on the wire in {segments + retransmits} frames; archived "
               f"{archived['ifHCOutOctets']} B in {archived['ifHCOutUcastPkts']} frames; ratio {ratio:.5f}; "
               f"ACK side {archived['ifHCInOctets']} B in {archived['ifHCInUcastPkts']} frames")
    print(summary)
    assert abs(ratio - 1) <= 0.02, summary
    assert abs(archived["ifHCOutUcastPkts"] / (segments + retransmits) - 1) <= 0.02, summary
    # The reverse direction carries B's ACKs: header-sized frames (SACK options add a little).
    assert archived["ifHCInUcastPkts"] > 0
    assert header - 10 <= archived["ifHCInOctets"] / archived["ifHCInUcastPkts"] <= header + 40, summary

    # -- the rate derived from the stored interval is plausible ----------------------------------------
    interval_s = rows[1].interval_ms / 1000
    assert abs(interval_s - (second.result.at - first.result.at)) < 0.01
    assert interval_s <= 1.5 * POLL_INTERVAL_S
    rate = archived["ifHCOutOctets"] / interval_s    # octets/s averaged over the poll interval
    iperf_wire_rate = sent["bits_per_second"] / 8 * (1 + header / mss)
    assert expected / interval_s * 0.98 <= rate <= iperf_wire_rate * 1.05, (rate, iperf_wire_rate, summary)
    if port.speed_bps:
        assert rate <= port.speed_bps / 8
