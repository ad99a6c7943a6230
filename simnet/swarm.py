"""A swarm of simulated switches in one asyncio process: cheap enough to play 100,000 ports.

`python -m simnet.swarm --bind 127.0.0.1 --port 16100` serves, on one UDP socket, every switch
of two kinds, told apart by the community the manager sends:

- `ip48`: an IP switch of 48 interfaces (IF-MIB ifTable/ifXTable: what profile if-mib walks
  and what its discovery reads);
- `atm<N>` (e.g. `atm1000`): an ATM switch (profile atm2) of 16 ports carrying N VCs over
  4 VPs a port: IF-MIB ports, ATM-MIB VP/VC configuration, ATM2-MIB per-VP/VC cell counts and
  CISCO-AAL5-MIB 64-bit per-VC octets.

net-snmp or snmpsim cost one process (and ~1 % of a core) per switch: 2,000 of them would need
more than the machine. Here every switch of a kind answers the same values at the same
second (counter = rate x seconds since start, each interface or VC at its own rate), so an
answer is encoded once per second per distinct request and reused for every switch that asks
it in that second: about 1,000 requests a second cost a few % of a core. Many switches sharing
a community is what a real network with one read community per site looks like to the poller.

Each switch is still a switch to the poller: its own inventory row, its own walks, GETBULK
answers cut at MAX_RESPONSE octets as net-snmp does. What it is not: per-switch values (every
switch of a kind counts alike), SET, SNMPv3, traps.
"""
from __future__ import annotations

import argparse
import asyncio
import bisect
import signal
import time
from collections.abc import Callable

from collector.core import snmp_codec as codec

MAX_RESPONSE = 8000          # octets of a GETBULK answer at most (a jumbo-free UDP datagram)
MAX_REPETITIONS = 250
IP_PORTS = 48
ATM_PORTS = 16
ATM_VPS_PER_PORT = 4
COUNTER32, COUNTER64 = 2**32, 2**64
# Every value of a kind: (raw OID as a tuple, value at time t) in OID order; the value is
# (tag, int or bytes) where ints of counter tags are taken modulo their width.
Value = Callable[[float], bytes]


def _static(tag: int, value: object) -> Value:
    encoded = codec.encode_value(tag, value)
    return lambda t: encoded


def _counter(tag: int, rate: float, base: int) -> Value:
    width = COUNTER64 if tag == 0x46 else COUNTER32
    return lambda t: codec.encode_value(tag, (base + int(rate * t)) % width)


def _uptime() -> Value:
    return lambda t: codec.encode_value(0x43, int(t * 100) % COUNTER32)


SYS = "1.3.6.1.2.1.1"
IF = "1.3.6.1.2.1.2.2.1"
IFX = "1.3.6.1.2.1.31.1.1.1"
ATM_IF = "1.3.6.1.2.1.37.1.2.1"
ATM_VPL = "1.3.6.1.2.1.37.1.6.1"
ATM_VCL = "1.3.6.1.2.1.37.1.7.1"
VPL_STAT = "1.3.6.1.2.1.37.1.14.1.9.1"
VCL_STAT = "1.3.6.1.2.1.37.1.14.1.11.1"
AAL5_HC = "1.3.6.1.4.1.9.9.66.1.1.1.1"


def port_rate(if_index: int) -> float:
    """Octets per second of interface `if_index` (in; out is half of it): known to the tests."""
    return 1000.0 * if_index


def vc_rate(k: int) -> float:
    """Cells per second of the k-th VC (0-based; in; out is half of it)."""
    return 10.0 + k % 50


def _interfaces(mib: dict, n: int, descr: str, speed_mbps: int) -> None:
    for i in range(1, n + 1):
        rate = port_rate(i)
        mib[f"{IF}.1.{i}"] = _static(0x02, i)
        mib[f"{IF}.2.{i}"] = _static(0x04, f"{descr} {i}".encode())
        mib[f"{IF}.3.{i}"] = _static(0x02, 37 if descr == "atm" else 6)
        mib[f"{IF}.5.{i}"] = _static(0x42, min(speed_mbps * 1_000_000, COUNTER32 - 1))
        mib[f"{IF}.7.{i}"] = _static(0x02, 1)
        mib[f"{IF}.8.{i}"] = _static(0x02, 1)
        mib[f"{IF}.9.{i}"] = _static(0x43, 0)
        for col, r in ((10, rate), (11, rate / 100), (13, 0), (14, 0), (16, rate / 2), (17, rate / 200),
                       (19, 0), (20, 0)):
            mib[f"{IF}.{col}.{i}"] = _counter(0x41, r, 1000 * i)
        mib[f"{IFX}.1.{i}"] = _static(0x04, f"{descr}{i}".encode())
        for col, r in ((6, rate), (7, rate / 100), (10, rate / 2), (11, rate / 200)):
            mib[f"{IFX}.{col}.{i}"] = _counter(0x46, r, 1000 * i)
        mib[f"{IFX}.15.{i}"] = _static(0x42, speed_mbps)
        mib[f"{IFX}.18.{i}"] = _static(0x04, b"")
        mib[f"{IFX}.19.{i}"] = _static(0x43, 0)


