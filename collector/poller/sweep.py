"""Sweeping an address range for SNMP agents: only inside the allow-list, at a bounded rate.

A sweep probes each address of one network (at most CELLAR_SWEEP_MAX_ADDRESSES) with a GET of the
system group, trying the credentials in turn, never faster than CELLAR_SWEEP_RATE probes a second
(one probe = one datagram: a sweep runs with no retries). Only networks inside CELLAR_SWEEP_NETWORKS
may be swept; with it empty, sweeping is off. What answered is kept (SweepAnswer) and offered in
the candidates list; addresses that are switches already are not probed.
"""
from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Callable

from django.conf import settings
from django.utils import timezone

from collector.core.aio import run_async
from collector.core.snmp_types import SnmpError, SnmpRefused, SnmpUnreachable
from collector.inventory.models import Switch
from collector.poller import onboard
from collector.poller.models import NetworkJob, SweepAnswer

Step = Callable[[str, str], None]
PROBE_TIMEOUT_S = 1.0
IN_FLIGHT_MAX = 256
REPORT_EVERY_S = 2.0


class SweepRefused(Exception):
    """The range may not be swept; str() says why and what is allowed."""


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n, strict=False) for n in settings.CELLAR_SWEEP_NETWORKS]


def check_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """The network to sweep, if the allow-list holds it and it is small enough."""
    try:
        net = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise SweepRefused(f"{text!r} is not a network (write it as 192.0.2.0/24)") from None
    allow = allowed_networks()
    if not allow:
        raise SweepRefused("sweeping is off: list the networks that may be swept in CELLAR_SWEEP_NETWORKS")
    if not any(net.version == a.version and net.subnet_of(a) for a in allow):  # type: ignore[arg-type]
        raise SweepRefused(f"{net} is not inside the networks that may be swept "
                           f"({', '.join(map(str, allow))}: CELLAR_SWEEP_NETWORKS)")
    size = net.num_addresses - (2 if net.version == 4 and net.prefixlen < 31 else 0)
    if size > settings.CELLAR_SWEEP_MAX_ADDRESSES:
        raise SweepRefused(f"{net} holds {size} addresses; a sweep probes at most "
                           f"{settings.CELLAR_SWEEP_MAX_ADDRESSES} (CELLAR_SWEEP_MAX_ADDRESSES): sweep smaller ranges")
    return net


class Pacer:
    """One probe every 1/rate seconds, whoever asks."""

    def __init__(self, rate: float):
        self.gap = 1.0 / rate
        self.next_at = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        at = max(now, self.next_at)
        self.next_at = at + self.gap
        if at > now:
            await asyncio.sleep(at - now)


async def _probe(address: str, credentials: list[onboard.Credential], pacer: Pacer) -> tuple[str, dict] | None:
    """(credential label, system facts) of the first credential answering, or None."""
    for cred in credentials:
        await pacer.wait()
        try:
            return cred.label, await onboard.ask(cred.target(address, 161))
        except (SnmpUnreachable, SnmpRefused):
            return None                  # nothing there: other credentials would fare no better
        except SnmpError:
            continue
    return None


def run(job: NetworkJob, credentials: list[onboard.Credential], step: Step) -> dict:
    net = check_network(job.params["network"])
    rate = min(float(job.params.get("rate") or settings.CELLAR_SWEEP_RATE), settings.CELLAR_SWEEP_RATE)
    if not credentials:
        raise SweepRefused("no credentials to try: define site credential sets first")
    known = set(Switch.objects.values_list("address", flat=True))
    addresses = [str(a) for a in (net.hosts() if net.num_addresses > 1 else [net.network_address])]
    todo = [a for a in addresses if a not in known]
    step(f"sweeping {net}: {len(todo)} addresses ({len(addresses) - len(todo)} are switches already), "
         f"{len(credentials)} credential(s), at most {rate:g} probes/s", "info")
    found: dict[str, tuple[str, dict]] = {}
    pacer = Pacer(rate)

    async def probe_all(chunk: list[str]) -> None:
        gate = asyncio.Semaphore(IN_FLIGHT_MAX)

        async def one(address: str) -> None:
            async with gate:
                answer = await _probe(address, credentials, pacer)
            if answer is not None:
                found[address] = answer
        await asyncio.gather(*(one(a) for a in chunk))

    # In chunks of about REPORT_EVERY_S seconds of probes: progress is written between them, from
    # this thread (the database connection is this thread's).
    chunk = max(1, int(rate * REPORT_EVERY_S))
    for start in range(0, len(todo), chunk):
        run_async(probe_all(todo[start:start + chunk]))
        step(f"probed {min(start + chunk, len(todo))} of {len(todo)}, {len(found)} answered", "info")
    now = timezone.now()
    by_label = {c.label: c.fields.get("credential_set") for c in credentials}
    for address, (label, facts) in sorted(found.items(), key=lambda kv: ipaddress.ip_address(kv[0])):
        SweepAnswer.objects.update_or_create(poller_group=job.poller_group, address=address, defaults={
            "sys_name": str(facts.get("sysName") or "")[:255], "sys_descr": str(facts.get("sysDescr") or ""),
            "sys_object_id": str(facts.get("sysObjectID") or "")[:128], "credential_set": by_label.get(label),
            "job": job, "found_at": now})
        step(f"{address} answered ({label}): {facts.get('sysName') or '(no name)'}", "ok")
    step(f"swept {net}: {len(todo)} probed, {len(found)} answered", "ok")
    return {"network": str(net), "probed": len(todo), "answered": sorted(found)}
