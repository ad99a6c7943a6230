"""Import counts per interval from CSV into an external series (the web form and `manage.py import_csv`).

The file, UTF-8 text:
- one data row per line: `time,value` (exactly two fields, comma-separated, quotes allowed);
  blank lines and lines starting with '#' are skipped; a first row whose time field has no digit
  (`time,value`, `timestamp,cells`) is a header and skipped;
- time: ISO 8601 with an offset (2026-11-22T10:00:00Z, 2026-11-22 11:00:00+01:00) or without
  one, which is read as UTC (the result says how many); or a bare number, epoch seconds;
- value: the COUNT of units in the interval (not a rate), an integer or decimal >= 0; an empty
  value is a missing interval: counted in the result, not stored.

The series' `stamp` says whether a row's time labels the start or the end of its interval;
stored times are always starts (stamp "end": the file's time minus interval_s).

Refused, with the line numbers (the first few) and what is accepted; nothing is stored then:
unparsable times or values, negative values, a time given twice, a time whose distance from the
first row's is not a multiple of interval_s, an interval starting before 1990 or ending in the
future, more than MAX_ROWS data rows, a file without data rows (or with only empty values).
Into an existing series: unit, interval and stamp must be the series'; the times must lie on its
grid; times already stored are refused (with their count) unless `replace`, which replaces those
points (points of the series that the file does not name stay). All in one transaction.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import IO, Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from collector.core.facts import EARLIEST_DATA
from collector.core.isotime import iso
from collector.external.models import MAX_INTERVAL_S, NAME_PATTERN, NAME_RULE, UNITS, ExternalSeries

MAX_ROWS = 1_000_000
FUTURE_SLACK = timedelta(minutes=5)      # clocks of the data's source and of this machine differ a little
SHOW_LINES = 5                           # line numbers named per problem
STAMPS = ("start", "end")
TIME_FORMS = ("ISO 8601 such as 2026-11-22T10:00:00Z or 2026-11-22 11:00:00+01:00 (no offset: UTC), "
              "or epoch seconds such as 1795341600")
VALUE_FORMS = "a count >= 0 such as 1234 or 1234.5, or empty for a missing value"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = 1_000_000

_EPOCH_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


class ImportRefused(ValueError):
    """str() is the message for the user; nothing was stored."""


@dataclass(frozen=True)
class SeriesSpec:
    """What the file is: the series it goes into (created on the first import) and how to read it."""
    name: str
    unit: str                       # one of UNITS: what a value counts
    interval_s: int                 # every interval's length
    stamp: str = "start"            # "start" or "end": what a row's time labels
    source: str = ""                # who provided the data
    description: str = ""


@dataclass
class Parsed:
    """A checked file: interval starts (microseconds since the epoch) and counts, in file order."""
    t_us: list[int]
    values: list[float]
    missing: int                    # rows with an empty value
    rows: int                       # data rows, missing ones included
    naive: int                      # ISO times without an offset (read as UTC)
    lines: dict[int, int] = field(default_factory=dict)    # t_us -> its line, for the messages


@dataclass(frozen=True)
class ImportResult:
    series: ExternalSeries
    created: bool
    stored: int
    replaced: int
    missing_values: int
    first: datetime                 # first and last interval start stored by this import (UTC)
    last: datetime
    sentence: str


def check_spec(spec: SeriesSpec) -> SeriesSpec:
    """The spec with its text trimmed, or ImportRefused saying what is wrong."""
    name = spec.name.strip()
    if not re.fullmatch(NAME_PATTERN, name):
        raise ImportRefused(f"series name {name!r}: use {NAME_RULE}")
    if spec.unit not in UNITS:
        raise ImportRefused(f"unit {spec.unit!r}: use one of {', '.join(UNITS)} (a value counts them per interval)")
    if not isinstance(spec.interval_s, int) or not 1 <= spec.interval_s <= MAX_INTERVAL_S:
        raise ImportRefused(f"interval {spec.interval_s!r}: a whole number of seconds from 1 to {MAX_INTERVAL_S:,} "
                            "(e.g. 900 for 15-minute counts)")
    if spec.stamp not in STAMPS:
        raise ImportRefused(f"stamp {spec.stamp!r}: 'start' (a row's time is its interval's start) or 'end'")
    source = spec.source.strip()
    if len(source) > 200:
        raise ImportRefused("source: at most 200 characters")
    return SeriesSpec(name, spec.unit, spec.interval_s, spec.stamp, source, spec.description.strip())


def as_text(data: str | bytes | IO[Any] | Iterable[str]) -> str:
    """The file's text: str as it is, bytes (or a binary file) decoded as UTF-8 (a BOM dropped)."""
    if hasattr(data, "read"):
        data = data.read()
    if isinstance(data, bytes | bytearray):
        try:
            return bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportRefused(f"the file is not UTF-8 text (byte {exc.start:,}): expected CSV lines of "
                                "time,value") from None
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    return "".join(data).removeprefix("\ufeff")


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:SHOW_LINES])
    more = f" and {len(numbers) - SHOW_LINES:,} more" if len(numbers) > SHOW_LINES else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def _time_us(text: str) -> tuple[int, bool] | None:
    """(microseconds since the epoch, had no offset) of a time field, None when it is not one."""
    if _EPOCH_SECONDS.fullmatch(text):
        return int((Decimal(text) * US).to_integral_value()), False
    value = text
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    naive = t.tzinfo is None
    if naive:
        t = t.replace(tzinfo=UTC)
    return (t - EPOCH) // timedelta(microseconds=1), naive


