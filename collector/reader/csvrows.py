"""CSV of exactly what a plot shows (same series, range, resolution), or of the raw samples.

PostgreSQL writes the CSV (collector/archive/export.py: one COPY whose rows stream to the client
as the query reads them: raw samples through the (switch, time) index of each chunk, in time
order). This module says which query.

Columns: `time` (ISO 8601 UTC, or with tz= the zone's offset; a sample's time is the end of its
interval, a bucket's time is its start), then per series, named by its label, value columns
with their unit in brackets and a flags column; then the same for each comparison (compare=).
Totals (`delta`, `total`) are the archived integer deltas: the `total` column of the plot's
resolution sums to exactly the traffic drawn in the range; the raw `delta` column also keeps
deltas that are not drawn (OVER_CAPACITY), flagged. Failed polls (poll log) appear in the flags
columns of their switch's series: raw exports get a row per failed poll, bucket
exports a count per bucket.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from collector.archive import settled_read, tier_read
from collector.archive.export import EXPORT_TIMEOUT_MS, flags_sql, header_line, iso_sql, stream_copy
from collector.archive.positions import Positions, layout_positions, position_expr
from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIER
from collector.reader import csvzone, queries, units
from collector.reader.reading import Plan

TimeSql = Callable[[str], str]      # SQL of the time column's text from a timestamptz expression

RAW_COLUMNS = ("rate [{unit}]", "delta [{total}]", "interval [s]", "flags")
BUCKET_COLUMNS = ("average [{unit}]", "peak [{unit}]", "total [{total}]", "drawn [s]", "samples", "flags")
FAILED = "status NOT IN ('ok', 'partial')"


def header(p: Plan) -> list[str]:
    cols = ["time"]
    template = RAW_COLUMNS if p.res == "raw" else BUCKET_COLUMNS
    unit = units.UNITS[p.unit].label
    named = [(s.label, s) for s in p.series] + [(line.label(s), s) for line in p.compare for s in line.series]
    for label, s in named:
        total = units.total_unit(s)
        cols += [f"{label} " + c.format(unit=unit, total=total) for c in template]
    if with_group_total(p):
        cols.append(f"group {p.group_name} total average [{unit}]")
        if len({units.total_unit(s) for s in p.series}) == 1:
            cols.append(f"group {p.group_name} total [{units.total_unit(p.series[0])}]")
    return cols


def with_group_total(p: Plan) -> bool:
    """A group's bucket CSV ends with its total (grouptotal.py: the sum of the members' columns); not
    with comparisons, whose columns follow the plot's (csvzone.combined)."""
    return p.req.group is not None and p.res != "raw" and p.unit != "pct" and not p.compare


def group_total_sql(p: Plan) -> list[str]:
    """The total columns: the sum of the members' averages where any drew traffic, and of their totals."""
    n = len(p.series)
    any_drawn = " OR ".join(f"b.i{j} > 0" for j in range(n))
    avg = " + ".join(f"coalesce(CASE WHEN b.i{j} > 0 THEN b.d{j}::float8 * 1000 / b.i{j} * %(k{j})s::float8 END, 0)"
                     for j in range(n))
    cols = [f"CASE WHEN {any_drawn} THEN {avg} END"]
    if len({units.total_unit(s) for s in p.series}) == 1:
        cols.append("CASE WHEN b.bucket IS NOT NULL THEN " + " + ".join(f"coalesce(b.d{j}, 0)" for j in range(n))
                    + " END")
    return cols