def _system(mib: dict, descr: str, object_id: str) -> None:
    mib[f"{SYS}.1.0"] = _static(0x04, descr.encode())
    mib[f"{SYS}.2.0"] = _static(0x06, object_id)
    mib[f"{SYS}.3.0"] = _uptime()
    mib[f"{SYS}.5.0"] = _static(0x04, b"swarm")


def ip_switch() -> dict[str, Value]:
    mib: dict[str, Value] = {}
    _system(mib, "Cellar swarm IP switch, 48 ports", "1.3.6.1.4.1.8072.3.2.10")
    _interfaces(mib, IP_PORTS, "port", 1000)
    return mib


def atm_vcs(n_vcs: int) -> list[tuple[int, int, int]]:
    """(ifIndex, VPI, VCI) of the n VCs of an `atm<n>` switch, in creation order."""
    out = []
    for k in range(n_vcs):
        port = 1 + k % ATM_PORTS
        slot = k // ATM_PORTS
        out.append((port, 1 + slot % ATM_VPS_PER_PORT, 32 + slot // ATM_VPS_PER_PORT))
    return out


def atm_switch(n_vcs: int) -> dict[str, Value]:
    mib: dict[str, Value] = {}
    _system(mib, f"Cellar swarm ATM switch, {ATM_PORTS} ports, {n_vcs} VCs", "1.3.6.1.4.1.8072.3.2.10")
    _interfaces(mib, ATM_PORTS, "atm", 155)
    for i in range(1, ATM_PORTS + 1):
        mib[f"{ATM_IF}.1.{i}"] = _static(0x02, 256)
        mib[f"{ATM_IF}.2.{i}"] = _static(0x02, 4096)
    vps: dict[tuple[int, int], float] = {}
    for k, (port, vpi, vci) in enumerate(atm_vcs(n_vcs)):
        idx = f"{port}.{vpi}.{vci}"
        rate = vc_rate(k)
        vps[(port, vpi)] = vps.get((port, vpi), 0.0) + rate
        mib[f"{ATM_VCL}.4.{idx}"] = _static(0x02, 1)
        mib[f"{ATM_VCL}.8.{idx}"] = _static(0x02, 5)
        mib[f"{VCL_STAT}.1.{idx}"] = _counter(0x41, rate, k)
        mib[f"{VCL_STAT}.3.{idx}"] = _counter(0x41, 0, 0)
        mib[f"{VCL_STAT}.5.{idx}"] = _counter(0x41, rate / 2, k)
        mib[f"{AAL5_HC}.11.{idx}"] = _counter(0x46, rate * 48, k)
        mib[f"{AAL5_HC}.12.{idx}"] = _counter(0x46, rate * 24, k)
    for (port, vpi), rate in vps.items():
        idx = f"{port}.{vpi}"
        mib[f"{ATM_VPL}.3.{idx}"] = _static(0x02, 1)
        mib[f"{VPL_STAT}.1.{idx}"] = _counter(0x41, rate, 0)
        mib[f"{VPL_STAT}.3.{idx}"] = _counter(0x41, 0, 0)
        mib[f"{VPL_STAT}.5.{idx}"] = _counter(0x41, rate / 2, 0)
    return mib


class Kind:
    """One kind of switch: its objects in OID order, and answers cached for the current second."""

    def __init__(self, mib: dict[str, Value]):
        items = sorted((codec.raw_to_oid(codec.oid_to_raw(o)), codec.oid_to_raw(o), v) for o, v in mib.items())
        self.keys = [k for k, _, _ in items]
        self.raws = [r for _, r, _ in items]
        self.values = [v for _, _, v in items]
        self.index = {r: i for i, r in enumerate(self.raws)}
        self.cache: dict[tuple, tuple[int, int, bytes]] = {}
        self.cache_second = -1

    def after(self, raw: bytes) -> int:
        """Position of the first object after `raw` (len(keys) at the end of the MIB)."""
        return bisect.bisect_right(self.keys, codec.raw_to_oid(raw))

    def answer(self, version: int, pdu_type: int, names: tuple[bytes, ...], nonrep: int, reps: int, t: float
               ) -> tuple[int, int, bytes]:
        """(error status, error index, varbind list TLV), the same for every switch of the kind
        within one second."""
        second = int(t)
        if second != self.cache_second:
            self.cache.clear()
            self.cache_second = second
        key = (version, pdu_type, names, nonrep, reps)
        got = self.cache.get(key)
        if got is None:
            got = self.cache[key] = self._answer(version == 0, pdu_type, names, nonrep, reps, float(second))
        return got

    def _next(self, raw: bytes, v1: bool, t: float) -> tuple[int, bytes | None]:
        """(position, encoded varbind) of the first object after `raw` (None past the end); SNMPv1
        has no Counter64, so its walks step over the 64-bit columns."""
        i = self.after(raw)
        while i < len(self.raws):
            value = self.values[i](t)
            if not (v1 and value[0] == 0x46):
                return i, codec.encode_varbind(self.raws[i], value)
            i += 1
        return i, None

    def _answer(self, v1: bool, pdu_type: int, names: tuple[bytes, ...], nonrep: int, reps: int, t: float
                ) -> tuple[int, int, bytes]:
        out: list[bytes] = []
        missing = 0                                             # 1-based index of the first v1 failure
        if pdu_type == codec.GET:
            for k, n in enumerate(names):
                i = self.index.get(n)
                value = None if i is None else self.values[i](t)
                if value is None or (v1 and value[0] == 0x46):
                    missing = missing or k + 1
                    value = b"\x81\x00"
                out.append(codec.encode_varbind(n, value))
        elif pdu_type == codec.GETNEXT:
            for k, n in enumerate(names):
                _, vb = self._next(n, v1, t)
                if vb is None:
                    missing = missing or k + 1
                out.append(vb or codec.encode_varbind(n, b"\x82\x00"))
        else:                                                   # GETBULK (v2c only)
            size = 0
            for n in names[:nonrep]:
                out.append(self._next(n, False, t)[1] or codec.encode_varbind(n, b"\x82\x00"))
            last = list(names[nonrep:])              # an exhausted column repeats its last name
            for _ in range(min(reps, MAX_REPETITIONS) if last else 0):
                row, ended = [], 0
                for c, n in enumerate(last):
                    i, vb = self._next(n, False, t)
                    if vb is None:
                        row.append(codec.encode_varbind(n, b"\x82\x00"))
                        ended += 1
                    else:
                        row.append(vb)
                        last[c] = self.raws[i]
                size += sum(map(len, row))
                if size > MAX_RESPONSE and out:
                    break                                   # cut as net-snmp does: the manager asks again
                out += row
                if ended == len(last):
                    break
        if v1 and missing:                                  # v1: noSuchName, the request's varbinds echoed
            return 2, missing, codec.encode_varbind_list([codec.encode_varbind(n, b"\x05\x00") for n in names])
        return 0, 0, codec.encode_varbind_list(out)


def kind_for(community: bytes, kinds: dict[bytes, Kind]) -> Kind | None:
    """The kind a community names: b"ip48", or b"atm<N>" (N VCs, made on first use)."""
    kind = kinds.get(community)
    if kind is None and community.startswith(b"atm") and community[3:].isdigit() and 0 < int(community[3:]) <= 20000:
        kind = kinds[community] = Kind(atm_switch(int(community[3:])))
    return kind


class SwarmProtocol(asyncio.DatagramProtocol):
    def __init__(self, start: float):
        self.start = start
        self.kinds: dict[bytes, Kind] = {b"ip48": Kind(ip_switch())}
        self.transport: asyncio.DatagramTransport | None = None
        self.requests = 0

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        try:
            req = codec.decode_message(data)
        except codec.CodecError:
            return
        kind = kind_for(req.community, self.kinds)
        if kind is None or req.version not in (0, 1) or req.pdu_type not in (codec.GET, codec.GETNEXT, codec.GETBULK):
            return                      # an unknown community gets silence, as from a real agent
        if req.version == 0 and req.pdu_type == codec.GETBULK:
            return
        self.requests += 1
        names = tuple(n for n, _ in req.varbinds)
        nonrep, reps = max(0, req.error_status), max(0, req.error_index)     # GETBULK's header fields
        status, index, vbl = kind.answer(req.version, req.pdu_type, names, nonrep, reps, time.time() - self.start)
        assert self.transport is not None
        self.transport.sendto(codec.encode_message_around(req.version, req.community, codec.RESPONSE,
                                                          req.request_id, status, index, vbl), addr)


async def serve(bind: str, port: int, ready: Callable[[int], None] | None = None) -> None:
    loop = asyncio.get_running_loop()
    transport, proto = await loop.create_datagram_endpoint(lambda: SwarmProtocol(time.time() - 86400.0),
                                                           local_addr=(bind, port))
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if ready:
        ready(transport.get_extra_info("sockname")[1])
    try:
        await stop.wait()
    finally:
        transport.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m simnet.swarm", description=__doc__.split("\n\n")[0])
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="UDP port (0: any free one, printed on stdout)")
    args = p.parse_args(argv)
    asyncio.run(serve(args.bind, args.port, lambda port: print(f"swarm listening on {args.bind}:{port}",
                                                                flush=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