def _value(text: str) -> float | None:
    if not _NUMBER.fullmatch(text):
        return None
    try:
        return float(Decimal(text))
    except (InvalidOperation, OverflowError):
        return None


def parse(text: str, interval_s: int, stamp: str = "start", now: datetime | None = None) -> Parsed:
    """Read and check the file's rows (see the module's docstring); ImportRefused naming every
    problem found with its first lines."""
    now = now or timezone.now()
    step = interval_s * US
    shift = step if stamp == "end" else 0
    earliest = (EARLIEST_DATA - EPOCH) // timedelta(microseconds=1)
    latest_end = (now + FUTURE_SLACK - EPOCH) // timedelta(microseconds=1)
    problems: dict[str, list[int]] = {}
    seen: dict[int, int] = {}
    t_us: list[int] = []
    values: list[float] = []
    missing = rows = naive = 0
    first: tuple[int, int] | None = None            # (t_us, line) of the first row with a time
    header_possible = True

    def bad(kind: str, line: int) -> None:
        problems.setdefault(kind, []).append(line)

    reader = csv.reader(io.StringIO(text))
    for row in reader:
        line = reader.line_num
        if not row or all(not f.strip() for f in row) or row[0].lstrip().startswith("#"):
            continue
        if header_possible:
            header_possible = False
            if not any(c.isdigit() for c in row[0]):
                continue
        rows += 1
        if rows > MAX_ROWS:
            raise ImportRefused(f"more than {MAX_ROWS:,} data rows (the limit of one import): split the file "
                                "and import the parts into the same series")
        if len(row) != 2:
            bad("fields", line)
            continue
        time_text, value_text = row[0].strip(), row[1].strip()
        value: float | None = None
        value_ok = True
        if value_text != "":
            value = _value(value_text)
            if value is None:
                bad("value", line)
                value_ok = False
            elif value < 0:
                bad("negative", line)
                value_ok = False
        parsed_time = _time_us(time_text)
        if parsed_time is None:
            bad("time", line)
            continue
        t, was_naive = parsed_time
        naive += was_naive
        t -= shift
        if first is None:
            first = (t, line)
        if t in seen:
            bad("duplicate", line)
            continue
        seen[t] = line
        if (t - first[0]) % step:
            bad("grid", line)
        if t < earliest:
            bad("early", line)
        elif t + step > latest_end:
            bad("future", line)
        if not value_ok:
            continue
        if value is None:
            missing += 1
        else:
            t_us.append(t)
            values.append(value)
    if problems:
        first_text = f"line {first[1]}, {iso(EPOCH + timedelta(microseconds=first[0] + shift))}" if first else ""
        what = {
            "fields": "not two fields time,value separated by a comma",
            "time": f"a time that cannot be read (accepted: {TIME_FORMS})",
            "value": f"a value that cannot be read (accepted: {VALUE_FORMS})",
            "negative": "a negative value (a count is >= 0)",
            "duplicate": ("a time given twice (each interval once)" if stamp == "start" else
                          "a time given twice (each interval once; stamp 'end': times are interval ends)"),
            "grid": f"a time not on the {interval_s:,}-second grid of the first row ({first_text}): "
                    f"the times must be {interval_s:,} s apart or a multiple of it",
            "early": f"an interval that starts before {EARLIEST_DATA:%Y-%m-%d}",
            "future": f"an interval that ends in the future (after {iso(now)})",
        }
        parts = [f"{_lines(lines)}: {what[kind]}" for kind, lines in problems.items()]
        raise ImportRefused("nothing imported: " + "; ".join(parts))
    if rows == 0:
        raise ImportRefused("the file has no data rows: expected lines of time,value "
                            f"(time: {TIME_FORMS}; value: {VALUE_FORMS})")
    if not t_us:
        raise ImportRefused(f"every value of the file's {rows:,} rows is empty (missing): nothing to import")
    return Parsed(t_us, values, missing, rows, naive, seen)



