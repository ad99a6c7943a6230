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

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from collector.archive import ingest, writer
from collector.core.aio import run_async
from collector.core.detect import detect_profile
from collector.core.poll import PollResult, poll_switch
from collector.core.profiles import ProfileError, get_profile
from collector.core.readings import NOT_ANSWERED, summarize, summary_text
from collector.core.snmp_types import SnmpAuthError, SnmpError, SnmpTimeout
from collector.events import polled
from collector.inventory.models import Port, Switch
from collector.poller import metrics
from collector.poller.models import SwitchHealth

log = logging.getLogger(__name__)


@dataclass
class PollOutcome:
    switch: str
    status: str                  # ok | partial | timeout | unreachable | auth | error
    stored: str = ""             # written | duplicate | spooled
    result: PollResult | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "partial")


def classify(exc: BaseException) -> str:
    if isinstance(exc, SnmpAuthError):
        return "auth"
    if isinstance(exc, SnmpTimeout):
        return "timeout"
    if isinstance(exc, OSError):
        return "unreachable"
    return "error"


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
    cached = _expected.get(switch_id)
    if cached is not None and time.monotonic() - cached[0] < EXPECTED_TTL_S:
        return cached[1]
    try:
        keys = frozenset(Port.objects.filter(switch_id=switch_id, gone_at__isnull=True).values_list("key", flat=True))
    except ingest.DB_DOWN:
        return cached[1] if cached is not None else None
    value = {"port": keys} if keys else None
    _expected[switch_id] = (time.monotonic(), value)
    return value


def load_switch(switch_id: int) -> Switch:
    """The switch row; while the database is down, the copy this process read last.

    Polling must go on through a database outage (results are spooled), so the poller keeps
    the last configuration it saw instead of failing on the first query.
    """
    try:
        switch = Switch.objects.get(pk=switch_id)
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
    """Poll, store, and record the outcome. Never raises for agent-side faults."""
    switch = load_switch(switch_id)
    started = time.time()
    try:
        result = run_async(_poll(switch, expected_instances(switch.id)))
    except (SnmpError, ProfileError, OSError) as exc:
        outcome = PollOutcome(switch.name, classify(exc), error=str(exc))
        _record(switch, started, outcome, duration_ms=round((time.time() - started) * 1000), varbinds=0, samples=0)
        return outcome
    profile = get_profile(switch.effective_profile)
    required = [c.object for c in profile.counters if not c.optional]
    if result.missing_columns and len(result.missing_columns) == len(required):
        outcome = PollOutcome(switch.name, "error", result=result, error=(
            f"profile {profile.name} does not fit this agent: it answered none of {', '.join(required)}"))
        _record(switch, result.at, outcome, round(result.duration_s * 1000), result.varbinds, 0)
        return outcome
    # Partial: a column nobody answered, or values answered that could not be used. An interface
    # that answers no counter at all is counted in the notes but is the agent's normal state.
    unusable = any(not n.used and n.reason != NOT_ANSWERED for n in result.notes)
    status = "partial" if result.missing_columns or unusable else "ok"
    stored = ingest.ingest_or_spool(result, switch)
    _record_events(switch)
    notes = summarize(result.notes)
    errors = [f"not answered: {', '.join(result.missing_columns)}"] if result.missing_columns else []
    errors += [summary_text(notes)] if notes else []
    outcome = PollOutcome(switch.name, status, stored, result, "; ".join(errors))
    metrics.observe_notes(switch.name, result.notes)
    _record(switch, result.at, outcome, round(result.duration_s * 1000), result.varbinds, len(result.readings),
            notes)
    return outcome


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
