"""Adding a switch by its address, in one step: the credentials that answer, the profile, the
inventory row, discovery and link inference, and the first poll, each step reported as it happens.

Nothing is half-stored: the switch row is written only once an agent answered with one of the
credentials tried, and it is deleted again when its discovery fails. The CLI (add_switch) runs
this in its own process when the switch's poller group is served there, else as a job of the
group's worker (jobs.py); the web always goes through a job.
"""
from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from collector.core import netns
from collector.core.aio import run_async
from collector.core.detect import detect_profile
from collector.core.profiles import ProfileError, object_by_name
from collector.core.snmp import SnmpSession
from collector.core.snmp_types import SnmpError, SnmpRefused, SnmpTarget, SnmpUnreachable, credentials_text
from collector.inventory.models import CredentialSet, Switch
from collector.poller import actions, reach

log = logging.getLogger(__name__)
Step = Callable[[str, str], None]          # (text, state: ok | fail | info)
SYSTEM = ("sysName", "sysObjectID", "sysDescr", "sysUpTime")


class AddFailed(Exception):
    """The switch was not added; str() is the one line to show (nothing was stored)."""


@dataclass
class Credential:
    """One way to speak to the agent: a site credential set, or credentials typed for this switch."""
    label: str
    fields: dict                       # what the switch stores (snmp_version, community, ...)
    target: Callable[[str, int], SnmpTarget]


@dataclass
class AddRequest:
    address: str
    name: str = ""                     # empty: the agent's sysName
    port: int = 161
    poller_group: str = "default"
    interval: int = 0                  # 0: CELLAR_DEFAULT_POLL_INTERVAL
    profile: str = "auto"
    time_zone: str = ""
    timeout: float = 0.0               # 0: CELLAR_SNMP_TIMEOUT
    retries: int = -1                  # -1: CELLAR_SNMP_RETRIES
    credentials: list[Credential] = field(default_factory=list)


@dataclass
class Answer:
    credential: Credential
    facts: dict                        # sysName, sysObjectID, sysDescr, sysUpTime as answered


def from_sets(sets: list[CredentialSet], timeout: float, retries: int) -> list[Credential]:
    return [Credential(f"credential set {s.name!r}", s.credentials(),
                       partial(s.snmp_target, timeout=timeout, retries=retries)) for s in sets]


def typed(fields: dict, timeout: float, retries: int) -> Credential:
    """Credentials typed for this switch (snmp_version, community or the v3 user and keys)."""
    def target(host: str, port: int) -> SnmpTarget:
        return SnmpTarget(host=host, port=port, version=fields["snmp_version"],
                          community=str(fields.get("community", "")),
                          v3_user=fields.get("v3_user", ""), auth_proto=fields.get("auth_proto", ""),
                          auth_key=str(fields.get("auth_key", "")), priv_proto=fields.get("priv_proto", ""),
                          priv_key=str(fields.get("priv_key", "")), timeout=timeout, retries=retries,
                          credentials="the credentials given")
    label = credentials_text(target("", 161)).replace(" from the credentials given", "") + " (given)"
    return Credential(label, {**fields, "credential_set": None}, target)


def check_address(address: str) -> str:
    """The address as stored: an IP address, or a host name that resolves here."""
    address = address.strip()
    if not address:
        raise AddFailed("no address given")
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        pass
    try:
        socket.getaddrinfo(address, None, type=socket.SOCK_DGRAM)
    except (OSError, UnicodeError) as exc:
        raise AddFailed(f"{address!r} is neither an IP address nor a host name that resolves here ({exc})") from None
    return address


def check_duplicates(address: str, port: int, name: str) -> None:
    same = Switch.objects.filter(address=address, snmp_port=port).values_list("name", flat=True).first()
    if same is not None:
        raise AddFailed(f"switch {same!r} already has the address {address}:{port}")
    if name and Switch.objects.filter(name=name).exists():
        raise AddFailed(f"a switch named {name!r} already exists; give another name")


async def ask(target: SnmpTarget) -> dict:
    """The agent's system group (sysName, sysObjectID, sysDescr, sysUpTime), strings decoded."""
    oids = {object_by_name(n).instance_oid: n for n in SYSTEM}
    async with SnmpSession(target, backend=settings.CELLAR_SNMP_BACKEND) as session:
        got = await session.get(list(oids))
    return {oids[o]: (v.decode("utf-8", "replace") if isinstance(v, bytes) else v) for o, v in got.items()}


