"""Simulated devices with the quirks real agents have, built by code (snmprec for snmpsim).

Each is a small IF-MIB agent with moving counters at known rates, made to answer the way a real
device answered somebody (Cellar's real-agent suite, tests/integration/real_agents/):

- `dslam`: ifIndex values up to 4,160,777,152 (above 2**31: an int4 column cannot hold them);
- `wanrouter`: Gigabit ports with 64-bit counters, serial WAN links with only the 32-bit ones;
- `c64firewall`: the 32-bit ifInOctets/ifOutOctets columns answered with Counter64 values, some
  of them above 2**32, and no 64-bit columns at all;
- `dupnames`: two interfaces named "lo0" (ifName and ifDescr alike);
- `badvalues`: counters answered with a string, a negative integer, or a Counter32 in a 64-bit
  column, and one interface that answers no discards counter.

`QuirkDevice.expect` says, per OID, what Cellar must make of it (rate and width, or the reason it
is not used), so the tests compare the archive with the truth.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .replay import IF_TABLE, IF_X_TABLE, SYS_UPTIME, numeric, write_if_changed

SENTINEL = "1.3.6.1.4.1.32473.999.0|4|end-of-simnet-recording"
U32 = 2 ** 32


@dataclass
class Expect:
    """What Cellar must archive for one counter instance."""
    rate: int | None            # units/s, None: the value is not usable
    width: int | None = None    # 32 or 64: the counter width Cellar must use
    reason: str = ""            # why it is not used (when rate is None)


@dataclass
class QuirkDevice:
    name: str
    sys_descr: str
    lines: list[tuple[str, str]] = field(default_factory=list)    # (oid, "tag|value") unsorted
    expect: dict[str, Expect] = field(default_factory=dict)
    interfaces: dict[int, str] = field(default_factory=dict)       # ifIndex -> ifName

    def add(self, oid: str, tag_value: str) -> None:
        self.lines.append((oid, tag_value))

    def render(self) -> str:
        def key(item: tuple[str, str]) -> tuple[int, ...]:
            return tuple(int(x) for x in item[0].split("."))
        return "\n".join([f"{oid}|{tv}" for oid, tv in sorted(self.lines, key=key)] + [SENTINEL]) + "\n"

    def write(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.name}.snmprec"
        write_if_changed(path, self.render())
        return path


def _counter(dev: QuirkDevice, oid: str, tag: str, initial: int, rate: int, width: int, start_time: int) -> None:
    dev.add(oid, numeric(tag, initial, rate, start_time, 64 if tag == "70" else 32))
    dev.expect[oid] = Expect(rate, width)


def _interface(dev: QuirkDevice, if_index: int, name: str, speed_bps: int, start_time: int, *,
               hc: bool = True, low: bool = True, c64_low: bool = False, descr: str | None = None,
               low_initial: int = 1_000_000) -> None:
    """One interface: ifTable row (32-bit counters unless low=False), ifXTable row (64-bit
    counters unless hc=False). c64_low: the 32-bit octet columns answer Counter64 values."""
    i = str(if_index)
    dev.interfaces[if_index] = name
    # ifIndex is an Integer32 column: an index above 2**31 comes back negative (two's complement),
    # as such agents send it; Cellar reads the index from the OID, not from this column.
    dev.add(f"{IF_TABLE}1.{i}", f"2|{if_index - U32 if if_index >= 2**31 else if_index}")
    dev.add(f"{IF_TABLE}2.{i}", f"4|{descr or name}")
    dev.add(f"{IF_TABLE}3.{i}", "2|6")
    dev.add(f"{IF_TABLE}5.{i}", f"66|{min(speed_bps, U32 - 1)}")
    dev.add(f"{IF_TABLE}7.{i}", "2|1")
    dev.add(f"{IF_TABLE}8.{i}", "2|1")
    dev.add(f"{IF_X_TABLE}1.{i}", f"4|{name}")
    dev.add(f"{IF_X_TABLE}15.{i}", f"66|{speed_bps // 1_000_000}")
    octets = max(100, speed_bps // 8 // 50 + if_index % 997)       # 2 % of the line rate
    rates = {10: octets, 11: octets // 100 + 1, 16: octets // 2, 17: octets // 200 + 1}
    hc_col = {10: 6, 11: 7, 16: 10, 17: 11}
    for col, rate in rates.items():
        if hc:
            _counter(dev, f"{IF_X_TABLE}{hc_col[col]}.{i}", "70", 2**40 + if_index, rate, 64, start_time)
        if low:
            c64 = c64_low and col in (10, 16)
            initial = U32 + 5_000 * if_index if c64 and if_index % 2 else low_initial + if_index
            oid = f"{IF_TABLE}{col}.{i}"
            _counter(dev, oid, "70" if c64 else "65", initial, rate, 64 if c64 else 32, start_time)
            if hc:
                dev.expect[oid] = Expect(None, None, "the 64-bit column answers for this interface")
    for col in (13, 14, 19, 20):                 # discards and errors: 32-bit only, slow
        _counter(dev, f"{IF_TABLE}{col}.{i}", "65", 10 + if_index, 1 + if_index % 3, 32, start_time)


def _system(dev: QuirkDevice, sys_object_id: str, start_time: int) -> None:
    dev.add("1.3.6.1.2.1.1.1.0", f"4|{dev.sys_descr}")
    dev.add("1.3.6.1.2.1.1.2.0", f"6|{sys_object_id}")
    dev.add(SYS_UPTIME, numeric("67", 123_456, 100, start_time, 32))
    dev.add("1.3.6.1.2.1.1.5.0", f"4|{dev.name}.quirks.invalid")
    dev.add("1.3.6.1.2.1.2.1.0", "2|0")


def dslam(start_time: int) -> QuirkDevice:
    dev = QuirkDevice("dslam", "Simulated DSLAM: ifIndex above 2**31")
    _system(dev, "1.3.6.1.4.1.32473.7.1", start_time)
    for k in range(9):
        _interface(dev, 4_160_749_568 + 3448 * k, f"adsl-1/1/{k + 1}", 24_000_000, start_time)
    return dev


def wanrouter(start_time: int) -> QuirkDevice:
    dev = QuirkDevice("wanrouter", "Simulated router: 64-bit Gigabit ports, 32-bit-only serial links")
    _system(dev, "1.3.6.1.4.1.32473.7.2", start_time)
    for k in range(1, 5):
        _interface(dev, k, f"GigabitEthernet0/{k}", 1_000_000_000, start_time)
    for k in range(5, 7):
        _interface(dev, k, f"Serial0/0/{k - 5}", 2_048_000, start_time, hc=False)
    return dev


def c64firewall(start_time: int) -> QuirkDevice:
    dev = QuirkDevice("c64firewall", "Simulated firewall: Counter64 values in the 32-bit octet columns")
    _system(dev, "1.3.6.1.4.1.32473.7.3", start_time)
    for k in range(1, 5):
        _interface(dev, k, f"ethernet1/{k}", 1_000_000_000, start_time, hc=False, c64_low=True)
    return dev


def dupnames(start_time: int) -> QuirkDevice:
    dev = QuirkDevice("dupnames", "Simulated BSD router: two interfaces named lo0")
    _system(dev, "1.3.6.1.4.1.32473.7.4", start_time)
    for k, name in ((1, "lo0"), (2, "em0"), (16, "lo0"), (17, "em0.100")):
        _interface(dev, k, name, 100_000_000, start_time)
    return dev


def badvalues(start_time: int) -> QuirkDevice:
    dev = QuirkDevice("badvalues", "Simulated switch answering values its columns cannot hold")
    _system(dev, "1.3.6.1.4.1.32473.7.5", start_time)
    for k in range(1, 4):
        _interface(dev, k, f"port{k}", 100_000_000, start_time)
    # port1: ifInErrors as a string; port2: ifOutErrors as a negative Integer32; port3: no
    # ifInDiscards at all; port2's ifHCInOctets as a Counter32 (read as a 32-bit counter).
    for oid, tv, reason in ((f"{IF_TABLE}14.1", "4|n/a", "wrong type"),
                            (f"{IF_TABLE}20.2", "2|-5", "negative")):
        dev.lines = [(o, t) for o, t in dev.lines if o != oid]
        dev.add(oid, tv)
        dev.expect[oid] = Expect(None, None, reason)
    absent = f"{IF_TABLE}13.3"
    dev.lines = [(o, t) for o, t in dev.lines if o != absent]
    dev.expect[absent] = Expect(None, None, "not answered")
    hc32 = f"{IF_X_TABLE}6.2"
    rate = dev.expect[hc32].rate or 1
    dev.lines = [(o, t) for o, t in dev.lines if o != hc32]
    _counter(dev, hc32, "65", 7_000, rate, 32, start_time)
    return dev


DEVICES = (dslam, wanrouter, c64firewall, dupnames, badvalues)


def build_all(start_time: int) -> list[QuirkDevice]:
    return [make(start_time) for make in DEVICES]
