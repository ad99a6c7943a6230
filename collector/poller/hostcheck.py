"""Host reachability for the status pages: ICMP echo, falling back to TCP connect, then SNMP.

ICMP uses Debian's `ping` (setuid-free: it has the cap_net_raw capability or we are root).
A refused TCP connection counts as reachable: the host itself answered with a reset. SNMP is
tried only when a switch in the inventory has the host's address.

A check that changes what is known of the host (unknown or responding -> unreachable, unreachable
-> responding) is recorded as a `host_state` event (collector/events); a check that confirms the
state records none, and neither does a host's first check that finds it responding (nothing
happened).
"""
from __future__ import annotations

import logging
import re
import socket
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from collector.core.aio import run_async
from collector.core.snmp_types import SnmpError
from collector.events.record import record_event
from collector.inventory.models import Host, Switch
from collector.poller import reach
from collector.poller.models import HostCheck, HostState

log = logging.getLogger(__name__)
TIMEOUT_S = 2.0
_RTT = re.compile(rb"time[=<]([0-9.]+) ?ms")


@dataclass
class CheckResult:
    reachable: bool
    rtt_ms: float | None
    method: str
    error: str = ""


def check_icmp(address: str, timeout: float = TIMEOUT_S) -> CheckResult:
    try:
        proc = subprocess.run(["ping", "-n", "-c", "1", "-W", str(max(1, round(timeout))), address],
                              capture_output=True, timeout=timeout + 2)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CheckResult(False, None, "icmp", f"ping failed: {exc.__class__.__name__}")
    match = _RTT.search(proc.stdout)
    if proc.returncode == 0 and match:
        return CheckResult(True, float(match.group(1)), "icmp")
    detail = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()
    return CheckResult(False, None, "icmp", detail[-1][:200] if detail else "no echo reply")


def check_tcp(address: str, port: int, timeout: float = TIMEOUT_S) -> CheckResult:
    started = time.perf_counter()
    try:
        with socket.create_connection((address, port), timeout=timeout):
            pass
    except ConnectionRefusedError:
        pass  # the host answered (RST): it is up, the port is just closed
    except OSError as exc:
        return CheckResult(False, None, "tcp", f"tcp/{port}: {exc.__class__.__name__}")
    return CheckResult(True, (time.perf_counter() - started) * 1000, "tcp")


def check_snmp(address: str, group: str = "default") -> CheckResult | None:
    switch = Switch.objects.select_related("credential_set").filter(address=address, poller_group=group).first()
    if switch is None:
        return None

    async def ask() -> float:
        started = time.perf_counter()
        async with switch.snmp_session() as session:
            await session.get(["1.3.6.1.2.1.1.3.0"])
        return (time.perf_counter() - started) * 1000

    try:
        return CheckResult(True, run_async(ask()), "snmp")
    except SnmpError as exc:
        return CheckResult(False, None, "snmp", str(exc)[:200])


def check(host: Host) -> CheckResult:
    if host.check_method == "tcp":
        return check_tcp(host.address, host.tcp_port)
    if host.check_method == "snmp":
        return check_snmp(host.address, host.poller_group) or CheckResult(
            False, None, "snmp", "no switch with this address in the host's poller group")
    result = check_icmp(host.address)
    if result.reachable or host.check_method == "icmp":
        return result
    tcp = check_tcp(host.address, host.tcp_port)
    if tcp.reachable:
        return tcp
    return check_snmp(host.address, host.poller_group) or result


def _word(reachable: bool | None) -> str | None:
    return None if reachable is None else "up" if reachable else "down"


def record_change(host: Host, before: bool | None, result: CheckResult, at: datetime) -> None:
    """The event of a check that changed the host's state (nothing when it did not)."""
    if result.reachable == before or (before is None and result.reachable):
        return
    if result.reachable:
        delay = f", {result.rtt_ms:.1f} ms" if result.rtt_ms is not None else ""
        message = f"host {host.name} responding again ({result.method}{delay})"
    else:
        message = f"host {host.name} unreachable ({result.method}: {result.error or 'no answer'})"
    record_event("host_state", at=at, host_id=host.id, message=message, source="check",
                 data={"from": _word(before), "to": _word(result.reachable), "method": result.method,
                       "error": result.error[:255]})


def check_and_record(host_id: int) -> CheckResult:
    host = Host.objects.get(pk=host_id)
    reach.check(host.poller_group, f"host {host.name}")
    result = check(host)
    now = timezone.now()
    with transaction.atomic():
        HostCheck.objects.create(host_id=host.id, time=now, reachable=result.reachable, rtt_ms=result.rtt_ms,
                                 method=result.method, error=result.error[:255])
        # Locked: two checks of one host at once (beat and "check now") see each other's state,
        # so a change is recorded once.
        state, _ = HostState.objects.select_for_update().get_or_create(host=host)
        before = state.reachable
        state.reachable, state.rtt_ms, state.method = result.reachable, result.rtt_ms, result.method
        state.checked_at, state.error = now, result.error[:255]
        if result.reachable:
            state.last_seen_at = now
        state.save()
        record_change(host, before, result, now)
    return result
