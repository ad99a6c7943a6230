"""One poll of one switch: profile + SNMP session -> a PollResult; PollResult + previous row -> a sample row.

`poll_switch` is the only async/I-O part here; everything after the varbinds arrive is pure:
`readings_from_walk` turns walked columns into keyed counter readings and `build_row` derives
deltas and flags (collector/counters.py) against the previous stored row of the switch.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

from collector import counters
from collector.counters import CounterSpec, Flag
from collector.profiles import Profile, object_by_name
from collector.snmp import SnmpSession, Value

SeriesKey = tuple[str, str]          # (profile counter object name, dotted index)


@dataclass(slots=True)
class CounterReading:
    value: int
    width: int                       # 32 or 64: what the agent answered (64-bit or its fallback)


@dataclass(slots=True)
class PollResult:
    """What one poll read, before any derivation (this is what the spool keeps)."""
    switch_id: int
    at: float                        # wall clock at the middle of the poll, seconds since the epoch
    uptime_cs: int | None
    readings: dict[SeriesKey, CounterReading]
    discontinuity: dict[SeriesKey, int]   # reset-time series: switch-wide ("...ResetTime", "0") or per index
    varbinds: int = 0
    duration_s: float = 0.0
    missing_columns: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "switch_id": self.switch_id, "at": self.at, "uptime_cs": self.uptime_cs,
            "readings": [[k[0], k[1], r.value, r.width] for k, r in self.readings.items()],
            "discontinuity": [[k[0], k[1], v] for k, v in self.discontinuity.items()],
            "varbinds": self.varbinds, "duration_s": self.duration_s,
            "missing_columns": self.missing_columns,
        }

    @classmethod
    def from_json(cls, doc: dict) -> "PollResult":
        return cls(
            switch_id=int(doc["switch_id"]), at=float(doc["at"]), uptime_cs=doc["uptime_cs"],
            readings={(o, i): CounterReading(int(v), int(w)) for o, i, v, w in doc["readings"]},
            discontinuity={(o, i): int(v) for o, i, v in doc["discontinuity"]},
            varbinds=int(doc.get("varbinds", 0)), duration_s=float(doc.get("duration_s", 0.0)),
            missing_columns=list(doc.get("missing_columns", [])),
        )


def index_str(index: tuple[int, ...]) -> str:
    return ".".join(map(str, index))


def _uptime(profile: Profile, scalars: Mapping[str, Value]) -> int | None:
    for name in profile.uptime:
        value = scalars.get(object_by_name(name).instance_oid)
        if isinstance(value, int) and value >= 0:
            return value
    return None


def readings_from_walk(profile: Profile, snmp_version: str,
                       walked: Mapping[str, Mapping[tuple[int, ...], Value]]
                       ) -> tuple[dict[SeriesKey, CounterReading], dict[SeriesKey, int], list[str]]:
    """Pure: walked columns (by OID) -> counter readings keyed by (counter object, index).

    A 64-bit column the agent did not answer is replaced by its 32-bit fallback when that was
    walked; values of the wrong type (a hostile or broken agent) are dropped, not guessed.
    """
    readings: dict[SeriesKey, CounterReading] = {}
    missing: list[str] = []
    for counter in profile.counters:
        rows: Mapping[tuple[int, ...], Value] = {}
        width = 0
        for name in (counter.object, counter.fallback):
            if not name or (snmp_version == "1" and object_by_name(name).width == 64):
                continue
            obj = object_by_name(name)
            rows = walked.get(obj.oid) or {}
            width = obj.width
            if rows:
                break
        if not rows:
            if not counter.optional:
                missing.append(counter.object)
            continue
        limit = 1 << width
        for index, value in rows.items():
            if type(value) is int and 0 <= value < limit:
                readings[(counter.object, index_str(index))] = CounterReading(value, width)
    discontinuity: dict[SeriesKey, int] = {}
    if profile.row_discontinuity:
        obj = object_by_name(profile.row_discontinuity)
        for index, value in (walked.get(obj.oid) or {}).items():
            if type(value) is int and value >= 0:
                discontinuity[(profile.row_discontinuity, index_str(index))] = value
    return readings, discontinuity, missing


def columns_to_walk(profile: Profile, snmp_version: str, fallbacks: bool) -> list[str]:
    """OIDs of the first walk (primary columns), or of the second (fallbacks of unanswered ones)."""
    names: list[str] = []
    for counter in profile.counters:
        primary_64 = object_by_name(counter.object).width == 64
        if fallbacks:
            if counter.fallback:
                names.append(counter.fallback)
        elif snmp_version == "1" and primary_64:
            if counter.fallback:
                names.append(counter.fallback)
        else:
            names.append(counter.object)
    if not fallbacks and profile.row_discontinuity:
        names.append(profile.row_discontinuity)
    return [object_by_name(n).oid for n in names]


async def poll_switch(session: SnmpSession, switch_id: int, profile: Profile, snmp_version: str) -> PollResult:
    """GET the epoch scalars, walk the counter columns; SnmpError propagates to the caller."""
    started = time.time()
    t0 = time.perf_counter()
    scalar_names = [*profile.uptime, *([profile.reset_time] if profile.reset_time else [])]
    scalars = await session.get([object_by_name(n).instance_oid for n in scalar_names])
    walked = dict(await session.walk(columns_to_walk(profile, snmp_version, fallbacks=False)))
    varbinds = len(scalars) + sum(len(rows) for rows in walked.values())
    unanswered_64 = [c for c in profile.counters
                     if c.fallback and not walked.get(object_by_name(c.object).oid)]
    if snmp_version != "1" and unanswered_64:
        extra = await session.walk([object_by_name(c.fallback).oid for c in unanswered_64])
        walked.update(extra)
        varbinds += sum(len(rows) for rows in extra.values())
    duration = time.perf_counter() - t0
    readings, discontinuity, missing = readings_from_walk(profile, snmp_version, walked)
    if profile.reset_time:
        reset = scalars.get(object_by_name(profile.reset_time).instance_oid)
        if type(reset) is int and reset >= 0:
            discontinuity[(profile.reset_time, "0")] = reset
    return PollResult(
        switch_id=switch_id, at=started + duration / 2, uptime_cs=_uptime(profile, scalars),
        readings=readings, discontinuity=discontinuity, varbinds=varbinds,
        duration_s=duration, missing_columns=missing)


@dataclass(slots=True)
class PreviousRow:
    """The last stored sample row of a switch, in the order of its layout."""
    at: float
    uptime_cs: int | None
    values: dict[int, int | None]    # series id -> raw value (unsigned), None when unanswered


@dataclass(slots=True)
class SampleRow:
    switch_id: int
    at: float
    uptime_cs: int | None
    layout_id: int
    interval_ms: int | None
    raw: list[int | None]            # unsigned values; the writer stores them as signed bigint
    delta: list[int | None]
    flags: list[int]


@dataclass(frozen=True, slots=True)
class SeriesSlot:
    """How one layout position is derived."""
    series_id: int
    key: SeriesKey
    spec: CounterSpec | None         # None for a discontinuity-time series (stored, not derived)
    reset_key: SeriesKey | None      # the discontinuity series that tells this counter's resets
    reset_series_id: int | None = None


def build_row(result: PollResult, layout_id: int, slots: list[SeriesSlot],
              prev: PreviousRow | None, nominal_interval_s: float) -> SampleRow:
    """Pure: derive deltas and flags for every slot of the layout from the previous row."""
    n = len(slots)
    raw: list[int | None] = [None] * n
    prev_values: list[int | None] = [None] * n
    specs: list[CounterSpec] = []
    cur_disc: list[int | None] = [None] * n
    prev_disc: list[int | None] = [None] * n
    counter_pos: list[int] = []
    prev_values_by_id = prev.values if prev else {}
    for i, slot in enumerate(slots):
        if slot.spec is None:
            raw[i] = result.discontinuity.get(slot.key)
            continue
        reading = result.readings.get(slot.key)
        if reading is not None:
            raw[i] = reading.value
        counter_pos.append(i)
        specs.append(slot.spec)
        pv = prev_values_by_id.get(slot.series_id)
        if pv is not None and pv < slot.spec.modulus:
            prev_values[i] = pv
        if slot.reset_key is not None:
            cur_disc[i] = result.discontinuity.get(slot.reset_key)
            prev_disc[i] = prev_values_by_id.get(slot.reset_series_id)
    deltas_c, flags_c = counters.derive_row(
        prev.at if prev else None, prev.uptime_cs if prev else None,
        result.at, result.uptime_cs,
        [prev_values[i] for i in counter_pos], [raw[i] for i in counter_pos], specs,
        nominal_interval_s,
        prev_disc=[prev_disc[i] for i in counter_pos], cur_disc=[cur_disc[i] for i in counter_pos])
    delta: list[int | None] = [None] * n
    flags = [0] * n
    for j, i in enumerate(counter_pos):
        delta[i] = deltas_c[j]
        flags[i] = flags_c[j]
    for i, slot in enumerate(slots):
        if slot.spec is None and raw[i] is None:
            flags[i] = int(Flag.MISSING)
    interval_ms = round((result.at - prev.at) * 1000) if prev else None
    return SampleRow(result.switch_id, result.at, result.uptime_cs, layout_id,
                     interval_ms, raw, delta, flags)
