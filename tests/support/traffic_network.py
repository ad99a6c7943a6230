"""A small ATM switch and an IP router with steady, known rates, rolled up: the traffic tests' data."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from tests.support import traffic_factory as f


@dataclass
class Net:
    switch: object
    port: object
    rx: object          # port receive cells, 100,000 cells/s
    tx: object          # port transmit cells, 50,000 cells/s
    vcs: list           # VC receive cells: 1,000 / 2,000 / 3,000 cells/s
    ip_switch: object
    ip_in: object       # IP interface octets in: 12,500,000 B/s = 100 Mb/s
    ip_pkts: object
    start: object
    end: object


RX, TX, VC_RATES, IP_BYTES = 100_000, 50_000, (1000, 2000, 3000), 12_500_000


def build_net(hours: float = 36, rollup: bool = True) -> Net:
    """36 h of 15 s polls, ending a minute ago, at exactly known rates (no rounding: 15 s x rate)."""
    from collector.archive import rollup as rollup_module

    now = rollup_module.db_now()
    end = now.replace(second=0, microsecond=0) - timedelta(minutes=1)
    start = end - timedelta(hours=hours)
    sw = f.switch("asx-1")
    p = f.port(sw, "A1", label="merlin-atm.edc")
    f.port(sw, "B2", capacity_cells=235_849, speed_bps=100_000_000)
    rx, tx = f.series(p, "in"), f.series(p, "out")
    vcs = [f.series(p, "in", channel=f.vc(p, 0, 100 + i)) for i in range(3)]
    lay = f.layout(sw, [rx, tx, *vcs])
    n = int((end - start).total_seconds() // 15)
    f.constant(sw, lay, start, n, 15, [RX, TX, *VC_RATES])
    ip = f.switch("router-1", profile="if-mib")
    eth = f.port(ip, "eth0", is_atm=False, capacity_cells=None, speed_bps=1_000_000_000)
    ip_in = f.series(eth, "in", metric="octets", unit="octets", width=64, capacity=125_000_000)
    ip_pkts = f.series(eth, "in", metric="ucast_pkts", unit="packets", width=64, capacity=1_953_125,
                       object_name="ifHCInUcastPkts")
    lay2 = f.layout(ip, [ip_in, ip_pkts])
    f.constant(ip, lay2, start, n, 15, [IP_BYTES, 1000])
    if rollup:
        rollup_module.run(budget_s=300)
    return Net(sw, p, rx, tx, vcs, ip, ip_in, ip_pkts, start, end)
