"""Grafana's side of the dashboards in grafana/, done as Grafana does it, for the tests that run them.

Grafana cannot run here; what it sends to PostgreSQL can be made exactly. This module expands a
panel's or a variable's rawSql as Grafana 11 does before the statement reaches the database:

1. template variables, by the frontend's SQL data source (public/app/features/plugins/sql,
   SqlDatasource.interpolateVariable): a variable that is multi-value or has "All" becomes its values,
   each a quoted literal ('it''s'), joined by commas; a single-value variable becomes its text with
   quotes doubled and no quotes around it (the panel SQL writes '$switch'); "All" without a custom
   allValue is every option. `$name`, `${name}` and `[[name]]` are all replaced.
2. the interval, by the backend's sqleng.Interpolate: `$__interval_ms` -> milliseconds,
   `$__interval` -> gtime.FormatInterval (e.g. 15s, 1m, 2h, 1d).
3. the macros, mirroring pkg/tsdb/grafana-postgresql-datasource/macros.go (evaluateMacro):
   $__timeFilter(c) -> c BETWEEN 'from' AND 'to' (RFC 3339 with nanoseconds, UTC), $__timeFrom() and
   $__timeTo() -> the quoted times, $__time(c) -> c AS "time", $__timeEpoch(c), $__timeGroup(c, '5m')
   -> time_bucket('300.000s',c) with the data source's timescaledb: true (floor(extract(epoch ...))
   without), $__timeGroupAlias adds AS "time", $__unixEpochFilter(c), $__unixEpochFrom()/To().
   An unknown macro raises, as Grafana answers an error.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = ROOT / "grafana" / "dashboards"
PROVISIONING = ROOT / "grafana" / "provisioning"
_MACRO = re.compile(r"\$([_a-zA-Z0-9]+)\(([^\)]*)\)")
_VARIABLE = re.compile(r"\$\{([a-zA-Z_][a-zA-Z0-9_]*)(?::[a-z]+)?\}|\[\[([a-zA-Z_][a-zA-Z0-9_]*)\]\]|"
                       r"\$([a-zA-Z_][a-zA-Z0-9_]*)")


def rfc3339nano(t: datetime) -> str:
    """Go's time.RFC3339Nano of a UTC time: trailing zeros of the fraction dropped, Z for UTC."""
    t = t.astimezone(UTC)
    frac = f"{t.microsecond:06d}".rstrip("0")
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "") + "Z"


def format_interval(ms: int) -> str:
    """gtime.FormatInterval: the whole number of the largest unit that fits (y, d, h, m, s, ms), truncated."""
    for unit, size in (("y", 31_536_000_000), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000),
                       ("ms", 1)):
        if ms >= size:
            return f"{ms // size}{unit}"
    return "1ms"


def parse_interval(text: str) -> timedelta:
    m = re.fullmatch(r"(\d+)(ms|s|m|h|d|w)", text.strip().strip("'"))
    if not m:
        raise ValueError(f"error parsing interval {text}")
    n, unit = int(m.group(1)), m.group(2)
    return timedelta(milliseconds=n * {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
                                       "w": 604_800_000}[unit])


def quote_literal(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


@dataclass(frozen=True)
class Variable:
    name: str
    multi: bool          # multi-value or includeAll: values are quoted literals
    values: tuple[str, ...]


def interpolate(sql: str, variables: Mapping[str, Variable]) -> str:
    def one(m: re.Match) -> str:
        name = m.group(1) or m.group(2) or m.group(3)
        if name.startswith("__") or name not in variables:
            return m.group(0)          # a macro or a built-in: the backend's turn
        v = variables[name]
        if v.multi:
            return ",".join(quote_literal(x) for x in v.values)
        return str(v.values[0]).replace("'", "''")
    return _VARIABLE.sub(one, sql)


def expand_macros(sql: str, start: datetime, end: datetime, interval_ms: int, timescaledb: bool = True) -> str:
    sql = sql.replace("$__interval_ms", str(int(interval_ms))).replace("$__interval", format_interval(interval_ms))
    sql = sql.replace("$__unixEpochFrom()", str(int(start.timestamp()))).replace(
        "$__unixEpochTo()", str(int(end.timestamp())))

    def one(m: re.Match) -> str:
        name, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
        if name == "__time":
            return f'{args[0]} AS "time"'
        if name == "__timeEpoch":
            return f'extract(epoch from {args[0]}) as "time"'
        if name == "__timeFilter":
            return f"{args[0]} BETWEEN '{rfc3339nano(start)}' AND '{rfc3339nano(end)}'"
        if name == "__timeFrom":
            return f"'{rfc3339nano(start)}'"
        if name == "__timeTo":
            return f"'{rfc3339nano(end)}'"
        if name in ("__timeGroup", "__timeGroupAlias"):
            s = parse_interval(args[1]).total_seconds()
            group = (f"time_bucket('{s:.3f}s',{args[0]})" if timescaledb
                     else f"floor(extract(epoch from {args[0]})/{s:g})*{s:g}")
            return group + (' AS "time"' if name == "__timeGroupAlias" else "")
        if name == "__unixEpochFilter":
            return f"{args[0]} >= {int(start.timestamp())} AND {args[0]} <= {int(end.timestamp())}"
        raise ValueError(f"unknown macro {name!r}")
    return _MACRO.sub(one, sql)


def grafana_sql(raw: str, variables: Mapping[str, Variable], start: datetime, end: datetime, interval_ms: int) -> str:
    """rawSql as it reaches PostgreSQL: variables (frontend), then interval and macros (backend)."""
    return expand_macros(interpolate(raw, variables), start, end, interval_ms)


# --- the dashboards' files -----------------------------------------------------------------------

def dashboards() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted(DASHBOARDS.glob("*.json"))}


def panels(dashboard: dict) -> Iterator[dict]:
    for p in dashboard.get("panels", []):
        yield p
        yield from p.get("panels", [])          # a row's panels


def variables_of(dashboard: dict) -> list[dict]:
    return list(dashboard.get("templating", {}).get("list", []))


def used_variables(sql: str) -> set[str]:
    found = set()
    for m in _VARIABLE.finditer(sql):
        name = m.group(1) or m.group(2) or m.group(3)
        if not name.startswith("__"):
            found.add(name)
    return found


def options(var: dict, query_rows: Sequence[tuple] | None = None) -> tuple[str, ...]:
    """The values Grafana offers: a custom variable's comma-separated list, a query variable's first column."""
    if var["type"] == "custom":
        return tuple(v.strip() for v in var["query"].split(","))
    return tuple("" if r[0] is None else str(r[0]) for r in (query_rows or []))
