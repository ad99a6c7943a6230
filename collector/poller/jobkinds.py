"""What each kind of network job does (jobs.run calls these on the worker of the job's group).

Each takes the claimed job and a step reporter and returns the job's result (JSON); an EXPECTED
exception fails the job with its one line, anything else with its class and message.
"""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

from collector.inventory.models import CredentialSet, Host, Switch
from collector.poller import actions, onboard, reach, sweep
from collector.poller.models import NetworkJob

Step = Callable[[str, str], None]
EXPECTED = (onboard.AddFailed, reach.Elsewhere, sweep.SweepRefused, Switch.DoesNotExist, Host.DoesNotExist)


def check_switch(job: NetworkJob, step: Step) -> dict:
    switch = Switch.objects.get(pk=job.params["switch_id"])
    step(f"discovering {switch.name} at {switch.address}:{switch.snmp_port}", "info")
    try:
        report = actions.discover(switch.id)
        step(f"discovered: {report.summary()}", "ok" if report.complete else "fail")
    except actions.DISCOVERY_ERRORS as exc:
        step(f"discovery failed: {exc}", "fail")
    step("polling", "info")
    status = actions.poll(switch.id, without_lock_if_redis_down=True)
    health = getattr(Switch.objects.select_related("health").get(pk=switch.id), "health", None)
    detail = f": {health.last_error}" if health is not None and health.last_error and status not in ("ok",) else ""
    ok = status in ("ok", "partial", "skipped")
    step(f"poll: {status}{detail}" if status != "skipped" else
         "a scheduled poll of this switch was running; its result is on the switch page", "ok" if ok else "fail")
    return {"switch": switch.name, "poll": status}


def check_host(job: NetworkJob, step: Step) -> dict:
    host = Host.objects.get(pk=job.params["host_id"])
    step(f"checking {host.name} at {host.address}", "info")
    result = actions.check_host(host.id)
    if result.reachable:
        delay = f"{result.rtt_ms:.1f} ms" if result.rtt_ms is not None else "delay unknown"
        step(f"{host.name} is responding ({result.method}, {delay})", "ok")
    else:
        step(f"{host.name} is unreachable ({result.method}: {result.error or 'no answer'})", "fail")
    return {"host": host.name, "reachable": result.reachable, "method": result.method, "rtt_ms": result.rtt_ms}


def credentials_of(job: NetworkJob, timeout: float, retries: int) -> list[onboard.Credential]:
    """The typed credentials of the job, else the site credential sets it names (all: every set)."""
    if job.typed_credentials:
        return [onboard.typed({"snmp_version": job.snmp_version, "community": job.community, "v3_user": job.v3_user,
                               "auth_proto": job.auth_proto, "auth_key": job.auth_key, "priv_proto": job.priv_proto,
                               "priv_key": job.priv_key}, timeout, retries)]
    sets = CredentialSet.objects.all()
    chosen = job.params.get("credential_sets")
    if chosen:
        by_id = {s.id: s for s in sets.filter(id__in=chosen)}
        return onboard.from_sets([by_id[i] for i in chosen if i in by_id], timeout, retries)
    return onboard.from_sets(list(sets), timeout, retries)


def add_switch(job: NetworkJob, step: Step) -> dict:
    p = job.params
    timeout = float(p.get("timeout") or settings.CELLAR_SNMP_TIMEOUT)
    retries = int(p["retries"]) if p.get("retries") is not None else settings.CELLAR_SNMP_RETRIES
    req = onboard.AddRequest(
        address=p["address"], name=p.get("name", ""), port=int(p.get("port", 161)), poller_group=job.poller_group,
        interval=int(p.get("interval") or 0), profile=p.get("profile", "auto"), time_zone=p.get("time_zone", ""),
        timeout=timeout, retries=retries, credentials=credentials_of(job, timeout, retries))
    switch = onboard.add_switch(req, step)
    return {"switch": switch.name}


def run_sweep(job: NetworkJob, step: Step) -> dict:
    # One datagram a probe: no retries, so the rate limit counts every packet sent.
    return sweep.run(job, credentials_of(job, sweep.PROBE_TIMEOUT_S, 0), step)


RUN: dict[str, Callable[[NetworkJob, Step], dict]] = {
    NetworkJob.Kind.CHECK_SWITCH: check_switch, NetworkJob.Kind.CHECK_HOST: check_host,
    NetworkJob.Kind.ADD_SWITCH: add_switch, NetworkJob.Kind.SWEEP: run_sweep}