def find_credentials(address: str, port: int, credentials: list[Credential], step: Step) -> Answer:
    """The first credential the agent answers. A fault of the network (unreachable, refused) ends the
    search at once: no other credential would fare better."""
    if not credentials:
        raise AddFailed("no credentials to try: give a community or v3 user, or define site credential sets "
                        "(manage.py credentials add, or the admin)")
    failures = []
    for cred in credentials:
        step(f"trying {cred.label} on {address}:{port}", "info")
        try:
            facts = run_async(ask(cred.target(address, port)))
        except (SnmpUnreachable, SnmpRefused) as exc:
            step(str(exc), "fail")
            raise AddFailed(f"{exc} (from this poller, network namespace {netns.describe()})") from None
        except SnmpError as exc:
            step(f"{cred.label}: {exc.cause}: {exc}", "fail")
            failures.append(f"{cred.label}: {exc.cause}")
            continue
        step(f"{cred.label} answered: sysName {facts.get('sysName') or '(empty)'}, "
             f"sysObjectID {facts.get('sysObjectID') or '?'}", "ok")
        return Answer(cred, facts)
    raise AddFailed(f"no credentials answered at {address}:{port}: " + "; ".join(failures))


def _switch_name(req: AddRequest, facts: dict, address: str) -> str:
    name = (req.name or str(facts.get("sysName") or "")).strip()[:100] or address
    if Switch.objects.filter(name=name).exists():
        other = Switch.objects.filter(name=name).values_list("address", flat=True).first()
        raise AddFailed(f"a switch named {name!r} already exists (at {other}); give this one a name")
    return name


def _detect(answer: Answer, address: str, port: int, step: Step) -> str:
    async def detect() -> str:
        async with SnmpSession(answer.credential.target(address, port), backend=settings.CELLAR_SNMP_BACKEND) as s:
            return await detect_profile(s)
    try:
        found = run_async(detect())
    except (SnmpError, ProfileError) as exc:
        raise AddFailed(f"no profile fits the agent at {address}: {exc}") from None
    step(f"profile {found}", "ok")
    return found


def add_switch(req: AddRequest, step: Step) -> Switch:
    """Add the switch and bring it under polling; AddFailed (nothing stored) when it cannot be."""
    reach.check(req.poller_group, f"a switch of group {req.poller_group!r}")
    address = check_address(req.address)
    check_duplicates(address, req.port, req.name.strip())
    answer = find_credentials(address, req.port, req.credentials, step)
    name = _switch_name(req, answer.facts, address)
    detected = _detect(answer, address, req.port, step) if req.profile == "auto" else ""
    switch = Switch(
        name=name, address=address, snmp_port=req.port, profile=req.profile, detected_profile=detected,
        poll_interval_s=req.interval or settings.CELLAR_DEFAULT_POLL_INTERVAL, poller_group=req.poller_group,
        time_zone=req.time_zone, timeout_s=req.timeout or settings.CELLAR_SNMP_TIMEOUT,
        retries=settings.CELLAR_SNMP_RETRIES if req.retries < 0 else req.retries, **answer.credential.fields)
    try:
        switch.full_clean()
    except ValidationError as exc:
        raise AddFailed("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
    with transaction.atomic():
        check_duplicates(address, req.port, name)
        switch.save()
    step(f"stored as {name} (poller group {req.poller_group}, every {switch.poll_interval_s} s)", "ok")
    try:
        report = actions.discover(switch.id)
    except BaseException as exc:
        # Nothing half-stored: without its discovery the switch is not added.
        switch.delete()
        if isinstance(exc, (*actions.DISCOVERY_ERRORS, reach.Elsewhere)):
            raise AddFailed(f"discovery of {name} failed, nothing kept: {exc}") from None
        raise
    step(f"discovered: {report.summary()}", "ok" if report.complete else "fail")
    step(f"link inference: {actions.infer_links().summary()}", "info")
    status = actions.poll(switch.id, without_lock_if_redis_down=True)
    step(f"first poll: {status}", "ok" if status in ("ok", "partial") else "fail")
    return switch
