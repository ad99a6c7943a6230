"""One poll of one switch: profile + SNMP session -> a PollResult (what the spool keeps).

`poll_switch` is the only async/I-O part: it GETs the epoch scalars, walks the profile's counter
columns and, where an instance did not answer a 64-bit column, reads that instance's 32-bit
fallback (the fallback is chosen per interface, not per agent: a router's Gigabit ports have
64-bit counters and its serial links only the 32-bit ones). Turning varbinds into readings is
collector/core/readings.py; deriving a sample row from them is collector/core/rows.py.
"""
from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from collector.core.profiles import Profile, object_by_name
from collector.core.readings import (
    INDEX_STRINGS,
    CounterReading,
    SeriesKey,
    ValueNote,
    Walk,
    index_str,
    readings_from_walk,
)
from collector.core.snmp import SnmpSession
from collector.core.snmp_codec import Counter64Value
from collector.core.snmp_types import Value, is_int

# At most this many missing instances are read with GETs of their fallback column; beyond, the
# fallback column is walked (one GET PDU carries 40 instances; a walk costs the whole column).
FALLBACK_GET_LIMIT = 120


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
    notes: list[ValueNote] = field(default_factory=list)      # values read by a rule, or not used

    def to_json(self) -> dict:
        return {
            "switch_id": self.switch_id, "at": self.at, "uptime_cs": self.uptime_cs,
            "readings": [[k[0], k[1], r.value, r.width] for k, r in self.readings.items()],
            "discontinuity": [[k[0], k[1], v] for k, v in self.discontinuity.items()],
            "varbinds": self.varbinds, "duration_s": self.duration_s,
            "missing_columns": self.missing_columns, "notes": [n.to_json() for n in self.notes],
        }

    @classmethod
    def from_json(cls, doc: dict) -> PollResult:
        return cls(
            switch_id=int(doc["switch_id"]), at=float(doc["at"]), uptime_cs=doc["uptime_cs"],
            readings={(o, i): CounterReading(int(v), int(w)) for o, i, v, w in doc["readings"]},
            discontinuity={(o, i): int(v) for o, i, v in doc["discontinuity"]},
            varbinds=int(doc.get("varbinds", 0)), duration_s=float(doc.get("duration_s", 0.0)),
            missing_columns=list(doc.get("missing_columns", [])),
            notes=[ValueNote.from_json(n) for n in doc.get("notes", [])],
        )

    @property
    def rejected(self) -> list[ValueNote]:
        return [n for n in self.notes if not n.used]


def _uptime(profile: Profile, scalars: Mapping[str, Value]) -> int | None:
    for name in profile.uptime:
        value = scalars.get(object_by_name(name).instance_oid)
        if is_int(value) and value >= 0:     # type: ignore[operator]
            return int(value)                 # type: ignore[arg-type]
    return None


def columns_to_walk(profile: Profile, snmp_version: str) -> list[str]:
    """OIDs of the first walk: each counter's 64-bit column (its 32-bit one over SNMPv1, which
    has no Counter64), and the per-row discontinuity times."""
    names: list[str] = []
    for counter in profile.counters:
        if snmp_version == "1" and object_by_name(counter.object).width == 64:
            if counter.fallback:
                names.append(counter.fallback)
        else:
            names.append(counter.object)
    if profile.row_discontinuity:
        names.append(profile.row_discontinuity)
    return [object_by_name(n).oid for n in names]


def _usable_keys(rows: Mapping[tuple[int, ...], Value]) -> set[str]:
    """Index strings of the instances of a 64-bit column that answered a usable value."""
    memo = INDEX_STRINGS.get
    if set(map(type, rows.values())) == {Counter64Value}:
        # The usual answer, checked and mapped at C speed (this runs every poll, for every
        # instance of every 64-bit column); the cache misses only on a poll's first sight of an index.
        keys = set(map(memo, rows))
        if None not in keys:
            return keys                                  # type: ignore[return-value]
    return {memo(i) or index_str(i) for i, v in rows.items()
            if type(v) is Counter64Value or (type(v) is int and v >= 0)}


def _fallback_needs(profile: Profile, walked: Walk, expected: Mapping[str, Collection[str]] | None
                    ) -> tuple[list[str], dict[str, list[str]]]:
    """(fallback columns to walk, fallback column -> instances to GET) after the first walk."""
    walk: list[str] = []
    get: dict[str, list[str]] = {}
    for counter in profile.counters:
        if not counter.fallback:
            continue
        rows = walked.get(object_by_name(counter.object).oid) or {}
        fallback = object_by_name(counter.fallback).oid
        known = expected.get(counter.entity) if expected is not None else None
        if not rows or known is None:
            # Nothing answered the 64-bit column, or the inventory does not know the instances
            # yet (before the first discovery): the whole fallback column tells which need it.
            walk.append(fallback)
            continue
        need = sorted(set(known) - _usable_keys(rows))
        if len(need) > FALLBACK_GET_LIMIT:
            walk.append(fallback)
        elif need:
            get[fallback] = need
    return walk, get


async def poll_switch(session: SnmpSession, switch_id: int, profile: Profile, snmp_version: str,
                      expected: Mapping[str, Collection[str]] | None = None) -> PollResult:
    """GET the epoch scalars, walk the counter columns, read the fallbacks each instance needs.

    expected: entity ("port", "vp", "vc") -> index strings the inventory knows (present ones):
    which instances need a fallback, and which answered nothing. SnmpError propagates."""
    started = time.time()
    t0 = time.perf_counter()
    scalar_names = [*profile.uptime, *([profile.reset_time] if profile.reset_time else [])]
    scalars = await session.get([object_by_name(n).instance_oid for n in scalar_names])
    walked = dict(await session.walk(columns_to_walk(profile, snmp_version)))
    varbinds = len(scalars) + sum(len(rows) for rows in walked.values())
    if snmp_version != "1":
        walk, get = _fallback_needs(profile, walked, expected)
        if walk:
            extra = await session.walk(walk)
            walked.update(extra)
            varbinds += sum(len(rows) for rows in extra.values())
        if get:           # every missing instance of every fallback column, in as few GETs as fit
            answers = await session.get([f"{column}.{i}" for column, instances in get.items() for i in instances])
            for column, instances in get.items():
                walked[column] = {tuple(int(x) for x in i.split(".")): answers[f"{column}.{i}"] for i in instances
                                  if answers.get(f"{column}.{i}") is not None}
            varbinds += len(answers)
    duration = time.perf_counter() - t0
    readings, discontinuity, missing, notes = readings_from_walk(profile, snmp_version, walked, expected)
    if profile.reset_time:
        reset = scalars.get(object_by_name(profile.reset_time).instance_oid)
        if is_int(reset) and reset >= 0:        # type: ignore[operator]
            discontinuity[(profile.reset_time, "0")] = int(reset)     # type: ignore[arg-type]
    return PollResult(
        switch_id=switch_id, at=started + duration / 2, uptime_cs=_uptime(profile, scalars),
        readings=readings, discontinuity=discontinuity, varbinds=varbinds,
        duration_s=duration, missing_columns=missing, notes=notes)