def raw_sql(p: Plan, positions: dict[int, Positions], time_sql: TimeSql = iso_sql) -> tuple[str, dict]:
    """Samples of every switch plus its failed polls, one column set per series, in time order."""
    params: dict = {"lo": p.start, "hi": p.end}
    parts = []
    switches = list(dict.fromkeys(s.switch_id for s in p.series))
    # Settled days are read from their blocks: staged by the COPY's transaction (export.stream_copy)
    pieces = settled_read.pieces_for([(s.id, s.switch_id) for s in p.series], p.start, p.end)
    if pieces:
        positions = settled_read.with_staged(positions, pieces)
        params[settled_read.PIECES_PARAM] = settled_read.encode_pieces(pieces)
    source = settled_read.SOURCE if pieces else "traffic_sample"
    for k, switch_id in enumerate(switches):
        params[f"sw{k}"] = switch_id
        pos = positions.get(switch_id, {})
        cols, fails = [], []
        for j, s in enumerate(p.series):
            if s.switch_id != switch_id:
                cols += ["NULL::float8", "NULL::bigint", "NULL::float8", "NULL::text"]
                fails += ["NULL::float8", "NULL::bigint", "NULL::float8", "NULL::text"]
                continue
            e = position_expr(pos, s.id)
            d, f = f"s.delta[{e}]", f"s.flags[{e}]"
            params[f"k{j}"] = p.factors[s.id]
            drawn = drawn_sql(d, f, "s.interval_ms")
            cols += [f"CASE WHEN {drawn} THEN {d}::float8 * 1000 / s.interval_ms * %(k{j})s::float8 END",
                     d, f"CASE WHEN {f} IS NOT NULL THEN s.interval_ms::float8 / 1000 END", flags_sql(f)]
            fails += ["NULL::float8", "NULL::bigint", "NULL::float8",
                      "'poll ' || pl.status || CASE WHEN pl.error <> '' THEN ' (' || left(pl.error, 120) || ')' "
                      "ELSE '' END"]
        layouts = ",".join(str(int(x)) for x in sorted(pos)) or "NULL"
        # Each branch is ordered by time on its own index, so the ORDER BY below is a merge of
        # streams (Merge Append), not a sort of the whole export.
        parts.append(f"SELECT s.time AS t, {', '.join(cols)} FROM {source} s "
                     f"WHERE s.switch_id = %(sw{k})s AND s.time >= %(lo)s AND s.time < %(hi)s "
                     f"AND s.layout_id IN ({layouts}) ORDER BY s.time")
        parts.append(f"SELECT pl.time AS t, {', '.join(fails)} FROM traffic_poll_log pl "
                     f"WHERE pl.switch_id = %(sw{k})s AND pl.time >= %(lo)s AND pl.time < %(hi)s AND {FAILED} "
                     f"ORDER BY pl.time")
    n = 4 * len(p.series)
    names = ", ".join(f"c{i}" for i in range(n))
    union = " UNION ALL ".join(f"({q})" for q in parts)
    if len(parts) == 2:      # one switch: its polls have distinct times
        return f"SELECT {time_sql('x.t')}, {names} FROM ({union}) AS x(t, {names}) ORDER BY x.t", params
    # Several switches polled at the same instant share one line (grouping the time-ordered merge).
    merged = ", ".join(f"string_agg(c{i}, '; ')" if i % 4 == 3 else f"max(c{i})" for i in range(n))
    return f"SELECT {time_sql('x.t')}, {merged} FROM ({union}) AS x(t, {names}) GROUP BY x.t ORDER BY x.t", params


# The buckets source when the plot has none (no main tier, no tail): no rows, the columns' types.
_NO_BUCKETS = ("SELECT NULL::int AS series_id, NULL::timestamptz AS bucket, 0::bigint AS sum_delta, "
               "0::bigint AS sum_interval_ms, NULL::float8 AS max_rate, 0 AS samples, 0 AS flagged WHERE false")


