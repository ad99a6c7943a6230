"""A small network built by code, with stored polls, for the status pages' tests.

Two FORE-like switches joined by a trunk (fore-a A4 <-> fore-b A4), hosts alpha (fore-a A1),
beta (fore-a B4) and gamma (fore-b A1), a PVC alpha -> gamma whose VCI changes on the way
(0/100 -> 0/200 -> 0/300) and its return path, a PVC alpha -> ? that stops at fore-b (no
cross-connect there), an IP switch with a 64-bit counter near 2^64, host check history, and
secrets whose absence from every page the tests assert.
"""
from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.utils import timezone

from collector.archive.models import Layout, PollLog, Series
from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel, VirtualPath
from collector.poller.models import HostCheck, HostState, SwitchHealth

COMMUNITY = "s3cret-Community-Xyzzy"
AUTH_KEY = "authKey-Secret-4711"
PRIV_KEY = "privKey-Secret-0815"
SECRETS = (COMMUNITY, AUTH_KEY, PRIV_KEY)
UP_CS = ((10 * 24 + 6) * 60 + 26) * 60 * 100          # "up 10 days, 6:26"


def add_samples(switch: Switch, rows: list[tuple], series: list[Series]) -> Layout:
    """rows: (time, interval_ms, raws, deltas, flags) in the order of `series`."""
    ids = [s.id for s in series]
    layout = Layout.objects.create(switch=switch, series_ids=ids, digest=f"test-{switch.id}-{len(ids)}-{ids[0]}")
    with connection.cursor() as cur:
        for time, interval_ms, raws, deltas, flags in rows:
            cur.execute(
                "INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [time, UP_CS, switch.id, layout.id, interval_ms, raws, deltas, flags])
    return layout


def series(switch, obj, index, direction, metric="cells", unit="cells", port=None, vp=None, vc=None, width=32):
    return Series.objects.create(switch=switch, object_name=obj, index=index, kind="counter", port=port, vp=vp,
                                 vc=vc, direction=direction, metric=metric, unit=unit, width=width)


def build_network(extra_ports: int = 0, extra_hosts: int = 0, extra_vcs: int = 0) -> dict:
    now = timezone.now()
    common = dict(community=COMMUNITY, auth_key=AUTH_KEY, priv_key=PRIV_KEY, profile="fore-asx",
                  detected_profile="fore-asx", switch_type="ASX-200BX", software_version="3.0.1",
                  hardware_version="1.0", uptime_cs=UP_CS, uptime_at=now - timedelta(seconds=5),
                  discovered_at=now - timedelta(minutes=1), poll_interval_s=15)
    sa = Switch.objects.create(name="fore-a", address="192.0.2.101", sys_name="fore-a.example", port_count=5,
                               sys_descr="FORE Systems ASX-200BX", **common)
    sb = Switch.objects.create(name="fore-b", address="192.0.2.102", port_count=2, **common)
    ip = Switch.objects.create(name="ipsw", address="192.0.2.103", community=COMMUNITY, profile="if-mib",
                               detected_profile="if-mib", switch_type="Test IP switch", uptime_cs=1000,
                               uptime_at=now - timedelta(seconds=30), discovered_at=now - timedelta(minutes=1))
    st10 = now - timedelta(days=10, hours=6, minutes=27)

    def port(sw, key, name, label="", oper="up", ptype="OC3", cells=353207, **kw):
        defaults = dict(port_type=ptype, is_atm=True, speed_bps=155_520_000, capacity_cells=cells,
                        admin_status="up", oper_status=oper, status_since=st10, max_bw_in=cells,
                        alloc_bw_in=1000, max_bw_out=cells, alloc_bw_out=0)
        defaults.update(kw)
        return Port.objects.create(switch=sw, key=key, name=name, label=label, **defaults)

    a1 = port(sa, "0", "A1", "alpha-atm")
    a4 = port(sa, "3", "A4", "to fore-b")
    b4 = port(sa, "11", "B4", "beta", ptype="TAXI-100", cells=235849, speed_bps=100_000_000)
    c1 = port(sa, "16", "C1", "", oper="down", ptype="DS3", cells=96000, speed_bps=44_736_000)
    ctl = port(sa, "56", "CTL", "", ptype="CTL", cells=188679, speed_bps=80_000_000)
    for i in range(extra_ports):
        port(sa, str(100 + i), f"X{i}", f"extra-{i}")
    ba1 = port(sb, "0", "A1", "gamma-atm")
    ba4 = port(sb, "3", "A4", "")
    gi = Port.objects.create(switch=ip, key="1", if_index=1, name="Gi1/0/1", label="uplink", port_type="ethernet",
                             is_atm=False, speed_bps=1_000_000_000, admin_status="up", oper_status="up",
                             status_since=now - timedelta(hours=2))

    alpha = Host.objects.create(name="alpha.example", address="127.0.0.1", description="the alpha host")
    beta = Host.objects.create(name="beta.example", address="192.0.2.12")
    gamma = Host.objects.create(name="gamma.example", address="192.0.2.13")
    delta = Host.objects.create(name="delta.example", address="192.0.2.250", description="unreachable one")
    for i in range(extra_hosts):
        Host.objects.create(name=f"extra-{i}.example", address=f"198.51.100.{i + 1}")
    Link.objects.create(a_port=a1, b_host=alpha, source="manual")
    Link.objects.create(a_port=b4, b_host=beta, source="manual")
    Link.objects.create(a_port=ba1, b_host=gamma, source="manual")
    trunk = Link.objects.create(a_port=a4, b_port=ba4, source="manual", note="trunk")

    def vc(p, vpi, vci, **kw):
        kw = {"service_category": "UBR", "status": "up", "up_since": now - timedelta(days=3), **kw}
        return VirtualChannel.objects.create(switch=p.switch, port=p, vpi=vpi, vci=vci, **kw)

    def xc(sw, i, ivpi, ivci, o, ovpi, ovci, name, status="up"):
        return CrossConnect.objects.create(switch=sw, kind="vc", in_port=i, in_vpi=ivpi, in_vci=ivci, out_port=o,
                                           out_vpi=ovpi, out_vci=ovci, name=name, status=status,
                                           up_since=now - timedelta(days=3))

    v_a1_100 = vc(a1, 0, 100, alloc_bw=2000)
    vc(a4, 0, 200)
    v_a4_201 = vc(a4, 0, 201)
    vc(a1, 0, 101)
    vc(a1, 0, 110)
    vc(a4, 0, 210)
    v_b_a4_200 = vc(ba4, 0, 200)
    vc(ba1, 0, 300)
    vc(ba1, 0, 401)
    vc(ba4, 0, 201)
    vc(a1, 0, 16, service_category="CBR")
    vc(a4, 0, 5, service_category="CBR")          # signalling: terminates on the switch
    vc(ctl, 0, 66, service_category="CBR")
    xc(sa, a1, 0, 100, a4, 0, 200, "alpha->gamma")
    xc(sb, ba4, 0, 200, ba1, 0, 300, "alpha->gamma")
    xc(sb, ba1, 0, 401, ba4, 0, 201, "gamma->alpha")
    xc(sa, a4, 0, 201, a1, 0, 101, "gamma->alpha")
    xc(sa, a1, 0, 110, a4, 0, 210, "alpha->nowhere")
    xc(sa, a1, 0, 16, ctl, 0, 66, "ilmi A1")
    xc(sa, c1, 0, 60, a4, 0, 60, "c1 dead", status="down")
    for i in range(extra_vcs):
        vc(a1, 1, 1000 + i)
        vc(a4, 1, 1000 + i)
        xc(sa, a1, 1, 1000 + i, a4, 1, 1000 + i, f"bulk {i}")
    vp0 = VirtualPath.objects.create(switch=sa, port=a1, vpi=0, status="up")
    VirtualPath.objects.filter(pk=vp0.pk).update(first_seen=now - timedelta(days=6))
    old = VirtualPath.objects.create(switch=sa, port=a1, vpi=5, status="up")
    VirtualPath.objects.filter(pk=old.pk).update(first_seen=now - timedelta(days=5), gone_at=now - timedelta(days=2))
    VirtualPath.objects.create(switch=sa, port=a4, vpi=0, status="up")

    # Stored polls: fore-a at t0 (first), t1, t2 (15 s apart).
    t0, t1, t2 = now - timedelta(seconds=35), now - timedelta(seconds=20), now - timedelta(seconds=5)
    s_a1_in = series(sa, "portReceivedCells", "0", "in", port=a1)
    s_a1_out = series(sa, "portTransmittedCells", "0", "out", port=a1)
    s_a4_in = series(sa, "portReceivedCells", "3", "in", port=a4)
    s_a4_out = series(sa, "portTransmittedCells", "3", "out", port=a4)
    s_vc100 = series(sa, "chanCells", "0.0.100", "in", port=a1, vc=v_a1_100)
    s_vc201 = series(sa, "chanCells", "3.0.201", "in", port=a4, vc=v_a4_201)
    order = [s_a1_in, s_a1_out, s_a4_in, s_a4_out, s_vc100, s_vc201]
    add_samples(sa, [
        (t0, None, [68_000_000, 78_000_000, 1000, 2000, 5_000_000, 100], [None] * 6, [32] * 6),
        # A4 in: an over-capacity delta (kept, not traffic): excluded from totals
        (t1, 15000, [68_015_000, 78_030_000, 900_000_000, 2300, 5_012_000, 400],
         [15000, 30000, 899_999_000, 300, 12000, 300], [0, 0, 8, 0, 0, 0]),
        # A4 in withheld on the latest poll (agent rebooted): no rate, says why
        (t2, 15000, [68_030_000, 78_060_000, 50, 2600, 5_024_000, 700],
         [15000, 30000, None, 300, 12000, 300], [0, 0, 2, 0, 0, 0]),
    ], order)
    s_b_vc = series(sb, "chanCells", "3.0.200", "in", port=ba4, vc=v_b_a4_200)
    add_samples(sb, [(t1, None, [1_000_000], [None], [32]), (t2, 15000, [1_011_970], [11970], [0])], [s_b_vc])
    s_gi_in = series(ip, "ifHCInOctets", "1", "in", "octets", "octets", port=gi, width=64)
    s_gi_out = series(ip, "ifHCOutOctets", "1", "out", "octets", "octets", port=gi, width=64)
    # ifHCInOctets close to 2**64: stored as two's complement (negative bigint)
    add_samples(ip, [(t1, None, [-1_875_000_005, 10], [None, None], [32, 32]),
                     (t2, 15000, [-5, 10 + 15_000_000], [1_875_000_000, 15_000_000], [0, 0])], [s_gi_in, s_gi_out])

    SwitchHealth.objects.create(switch=sa, last_poll_at=t2, last_success_at=t2, last_status="ok",
                                last_duration_ms=123, last_varbinds=103, polls_ok=3)
    SwitchHealth.objects.create(switch=sb, last_poll_at=now, last_success_at=t2, last_status="timeout",
                                last_duration_ms=2000, last_error="no answer from 192.0.2.102 after 2 tries",
                                consecutive_failures=3, polls_ok=2, polls_failed=3)
    for t, status in ((t0, "ok"), (t1, "ok"), (t2, "ok")):
        PollLog.objects.create(switch_id=sa.id, time=t, status=status, duration_ms=100, varbinds=103, samples=6)

    HostState.objects.create(host=alpha, reachable=True, rtt_ms=0.5, method="icmp", checked_at=now,
                             last_seen_at=now)
    HostState.objects.create(host=delta, reachable=False, method="icmp", checked_at=now,
                             last_seen_at=now - timedelta(hours=3), error="no echo reply")
    HostState.objects.create(host=beta, reachable=True, rtt_ms=172.0, method="tcp", checked_at=now, last_seen_at=now)
    for i in range(40):
        HostCheck.objects.create(host_id=alpha.id, time=now - timedelta(minutes=30 * i), reachable=i % 7 != 3,
                                 rtt_ms=0.4 + i / 100 if i % 7 != 3 else None, method="icmp")
        HostCheck.objects.create(host_id=delta.id, time=now - timedelta(minutes=30 * i), reachable=i > 6,
                                 rtt_ms=10.0 if i > 6 else None, method="icmp")
    return {"now": now, "sa": sa, "sb": sb, "ip": ip, "a1": a1, "a4": a4, "b4": b4, "c1": c1, "ba1": ba1,
            "ba4": ba4, "gi": gi, "alpha": alpha, "beta": beta, "gamma": gamma, "delta": delta, "trunk": trunk}


def grow(net: dict, n: int, tag: str) -> None:
    """Add n ports (with counters), n hosts attached to them, n PVCs and a newer poll covering
    everything: a page's query count must not change."""
    sa = net["sa"]
    now = timezone.now()
    ports, hosts, new_series = [], [], []
    for i in range(n):
        p = Port.objects.create(switch=sa, key=f"{tag}{i}", name=f"{tag}{i}", label=f"{tag}-host-{i}", is_atm=True,
                                port_type="OC3", oper_status="up", admin_status="up", capacity_cells=353207,
                                status_since=now)
        h = Host.objects.create(name=f"{tag}-host-{i}.example", address=f"198.18.{len(tag)}.{i + 1}")
        HostState.objects.create(host=h, reachable=True, rtt_ms=1.0, method="icmp", checked_at=now, last_seen_at=now)
        HostCheck.objects.create(host_id=h.id, time=now, reachable=True, rtt_ms=1.0, method="icmp")
        Link.objects.create(a_port=p, b_host=h)
        v_in = VirtualChannel.objects.create(switch=sa, port=p, vpi=0, vci=500 + i, status="up")
        VirtualChannel.objects.create(switch=sa, port=net["a4"], vpi=2, vci=500 + i + 100 * len(tag), status="up")
        CrossConnect.objects.create(switch=sa, kind="vc", in_port=p, in_vpi=0, in_vci=500 + i, out_port=net["a4"],
                                    out_vpi=2, out_vci=500 + i + 100 * len(tag), status="up")
        VirtualPath.objects.create(switch=sa, port=p, vpi=0, status="up")
        new_series += [series(sa, "portReceivedCells", p.key, "in", port=p),
                       series(sa, "portTransmittedCells", p.key, "out", port=p),
                       series(sa, "chanCells", f"{p.key}.0.{500 + i}", "in", port=p, vc=v_in)]
        ports.append(p)
        hosts.append(h)
    everything = list(Series.objects.filter(switch=sa).order_by("id"))
    k = len(everything)
    add_samples(sa, [(now, 15000, [1000] * k, [150] * k, [0] * k)], everything)
