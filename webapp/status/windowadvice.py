"""TCP window advice for a pair of hosts (seed 002: window = rate x round-trip time). Pure.

The rate is the bottleneck of the VC path from the source to the destination: the lowest line
rate of any port the path crosses and the lowest bandwidth allocated to its endpoints, taken as
the AAL payload rate (48 of every 53 bytes), which is the most TCP can use. The round-trip time
is what the user enters (ping from one host to the other), else an estimate from Cellar's own
host checks, said as such: Cellar pings each host from where it runs, not one host from the other.
"""
from __future__ import annotations

from dataclasses import dataclass

from numerics.window import Advice, advise, payload_bps
from webapp.status.pathmodel import Trace

MAX_RTT_MS = 60_000.0


@dataclass(frozen=True)
class Bottleneck:
    cells_per_s: float
    what: str                 # "port asx-1 B1 line rate" / "allocated to asx-1 A4 0/210"


@dataclass(frozen=True)
class WindowAdvice:
    bottleneck: Bottleneck
    rtt_ms: float
    rtt_source: str
    advice: Advice


def bottleneck(trace: Trace, port_cells: dict[int, float]) -> Bottleneck | None:
    """Lowest line rate (port_cells: port id -> cells/s) and allocated bandwidth along the trace."""
    found: list[Bottleneck] = []
    for hop in trace.hops:
        for port in (hop.in_port, hop.out_port):
            rate = port_cells.get(port.id)
            if rate:
                found.append(Bottleneck(rate, f"line rate of {hop.switch.name} {port.name}"))
        if hop.alloc_bw:
            vc = f"{hop.in_vpi}/{hop.in_vci}" if hop.in_vci is not None else f"VP {hop.in_vpi}"
            found.append(Bottleneck(float(hop.alloc_bw), f"bandwidth allocated to {hop.switch.name} "
                                                          f"{hop.in_port.name} {vc}"))
    return min(found, key=lambda b: b.cells_per_s) if found else None


def parse_rtt_ms(text: str) -> float | None:
    """The RTT the user entered, in ms; ValueError with the accepted range."""
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"round-trip time {text!r} is not a number of milliseconds") from None
    if not 0 < value <= MAX_RTT_MS:
        raise ValueError(f"round-trip time {value:g} ms is outside (0, {MAX_RTT_MS:g}] ms")
    return value


def estimated_rtt(checks: dict[str, float | None]) -> tuple[float, str] | None:
    """From host checks (host name -> latest RTT ms): the larger one, said as an estimate."""
    known = {name: rtt for name, rtt in checks.items() if rtt}
    if not known:
        return None
    name, rtt = max(known.items(), key=lambda kv: kv[1])
    return rtt, (f"estimate: Cellar's host check of {name} (from the Cellar server, not from the other host); "
                 "enter the RTT measured between the hosts for exact advice")


def window_advice(trace: Trace, port_cells: dict[int, float], rtt_ms: float | None,
                  checks: dict[str, float | None]) -> WindowAdvice | None:
    neck = bottleneck(trace, port_cells)
    if neck is None:
        return None
    if rtt_ms is not None:
        rtt, source = rtt_ms, "entered"
    else:
        estimate = estimated_rtt(checks)
        if estimate is None:
            return None
        rtt, source = estimate
    return WindowAdvice(neck, rtt, source, advise(payload_bps(neck.cells_per_s), rtt / 1000))
