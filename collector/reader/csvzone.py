"""The CSV's time column in another zone, and the CSV of a plot with comparisons (compare=).

Times: ISO 8601 UTC with Z by default (what the CSV always wrote: scripts keep working); with
tz=<IANA name> (the plot page's link passes the viewer's zone) ISO 8601 with that zone's offset at
each instant (`2026-03-29T01:59:45+01:00`, `2026-03-29T03:00:00+02:00`), so a row is still one
instant whatever the zone. Computed by PostgreSQL (its tz database) inside the COPY.

Comparisons: the plot's query and each earlier period's (the same query over the earlier range,
csvexport.plain_sql) give (time, columns...); the earlier ones' times move forward by their offset
and all are merged on time: one row per instant, the earlier period's columns after the plot's.
So the compare columns of a row hold what the earlier period's own CSV holds at time - offset.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from collector.archive.export import iso_sql

UTC_NAMES = ("", "UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu")
_ZONE_NAME = re.compile(r"^[A-Za-z0-9_+\-/]{1,64}$")
_PARAM = re.compile(r"%\((\w+)\)s")


def is_utc_name(name: str) -> bool:
    return name in UTC_NAMES


def zoned_iso_sql(col: str, zone: str) -> str:
    """ISO 8601 text of a timestamptz in `zone` with its offset (+01:00), fractions only when present."""
    if not _ZONE_NAME.match(zone):          # checked by params.parse_zone already; inlined as a literal
        raise ValueError(f"not a time zone name: {zone!r}")
    local = f"({col} AT TIME ZONE '{zone}')"
    off = f"extract(epoch FROM {local} - ({col} AT TIME ZONE 'UTC'))::int"
    return (f"to_char({local}, 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE WHEN date_trunc('second', {col}) = {col} "
            f"THEN '' ELSE rtrim(to_char({local}, '.US'), '0') END || "
            f"CASE WHEN {off} < 0 THEN '-' ELSE '+' END || lpad((abs({off}) / 3600)::text, 2, '0') || ':' || "
            f"lpad((mod(abs({off}), 3600) / 60)::text, 2, '0')")


def time_sql(zone: str) -> Callable[[str], str]:
    if is_utc_name(zone):
        return iso_sql
    return lambda col: zoned_iso_sql(col, zone)


def _prefixed(sql: str, params: dict, prefix: str) -> tuple[str, dict]:
    """The same query with its named parameters renamed (several queries joined in one)."""
    return _PARAM.sub(lambda m: f"%({prefix}{m.group(1)})s", sql), {prefix + k: v for k, v in params.items()}


def combined(p, plain_sql: Callable[[Any, Callable[[str], str]], tuple[str, dict]],
             per_series: int) -> tuple[str, dict]:
    """The export of plan p (csvexport.Plan) with its comparisons and its zone, as one query."""
    fmt = time_sql(p.req.tz)
    if not p.compare:
        return plain_sql(p, fmt)
    parts = [(p, timedelta(0))] + [(line.plan, line.offset) for line in p.compare]
    widths = [per_series * len(part.series) for part, _ in parts]
    total = sum(widths)
    branches, params, before = [], {}, 0
    for k, (part, offset) in enumerate(parts):
        sql, prm = _prefixed(*plain_sql(part, lambda col: col), f"p{k}_")
        params.update(prm)
        names = [f"c{i}" for i in range(widths[k])]
        cols = ["NULL"] * before + [f"y.{n}" for n in names] + ["NULL"] * (total - before - widths[k])
        t = "y.t" if not offset else f"y.t + interval '{int(offset.total_seconds())} seconds'"
        branches.append(f"SELECT {t} AS t, {', '.join(cols)} FROM ({sql}) AS y(t, {', '.join(names)})")
        before += widths[k]
    # Several rows at one instant (the plot's and an earlier period's) become one; each column has
    # a value in one of them only, but a flags column may hold a failed poll's text in another.
    merged = ", ".join(f"string_agg(x.c{i}::text, '; ')" if i % per_series == per_series - 1 else f"max(x.c{i})"
                       for i in range(total))
    union = " UNION ALL ".join(f"({b})" for b in branches)
    all_names = ", ".join(f"c{i}" for i in range(total))
    return f"SELECT {fmt('x.t')}, {merged} FROM ({union}) AS x(t, {all_names}) GROUP BY x.t ORDER BY x.t", params
