"""Walked columns -> counter readings, interface by interface, by stated rules. Pure.

A counter of a profile may have a 64-bit column and its 32-bit fallback (ifHCInOctets and
ifInOctets). For each instance (an interface, a VP, a VC):

1. the 64-bit column's value is used when it is a usable integer; else the fallback's;
2. the width is the one the agent's value type says, whatever column it came in: a Counter64
   value is read as a 64-bit counter (a firewall answering ifInOctets with Counter64 values), any
   other integer type as a 32-bit one (a Counter32 in a 64-bit column wraps at 2**32);
3. a value that is not a non-negative integer (a string, a negative Integer32, NULL) is not
   used, and neither is an instance the inventory knows (`expected`) that answered no value;
4. nothing is dropped silently: every value read under rule 2 against its column, and every
   value not used, becomes a `ValueNote` (object, index, reason, the value as text), which the
   poller counts in the poll log.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from collector.core.profiles import Counter, Profile, object_by_name
from collector.core.snmp_codec import Counter64Value
from collector.core.snmp_types import Value

Walk = Mapping[str, Mapping[tuple[int, ...], Value]]
SeriesKey = tuple[str, str]          # (profile counter object name, dotted index)

# Reasons. A note with `used` True was archived under a rule; False: the value was not used.
READ_AS_64 = "Counter64 value in a 32-bit column: read as a 64-bit counter"
READ_AS_32 = "Counter32 value in a 64-bit column: read as a 32-bit counter"
WRONG_TYPE = "not an integer"
NEGATIVE = "negative value"
NOT_ANSWERED = "not answered"
USED_REASONS = (READ_AS_64, READ_AS_32)
NOT_USED_REASONS = (WRONG_TYPE, NEGATIVE, NOT_ANSWERED)
U64 = 1 << 64


@dataclass(frozen=True, slots=True)
class ValueNote:
    object: str          # the profile's counter object (the series name)
    index: str
    reason: str
    value: str           # the value as answered, as text ("" when none)
    used: bool

    def to_json(self) -> list:
        return [self.object, self.index, self.reason, self.value, self.used]

    @classmethod
    def from_json(cls, item: list) -> ValueNote:
        o, i, r, v, u = item
        return cls(str(o), str(i), str(r), str(v), bool(u))


@dataclass(slots=True)
class CounterReading:
    value: int
    width: int                       # 32 or 64, from the value's type (rule 2)


# index tuple -> its dotted string, shared by every poll of the process (bounded)
INDEX_STRINGS: dict[tuple[int, ...], str] = {}
INDEX_STRINGS_MAX = 1 << 20


def index_str(index: tuple[int, ...]) -> str:
    """"1.0.201" for (1, 0, 201); memoized: a switch answers the same indexes every poll, and
    equal keys then share one string object (cheap comparisons of a poll's keys with the last)."""
    s = INDEX_STRINGS.get(index)
    if s is None:
        s = ".".join(map(str, index))
        if len(INDEX_STRINGS) < INDEX_STRINGS_MAX:
            INDEX_STRINGS[index] = s
    return s


def _text(value: Value) -> str:
    if isinstance(value, bytes):
        return value[:40].decode("latin-1")
    return "" if value is None else str(value)[:40]


def judge(value: Value, column_width: int) -> tuple[CounterReading | None, str]:
    """(reading or None, reason or ""): rules 2 and 3 for one value of a column of this width."""
    kind = type(value)
    if kind is int:
        if value < 0:                                    # type: ignore[operator]
            return None, NEGATIVE
        if value >= 1 << 32:                             # type: ignore[operator]
            # Only the pysnmp path can give a plain int this large; it cannot be a Counter32.
            return CounterReading(value, 64), (READ_AS_64 if column_width == 32 else "")  # type: ignore[arg-type]
        return CounterReading(value, 32), (READ_AS_32 if column_width == 64 else "")      # type: ignore[arg-type]
    if kind is Counter64Value:
        return CounterReading(int(value), 64), (READ_AS_64 if column_width == 32 else "")  # type: ignore[arg-type]
    return None, WRONG_TYPE


def _readings_of(counter: Counter, columns: list[tuple[Mapping[tuple[int, ...], Value], int]],
                 expected: Collection[str] | None, readings: dict[SeriesKey, CounterReading],
                 notes: list[ValueNote]) -> None:
    """Rules 1-4 for one counter over the columns that answered (64-bit first)."""
    name = counter.object
    memo = INDEX_STRINGS.get
    rejected: dict[str, ValueNote] = {}
    for n, (rows, width) in enumerate(columns):
        # The usual value type of the column, read without a call (the poller's hot path).
        usual = int if width == 32 else Counter64Value
        limit = 1 << width
        for index, value in rows.items():
            key = memo(index) or index_str(index)
            if n and (name, key) in readings:
                continue                                 # the 64-bit column answered it (rule 1)
            if type(value) is usual and 0 <= value < limit:
                readings[(name, key)] = CounterReading(value, width)
                if rejected:
                    rejected.pop(key, None)
                continue
            reading, reason = judge(value, width)
            if reading is None:
                rejected.setdefault(key, ValueNote(name, key, reason, _text(value), False))
                continue
            readings[(name, key)] = reading
            rejected.pop(key, None)
            if reason:
                notes.append(ValueNote(name, key, reason, _text(value), True))
    notes.extend(rejected.values())
    # An expected instance that answered nothing, in a column others answered (a column nobody
    # answered is reported once, as missing, by readings_from_walk).
    if columns and expected is not None and not counter.optional:
        seen: set[str | None] = set()
        for rows, _ in columns:
            seen.update(map(memo, rows))                 # C speed: the loop above memoized every index
        if None in seen:                                 # ... unless the memo is full
            seen = {index_str(i) for rows, _ in columns for i in rows}
        for key in sorted(set(expected) - seen):
            notes.append(ValueNote(name, key, NOT_ANSWERED, "", False))


def readings_from_walk(profile: Profile, snmp_version: str, walked: Walk,
                       expected: Mapping[str, Collection[str]] | None = None,
                       ) -> tuple[dict[SeriesKey, CounterReading], dict[SeriesKey, int], list[str], list[ValueNote]]:
    """Walked columns (by OID) -> (readings, discontinuity times, counters no instance answered,
    notes). `expected`: entity ("port", "vp", "vc") -> the index strings the inventory knows."""
    readings: dict[SeriesKey, CounterReading] = {}
    notes: list[ValueNote] = []
    missing: list[str] = []
    for counter in profile.counters:
        columns = []
        for name in (counter.object, counter.fallback):
            if not name:
                continue
            obj = object_by_name(name)
            if snmp_version == "1" and obj.width == 64:
                continue                                 # no Counter64 in SNMPv1
            rows = walked.get(obj.oid)
            if rows:
                columns.append((rows, obj.width or 32))
        entity_expected = expected.get(counter.entity) if expected is not None else None
        _readings_of(counter, columns, entity_expected, readings, notes)
        if not columns and not counter.optional:
            missing.append(counter.object)
    discontinuity: dict[SeriesKey, int] = {}
    if profile.row_discontinuity:
        obj = object_by_name(profile.row_discontinuity)
        name = profile.row_discontinuity
        memo = INDEX_STRINGS.get
        for index, value in (walked.get(obj.oid) or {}).items():
            if type(value) is int and value >= 0:
                discontinuity[(name, memo(index) or index_str(index))] = value
    return readings, discontinuity, missing, notes


def summarize(notes: list[ValueNote], examples: int = 20) -> dict | None:
    """What the poll log keeps of a poll's notes: counts per reason, and the first examples
    (values not used first) with the object and index that answered them."""
    if not notes:
        return None
    used: dict[str, int] = {}
    not_used: dict[str, int] = {}
    for n in notes:
        counts = used if n.used else not_used
        counts[n.reason] = counts.get(n.reason, 0) + 1
    ordered = [n for n in notes if not n.used] + [n for n in notes if n.used]
    return {"not_used": not_used, "read_by_rule": used,
            "examples": [[n.object, n.index, n.reason, n.value] for n in ordered[:examples]]}


def summary_text(summary: dict | None) -> str:
    """"2 values not used (negative value: 1, not an integer: 1); 4 read by a rule (...)"."""
    if not summary:
        return ""
    parts = []
    for key, words in (("not_used", "not used"), ("read_by_rule", "read by a rule")):
        counts = summary.get(key) or {}
        if counts:
            total = sum(counts.values())
            detail = ", ".join(f"{reason}: {n}" for reason, n in sorted(counts.items()))
            parts.append(f"{total} value{'s' if total != 1 else ''} {words} ({detail})")
    return "; ".join(parts)
