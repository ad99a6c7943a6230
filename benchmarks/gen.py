"""Realistic sample rows, made by Cellar's own code (series, layout, derivation, writer).

A simulated switch's counters (simnet's model: which objects, indexes, widths, nominal rates and
initial values) advance poll by poll with traffic that varies like real traffic: a daily cycle
(30 %..100 % of the nominal rate), per-poll lognormal noise (sigma 0.35) and idle ports, so the
deltas have realistic digits and the arrays compress like real ones, neither better (constant
rates) nor worse (random bits). Counter32 columns wrap as they do on the device.

Rows are derived with the poller's own RowPlan (collector/poll.py) against the previous row, and
the switch's series and layout are created by collector/ingest.resolve_plan from a first poll, as
the worker does.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simnet import recording as rec
from simnet.network import build_network
from simnet.records import SYNTAX, oid_s

if TYPE_CHECKING:
    from collector.core.rows import PreviousRow, RowPlan

DAY = 86400.0
# "realistic": the traffic above; "constant": every counter at its nominal rate, as simnet.swarm's
# counters advance (base + rate x t), the deltas varying only with the poll clock's jitter.
TRAFFIC = ("realistic", "constant")


@dataclass
class SimCounter:
    key: tuple[str, str]      # (profile object, index string)
    width: int
    rate: float               # nominal units/s
    value: int


def counters_of(switch_name: str, sw=None) -> tuple[str, list[SimCounter], list[tuple[str, str]]]:
    """(profile, counters, discontinuity keys) of a simnet switch as Cellar's profile polls it."""
    from collector.core.profiles import get_profile

    sw = sw or build_network().switch(switch_name)
    profile = get_profile(sw.profile)
    wanted = {c.object for c in profile.counters}
    out, disc = [], []
    for r in rec.switch_records(sw):
        idx = oid_s(r.index)
        if r.name in wanted and r.series is not None:
            width = SYNTAX[r.tag][1]
            out.append(SimCounter((r.name, idx), width, float(r.series.rate), r.series.initial % (1 << width)))
        elif profile.row_discontinuity and r.name == profile.row_discontinuity:
            disc.append((r.name, idx))
    if profile.reset_time:
        disc.append((profile.reset_time, "0"))
    return sw.profile, out, disc


class Generator:
    """PollResults of one switch every `interval` seconds from `start`, and their sample rows."""

    def __init__(self, switch, profile: str, counters: list[SimCounter], disc: list[tuple[str, str]],
                 start: float, interval: float = 15.0, seed: int = 1, traffic: str = "realistic"):
        self.switch = switch
        self.profile = profile
        self.counters = counters
        self.disc = disc
        self.t = self.start = start
        self.interval = interval
        self.rng = random.Random(seed)
        self.uptime_cs = 100 * 86400 * 20
        self.plan: RowPlan | None = None          # made with the first row (it creates the series)
        self.prev: PreviousRow | None = None
        # idle share: a third of the ports of a real switch carry (almost) nothing
        self.active = [self.rng.random() > 0.3 or c.rate == 0 for c in counters]
        if traffic not in TRAFFIC:
            raise ValueError(f"traffic {traffic!r}: one of {', '.join(TRAFFIC)}")
        self.traffic = traffic
        self.base = [c.value for c in counters]

    def _result(self):
        from collector.core.poll import PollResult
        from collector.core.readings import CounterReading

        rng = self.rng
        day = 0.65 + 0.35 * math.sin(2 * math.pi * (self.t % DAY) / DAY)
        readings = {}
        for c, active, base in zip(self.counters, self.active, self.base):
            if self.traffic == "constant":          # simnet.swarm's counters: base + rate x t
                c.value = (base + int(c.rate * (self.t - self.start))) % (1 << c.width)
            elif c.rate:
                lam = c.rate * self.interval * day * (1.0 if active else 0.002)
                inc = int(lam * rng.lognormvariate(-0.06, 0.35))
                c.value = (c.value + inc) % (1 << c.width)
            readings[c.key] = CounterReading(c.value, c.width)
        disc = {k: 0 for k in self.disc}
        return PollResult(self.switch.id, self.t, self.uptime_cs, readings, disc, varbinds=len(readings))

    @property
    def series_ids(self) -> list[int]:
        """The series of the rows, in their order (known once the first row is made)."""
        if self.plan is None:
            raise RuntimeError("no row made yet: the first row creates the series")
        return self.plan.series_ids

    def next_row(self):
        """The next poll's SampleRow (the first one also creates series and layout)."""
        from collector.archive import ingest
        from collector.core.rows import PreviousRow

        result = self._result()
        if self.plan is None:
            self.plan = ingest.resolve_plan(self.switch, self.profile, result)
        row = self.plan.build(result, self.prev, self.interval)
        self.prev = PreviousRow(row.at, row.uptime_cs, None, row.layout_id, self.plan.series_ids, row.raw)
        self.t += self.interval + self.rng.uniform(-0.05, 0.05)
        self.uptime_cs += int(self.interval * 100)
        return row

    def rows(self, n: int):
        return [self.next_row() for _ in range(n)]


def make_switch(name: str, profile: str, port: int = 161):
    from collector.inventory.models import Switch

    sw, _ = Switch.objects.get_or_create(name=name, defaults={
        "address": "127.0.0.1", "snmp_port": port, "community": "bench", "profile": profile,
        "poll_interval_s": 15, "enabled": False})
    return sw


def ip_network(prefix: str, n_switches: int, per_switch: int, enabled: bool = True) -> list:
    """n_switches IF-MIB switches named PREFIX-0000 ..., each with per_switch / 2 gigabit ports and
    their in and out octet counters (64-bit): the inventory of the figures that build an archive
    without polling one. The switches, in name order."""
    from collector.archive.models import Series
    from collector.inventory.models import Port, Switch

    Switch.objects.bulk_create([Switch(name=f"{prefix}-{i:04d}", address="127.0.0.1", community="bench",
                                       profile="if-mib", poll_interval_s=15, enabled=enabled)
                                for i in range(n_switches)])
    switches = list(Switch.objects.filter(name__startswith=f"{prefix}-").order_by("name"))
    Port.objects.bulk_create([Port(switch=sw, key=str(i), if_index=i, name=f"Gi1/0/{i}", is_atm=False,
                                   port_type="ethernet", speed_bps=1_000_000_000, oper_status="up")
                              for sw in switches for i in range(1, per_switch // 2 + 1)], batch_size=5000)
    ports = {(p.switch_id, p.key): p.id for p in Port.objects.filter(switch__in=switches).only("id", "switch", "key")}
    Series.objects.bulk_create([
        Series(switch=sw, port_id=ports[(sw.id, str(k // 2 + 1))], object_name="ifHCInOctets" if k % 2
               else "ifHCOutOctets", index=str(k // 2 + 1), kind="counter", direction="in" if k % 2 else "out",
               metric="octets", unit="octets", width=64, capacity_per_s=125_000_000)
        for sw in switches for k in range(per_switch)], batch_size=5000)
    return switches


def generator(name: str, simnet_switch: str, start: float, seed: int = 1, sw=None,
              traffic: str = "realistic") -> Generator:
    profile, counters, disc = counters_of(simnet_switch, sw)
    switch = make_switch(name, profile)
    return Generator(switch, profile, counters, disc, start, seed=seed, traffic=traffic)
