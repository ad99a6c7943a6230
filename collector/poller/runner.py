"""Poll one switch by id, end to end: shared by the Celery task, the CLI and "check now".

This is the seam between the ORM world (Switch rows, encrypted secrets) and the SNMP world
(collector.core, asyncio): it opens the switch's session, runs the poll in this thread's event
loop, stores the result through the archive's ingest, and records the outcome (poll log,
switch health, metrics) whatever happened.
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from collector.archive import ingest, writer
from collector.core import netns
from collector.core.aio import run_async
from collector.core.detect import detect_profile
from collector.core.poll import PollResult, poll_switch
from collector.core.profiles import ProfileError, get_profile
from collector.core.readings import NOT_ANSWERED, summarize, summary_text
from collector.core.snmp_types import SnmpError
from collector.events import polled
from collector.inventory.models import Port, Switch
from collector.poller import metrics, reach
from collector.poller.models import SwitchHealth

log = logging.getLogger(__name__)


@dataclass
class PollOutcome:
    switch: str
    status: str                  # ok | partial | one of FAILURES
    stored: str = ""             # written | duplicate | spooled
    result: PollResult | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "partial")


# A failed poll's status: what failed, in an operator's terms (the dashboard groups by it).
FAILURES = {"unreachable": "the network does not reach the agent from this poller",
            "refused": "the address answers, but no SNMP agent listens on the port",
            "timeout": "no answer: agent down, filtered, or credentials not accepted",
            "auth": "SNMPv3 credentials refused", "error": "the agent's answers could not be used"}


def classify(exc: BaseException) -> str:
    if isinstance(exc, SnmpError):
        cause = exc.cause
    elif isinstance(exc, OSError):
        cause = "unreachable"
    else:
        cause = "error"
    return cause if cause in FAILURES else "error"


def failure_text(switch: Switch, exc: BaseException) -> str:
    """The error as the poll log and the dashboard show it: where the poller stood, for faults of
    the network between it and the agent."""
    status = classify(exc)
    if status in ("unreachable", "refused"):
        return f"{exc} (from this poller: group {switch.poller_group}, network namespace {netns.describe()})"
    return str(exc)


async def _poll(switch: Switch, expected: dict[str, frozenset[str]] | None) -> PollResult:
    async with switch.snmp_session() as session:
        if switch.profile == "auto" and not switch.detected_profile:
            switch.detected_profile = await detect_profile(session)
            await asyncio.to_thread(
                Switch.objects.filter(pk=switch.pk).update, detected_profile=switch.detected_profile)
        profile = get_profile(switch.effective_profile)
        return await poll_switch(session, switch.id, profile, switch.snmp_version, expected)


_switches: dict[int, Switch] = {}
# The ports discovery found on each switch (keys of present ports), re-read at most every
# EXPECTED_TTL_S: which interfaces need their 32-bit fallback, and which answered nothing.
_expected: dict[int, tuple[float, dict[str, frozenset[str]] | None]] = {}
EXPECTED_TTL_S = 60.0


def forget_switches() -> None:
    """Drop the copies kept for database outages and the expected ports (a test's database is
    emptied under us; discovery calls forget_expected for its switch)."""
    _switches.clear()
    _expected.clear()


def forget_expected(switch_id: int) -> None:
    _expected.pop(switch_id, None)


def expected_instances(switch_id: int) -> dict[str, frozenset[str]] | None:
    """{"port": keys of the present ports} or None before the first discovery. Only ports: a VP
    or VC endpoint discovery knows may have no counter (FORE counts on the input side only)."""
    return expected_many([switch_id])[switch_id]


def expected_many(switch_ids: list[int]) -> dict[int, dict[str, frozenset[str]] | None]:
    """expected_instances of many switches; the ones not read for EXPECTED_TTL_S in one query (a
    slot's switches: one statement a slot, not one per switch and minute)."""
    now = time.monotonic()
    stale = [sid for sid in switch_ids
             if (cached := _expected.get(sid)) is None or now - cached[0] >= EXPECTED_TTL_S]
    if stale:
        keys: dict[int, set[str]] = {sid: set() for sid in stale}
        try:
            for sid, key in Port.objects.filter(switch_id__in=stale, gone_at__isnull=True).values_list(
                    "switch_id", "key"):
                keys[sid].add(key)
        except ingest.DB_DOWN:
            pass                                # the copies read last, or None
        else:
            for sid, found in keys.items():
                _expected[sid] = (now, {"port": frozenset(found)} if found else None)
    return {sid: cached[1] if (cached := _expected.get(sid)) is not None else None for sid in switch_ids}


def load_switch(switch_id: int) -> Switch:
    """The switch row; while the database is down, the copy this process read last.

    Polling must go on through a database outage (results are spooled), so the poller keeps
    the last configuration it saw instead of failing on the first query.
    """
    try:
        switch = Switch.objects.select_related("credential_set").get(pk=switch_id)
    except Switch.DoesNotExist:
        _switches.pop(switch_id, None)
        raise
    except ingest.DB_DOWN:
        if switch_id not in _switches:
            raise
        return _switches[switch_id]
    _switches[switch_id] = switch
    return switch


def poll_once(switch_id: int) -> PollOutcome:
    """Poll, store, and record the outcome. Never raises for agent-side faults; reach.Elsewhere
    when this process must not send the switch's packets."""
    switch = load_switch(switch_id)
    reach.check(switch.poller_group, f"switch {switch.name}")
    started = time.time()
    try:
        result: PollResult | BaseException = run_async(_poll(switch, expected_instances(switch.id)))
    except (SnmpError, ProfileError, OSError) as exc:
        result = exc
    return _finish(switch, started, result)


async def _poll_at(switch: Switch, expected: dict[str, frozenset[str]] | None, due: float
                   ) -> tuple[float, PollResult | BaseException]:
    """Wait for the switch's own slot, then poll it: (start time, result or the agent's error)."""
    wait = due - time.time()
    if wait > 0:
        await asyncio.sleep(wait)
    started = time.time()
    try:
        return started, await _poll(switch, expected)
    except (SnmpError, ProfileError, OSError) as exc:
        return started, exc


def poll_batch(due: dict[int, float]) -> dict[int, PollOutcome | None]:
    """Poll a batch of switches (one beat slot) in one event loop, each starting at its `due`
    time (Unix; a past one: at once), then store and record every outcome. None: the switch
    no longer exists. Never raises for agent-side faults.

    Concurrent in one loop, not one after the other: a switch that times out delays none of the
    others. Stored together: the samples in one COPY, the poll log and the health rows in one
    pipelined statement each: a slot of 140 switches costs a handful of round trips, not ~1,000
    (docs/benchmarks.md, figure 6)."""
    switches = load_switches(list(due))
    outcomes: dict[int, PollOutcome | None] = {sid: None for sid in due if sid not in switches}
    for sid, sw in list(switches.items()):
        if not reach.served_here(sw.poller_group):
            # Sent to the wrong queue (a worker started with another group's queue): not the
            # switch's fault, so nothing is recorded against it.
            log.warning("poll of %s skipped: its poller group %r is served from namespace %s, not here (%s)",
                        sw.name, sw.poller_group, reach.namespace_of(sw.poller_group), netns.describe())
            del switches[sid]
    expected = expected_many(list(switches))

    async def all_of_them() -> list[tuple[float, PollResult | BaseException]]:
        return await asyncio.gather(*(_poll_at(sw, expected[sid], due[sid]) for sid, sw in switches.items()))

    judged = [(switch, *_judge(switch, started, result))
              for switch, (started, result) in zip(switches.values(), run_async(all_of_them()))]
    stored = ingest.ingest_batch([(o.result, sw) for sw, o, _, store in judged if store and o.result is not None])
    records = []
    for switch, outcome, record, store in judged:
        if store:
            outcome.stored = stored.get(switch.id, "")
            _record_events(switch)
            if outcome.result is not None:
                metrics.observe_notes(switch.name, outcome.result.notes)
        records.append((switch, outcome, record))
        outcomes[switch.id] = outcome
    _record_batch(records)
    return outcomes


def load_switches(ids: list[int]) -> dict[int, Switch]:
    """load_switch for many ids in one query; a deleted switch is left out."""
    try:
        found = Switch.objects.select_related("credential_set").in_bulk(ids)
    except ingest.DB_DOWN:
        return {sid: _switches[sid] for sid in ids if sid in _switches}
    for sid in ids:
        if sid in found:
            _switches[sid] = found[sid]
        else:
            _switches.pop(sid, None)
    return {sid: found[sid] for sid in ids if sid in found}


@dataclass
class _Record:
    at: float
    duration_ms: int
    varbinds: int
    samples: int
    notes: dict | None = None


def _judge(switch: Switch, started: float, result: PollResult | BaseException) -> tuple[PollOutcome, _Record, bool]:
    """(the poll's outcome, what its record says, whether its samples are to be stored)."""
    if isinstance(result, BaseException):
        duration_ms = round((time.time() - started) * 1000)
        outcome = PollOutcome(switch.name, classify(result), error=failure_text(switch, result))
        return outcome, _Record(started, duration_ms, 0, 0), False
    profile = get_profile(switch.effective_profile)
    required = [c.object for c in profile.counters if not c.optional]
    duration_ms = round(result.duration_s * 1000)
    if result.missing_columns and len(result.missing_columns) == len(required):
        outcome = PollOutcome(switch.name, "error", result=result, error=(
            f"profile {profile.name} does not fit this agent: it answered none of {', '.join(required)}"))
        return outcome, _Record(result.at, duration_ms, result.varbinds, 0), False
    # Partial: a column nobody answered, or values answered that could not be used. An interface
    # that answers no counter at all is counted in the notes but is the agent's normal state.
    unusable = any(not n.used and n.reason != NOT_ANSWERED for n in result.notes)
    status = "partial" if result.missing_columns or unusable else "ok"
    notes = summarize(result.notes)
    errors = [f"not answered: {', '.join(result.missing_columns)}"] if result.missing_columns else []
    errors += [summary_text(notes)] if notes else []
    outcome = PollOutcome(switch.name, status, "", result, "; ".join(errors))
    return outcome, _Record(result.at, duration_ms, result.varbinds, len(result.readings), notes), True


def _finish(switch: Switch, started: float, result: PollResult | BaseException) -> PollOutcome:
    """Store a poll's samples and record its outcome (poll log, health, metrics)."""
    outcome, record, store = _judge(switch, started, result)
    if store and outcome.result is not None:
        outcome.stored = ingest.ingest_or_spool(outcome.result, switch)
        _record_events(switch)
        metrics.observe_notes(switch.name, outcome.result.notes)
    _record(switch, record.at, outcome, record.duration_ms, record.varbinds, record.samples, record.notes)
    return outcome


# The health row of a switch after a poll, for many switches in one pipelined statement: what
# _record does with get_or_create and an update of F() expressions, per switch.
HEALTH_UPSERT = """
INSERT INTO status_switchhealth AS h (switch_id, last_poll_at, last_success_at, last_status, last_duration_ms,
    last_varbinds, last_error, consecutive_failures, polls_ok, polls_failed)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (switch_id) DO UPDATE SET last_poll_at = excluded.last_poll_at,
    last_success_at = coalesce(excluded.last_success_at, h.last_success_at), last_status = excluded.last_status,
    last_duration_ms = excluded.last_duration_ms, last_varbinds = excluded.last_varbinds,
    last_error = excluded.last_error,
    consecutive_failures = CASE WHEN excluded.polls_ok > 0 THEN 0 ELSE h.consecutive_failures + 1 END,
    polls_ok = h.polls_ok + excluded.polls_ok, polls_failed = h.polls_failed + excluded.polls_failed"""


def _record_batch(records: list[tuple[Switch, PollOutcome, _Record]]) -> None:
    """_record for many polls: poll log and health rows in one transaction, two pipelined statements."""
    for switch, outcome, r in records:
        metrics.observe_poll(switch.name, outcome.status, r.duration_ms / 1000, r.varbinds, r.samples)
        if not outcome.ok:
            log.warning("poll %s: %s: %s", switch.name, outcome.status, outcome.error)
    now = timezone.now()
    try:
        with transaction.atomic(), connection.cursor() as cur:
            writer.write_poll_logs([writer.poll_log_params(sw.id, r.at, o.status, r.duration_ms, r.varbinds, r.samples,
                                                           o.error, r.notes) for sw, o, r in records])
            cur.executemany(HEALTH_UPSERT, [
                (sw.id, now, now if o.ok else None, o.status, r.duration_ms, r.varbinds, o.error[:2000],
                 0 if o.ok else 1, 1 if o.ok else 0, 0 if o.ok else 1) for sw, o, r in records])
    except ingest.DB_DOWN as exc:
        log.warning("%d polls: outcomes not recorded, database unavailable (%s)", len(records),
                    exc.__class__.__name__)
    except IntegrityError:            # a switch deleted during the slot: record the others one by one
        for sw, o, r in records:
            _record(sw, r.at, o, r.duration_ms, r.varbinds, r.samples, r.notes)


def _record_events(switch: Switch) -> None:
    """Reboots, discontinuities and wraps of the rows just stored become events (collector/events).
    Never fails the poll: the samples are stored, their flags say the same."""
    flagged = ingest.take_flagged(switch.id)
    if not flagged:
        return
    try:
        polled.record_rows(switch.id, flagged)
    except ingest.DB_DOWN as exc:
        log.warning("poll %s: events not recorded, database unavailable (%s)", switch.name, exc.__class__.__name__)


def _record(switch: Switch, at: float, outcome: PollOutcome, duration_ms: int, varbinds: int, samples: int,
            notes: dict | None = None) -> None:
    """Poll log, switch health, metrics. Skipped (logged) when the database is down: the samples
    themselves are spooled by ingest, the bookkeeping of an outage is not worth a spool."""
    metrics.observe_poll(switch.name, outcome.status, duration_ms / 1000, varbinds, samples)
    if not outcome.ok:
        log.warning("poll %s: %s: %s", switch.name, outcome.status, outcome.error)
    try:
        with transaction.atomic():
            writer.write_poll_log(switch.id, at, outcome.status, duration_ms, varbinds, samples, outcome.error,
                                  notes)
            now = timezone.now()
            health, _ = SwitchHealth.objects.get_or_create(switch=switch)
            fields = {"last_poll_at": now, "last_status": outcome.status, "last_duration_ms": duration_ms,
                      "last_varbinds": varbinds, "last_error": outcome.error[:2000]}
            if outcome.ok:
                fields.update(last_success_at=now, consecutive_failures=0, polls_ok=F("polls_ok") + 1)
            else:
                fields.update(consecutive_failures=F("consecutive_failures") + 1, polls_failed=F("polls_failed") + 1)
            SwitchHealth.objects.filter(pk=switch.pk).update(**fields)
    except ingest.DB_DOWN as exc:
        log.warning("poll %s: outcome not recorded, database unavailable (%s)", switch.name, exc.__class__.__name__)