def _at(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


# The staging table of one import (dropped at commit): interval starts as microseconds since the
# epoch, turned into timestamptz exactly (no float on the way) by _T.
_STAGE = "cellar_external_in"
_T = "('epoch'::timestamptz + i.us * interval '1 microsecond')"


def _sentence(series: ExternalSeries, created: bool, stored: int, replaced: int, missing: int, naive: int,
              first: datetime, last: datetime) -> str:
    s = "" if stored == 1 else "s"
    text = (f"{stored:,} point{s} stored in {'new ' if created else ''}series {series.name} "
            f"({series.unit} per {series.interval_s:,} s), intervals starting {iso(first)} to {iso(last)}")
    if replaced:
        text += f"; {replaced:,} of them replaced points stored before"
    if missing:
        text += f"; {missing:,} empty (missing) value{'' if missing == 1 else 's'} not stored"
    if series.stamp == "end":
        text += f"; the file's times were interval ends, stored as starts ({series.interval_s:,} s earlier)"
    if naive:
        text += f"; {naive:,} time{'' if naive == 1 else 's'} without an offset read as UTC"
    return text + "."


def _series(spec: SeriesSpec, user: Any, t0: int) -> tuple[ExternalSeries, bool]:
    """The series, locked for this transaction, created when new; ImportRefused when the file's
    attributes or grid are not the existing series'."""
    series = ExternalSeries.objects.select_for_update().filter(name=spec.name).first()
    if series is None:
        try:
            with transaction.atomic():
                series = ExternalSeries.objects.create(
                    name=spec.name, unit=spec.unit, interval_s=spec.interval_s, stamp=spec.stamp, source=spec.source,
                    description=spec.description, created_by=user if getattr(user, "pk", None) else None)
        except IntegrityError:
            raise ImportRefused(f"series {spec.name!r} was created by another import at the same moment: "
                                "import again (into the series it made)") from None
        return series, True
    differs = [f"{label} {mine!r} (the series has {theirs!r})"
               for label, mine, theirs in (("unit", spec.unit, series.unit), ("interval", spec.interval_s,
                                                                              series.interval_s),
                                           ("stamp", spec.stamp, series.stamp))
               if mine != theirs]
    if differs:
        raise ImportRefused(f"series {series.name} exists with other attributes: {', '.join(differs)}; nothing "
                            "imported (import into a new series name, or give the series' own attributes)")
    if series.first is not None:
        ref = (series.first - EPOCH) // timedelta(microseconds=1)
        if (t0 - ref) % (series.interval_s * US):
            raise ImportRefused(f"the file's intervals are not on the grid of series {series.name} (its intervals "
                                f"start at {iso(series.first)} plus multiples of {series.interval_s:,} s; the file's "
                                f"first starts at {iso(_at(t0))}): nothing imported")
    changed = [f for f, v in (("source", spec.source), ("description", spec.description))
               if v and getattr(series, f) != v]
    if changed:
        for f in changed:
            setattr(series, f, getattr(spec, f))
        series.save(update_fields=[*changed, "updated"])
    return series, False


def store(parsed: Parsed, spec: SeriesSpec, *, replace: bool = False, user: Any = None) -> ImportResult:
    """Write checked points into the series named by spec (created when new), all or nothing."""
    lo, hi = min(parsed.t_us), max(parsed.t_us)
    with transaction.atomic():
        series, created = _series(spec, user, parsed.t_us[0])
        replaced = 0
        with connection.cursor() as cur:
            # A caller's outer transaction (a test's) keeps an earlier import's table past its savepoint.
            cur.execute(f"DROP TABLE IF EXISTS {_STAGE}")
            cur.execute(f"CREATE TEMP TABLE {_STAGE} (us bigint NOT NULL, value double precision NOT NULL) "
                        "ON COMMIT DROP")
            with cur.copy(f"COPY {_STAGE} (us, value) FROM STDIN") as copy:
                buf: list[str] = []
                for t, v in zip(parsed.t_us, parsed.values):
                    buf.append(f"{t}\t{v!r}\n")
                    if len(buf) >= 10_000:
                        copy.write("".join(buf))
                        buf.clear()
                copy.write("".join(buf))
            if not created:
                where = f"p.series_id = %s AND p.t BETWEEN %s AND %s AND p.t = {_T}"
                args: list[int | datetime] = [series.id, _at(lo), _at(hi)]
                if replace:
                    cur.execute(f"DELETE FROM external_point p USING {_STAGE} i WHERE {where}", args)
                    replaced = cur.rowcount
                else:
                    cur.execute(f"SELECT count(*), min(p.t) FROM external_point p JOIN {_STAGE} i ON {where}", args)
                    overlap, first_overlap = cur.fetchone()
                    if overlap:
                        line = parsed.lines.get((first_overlap - EPOCH) // timedelta(microseconds=1))
                        where_line = f" (the first at line {line}: {iso(first_overlap)})" if line else ""
                        raise ImportRefused(
                            f"{overlap:,} of the file's intervals are already stored in series {series.name}"
                            f"{where_line}: nothing imported; import with replace (--replace, or the form's "
                            "'replace' box) to replace those points")
            cur.execute(f"INSERT INTO external_point (t, series_id, value) SELECT {_T}, %s, i.value FROM {_STAGE} i",
                        [series.id])
            stored = cur.rowcount
            cur.execute("SELECT min(t), max(t), count(*) FROM external_point WHERE series_id = %s", [series.id])
            first, last, n = cur.fetchone()
        ExternalSeries.objects.filter(id=series.id).update(first=first, last=last, n_points=n, updated=timezone.now())
        series.first, series.last, series.n_points = first, last, n
    sentence = _sentence(series, created, stored, replaced, parsed.missing, parsed.naive, _at(lo), _at(hi))
    return ImportResult(series, created, stored, replaced, parsed.missing, _at(lo), _at(hi), sentence)


def import_csv(data: str | bytes | IO[Any] | Iterable[str], spec: SeriesSpec, *, replace: bool = False,
               user: Any = None, now: datetime | None = None) -> ImportResult:
    """Check the file, then store it into the series (the web form and the CLI call this).
    ImportRefused (nothing stored) when the spec, the file or the series refuses it."""
    spec = check_spec(spec)
    parsed = parse(as_text(data), spec.interval_s, spec.stamp, now)
    return store(parsed, spec, replace=replace, user=user)