def bucket_sql(p: Plan, time_sql: TimeSql = iso_sql) -> tuple[str, dict]:
    """Buckets of the plot's tier (materialized rows, then the live tail), pivoted per series."""
    width = TIER[p.res].seconds
    params: dict = {"ids": [s.id for s in p.series], "lo": p.start, "hi": p.end,
                    "sw": list(dict.fromkeys(s.switch_id for s in p.series))}
    pairs = [(s.id, s.switch_id) for s in p.series]
    # settled buckets are staged when the COPY runs (export.stream_copy), from the blocks there then
    tiers = tier_read.sources_for(([(p.res, pairs, p.main[1], p.main[2])] if p.main is not None else [])
                                  + [(name, pairs, lo, hi) for name, lo, hi in p.tail if name != "raw"], params)
    sources = []
    if p.main is not None:
        sources.append(f"SELECT series_id, bucket, sum_delta, sum_interval_ms, max_rate, samples, flagged "
                       f"FROM {tiers[p.res]} m WHERE series_id = ANY(%(ids)s) "
                       "AND bucket >= %(mlo)s AND bucket < %(mhi)s")
        params["mlo"], params["mhi"] = p.main[1], p.main[2]
    if p.tail:
        params.update(queries.tail_params(p.series, p.tail))
        sources.append(f"SELECT series_id, bucket, sum_delta, sum_interval_ms, max_rate, samples, flagged "
                       f"FROM ({queries.tail_sql(p.res, p.tail, sources=tiers)}) t")
    pivot, out = [], []
    for j, s in enumerate(p.series):
        params[f"k{j}"] = p.factors[s.id]
        params[f"s{j}"] = s.id
        params[f"w{j}"] = s.switch_id
        only = f"FILTER (WHERE series_id = %(s{j})s)"
        pivot += [f"sum(sum_delta) {only} AS d{j}", f"sum(sum_interval_ms) {only} AS i{j}",
                  f"max(max_rate) {only} AS m{j}", f"sum(samples) {only} AS n{j}", f"sum(flagged) {only} AS g{j}"]
        out += [f"CASE WHEN b.i{j} > 0 THEN b.d{j}::float8 * 1000 / b.i{j} * %(k{j})s::float8 END",
                f"b.m{j} * %(k{j})s::float8", f"b.d{j}", f"b.i{j}::float8 / 1000", f"b.n{j}",
                f"nullif(concat_ws('; ', CASE WHEN b.g{j} > 0 THEN b.g{j} || ' flagged' END, "
                f"CASE WHEN b.n{j} > 0 AND b.i{j} = 0 THEN 'none drawn' END, "
                "(SELECT string_agg(fq.txt, ', ') FROM fails fq "
                f"WHERE fq.bucket = k.bucket AND fq.switch_id = %(w{j})s)), '')"]
    if with_group_total(p):
        out += group_total_sql(p)
    sql = f"""
WITH pts AS ({' UNION ALL '.join(sources) or _NO_BUCKETS}),
b AS (SELECT bucket, {', '.join(pivot)} FROM pts GROUP BY bucket),
fails AS (
  SELECT time_bucket(interval '{width} seconds', time) AS bucket, switch_id,
         count(*) || CASE WHEN count(*) = 1 THEN ' poll ' ELSE ' polls ' END || status AS txt
  FROM traffic_poll_log
  WHERE switch_id = ANY(%(sw)s) AND time >= %(lo)s AND time < %(hi)s AND {FAILED}
  GROUP BY 1, 2, status),
k AS (SELECT bucket FROM b UNION SELECT bucket FROM fails)
SELECT {time_sql('k.bucket')}, {', '.join(out)}
FROM k LEFT JOIN b ON b.bucket = k.bucket
ORDER BY k.bucket"""
    return sql, params


def sql_for(p: Plan) -> tuple[str, dict]:
    """The export's query. With comparisons (p.compare) or a zone other than UTC (p.req.tz), the
    plot's and the earlier periods' queries are joined on time and the times written in the zone
    (csvzone.py); without, the plain query (nothing added to the common case)."""
    if p.compare or not csvzone.is_utc_name(p.req.tz):
        return csvzone.combined(p, plain_sql, len(RAW_COLUMNS if p.res == "raw" else BUCKET_COLUMNS))
    return plain_sql(p)


def plain_sql(p: Plan, time_sql: TimeSql = iso_sql) -> tuple[str, dict]:
    if p.res == "raw":
        switches = list(dict.fromkeys(s.switch_id for s in p.series))
        return raw_sql(p, layout_positions(switches, {s.id for s in p.series}), time_sql)
    return bucket_sql(p, time_sql)


def stream(p: Plan, *, timeout_ms: int = EXPORT_TIMEOUT_MS) -> Iterator[bytes]:
    """The header line, then the CSV rows as PostgreSQL writes them, in chunks of ~64 KiB.
    timeout_ms: the COPY's statement timeout (a web request's budget; the CLI's hour)."""
    yield header_line(header(p))
    sql, params = sql_for(p)
    yield from stream_copy(sql, params, timeout_ms=timeout_ms)


def copy_spec(p: Plan) -> tuple[bytes, str, dict]:
    """(header line, SQL, parameters) of the export, as stream() runs them: what a background
    export job (collector/exports) stores and its worker runs, so the file it writes is this
    very CSV, byte for byte."""
    sql, params = sql_for(p)
    return header_line(header(p)), sql, params


def cells(p: Plan) -> int:
    """The export's size as its limits count it: series x rows at its resolution."""
    return (len(p.series) + sum(len(line.series) for line in p.compare)) * p.expected_points


def filename(p: Plan) -> str:
    first = p.series[0]
    name = f"{first.switch}_{first.port or first.index}"
    if len(p.series) > 1:
        name += f"_and_{len(p.series) - 1}_more"
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    return f"cellar_{safe}_{p.start:%Y%m%dT%H%M%SZ}_{p.end:%Y%m%dT%H%M%SZ}_{p.res}.csv"
