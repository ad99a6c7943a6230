"""CSV out of the archive: PostgreSQL writes it, Python passes the bytes on.

`stream_copy` runs one `COPY (query) TO STDOUT (FORMAT csv)` whose rows reach the client as the
query reads them, in chunks of ~64 KiB: nothing is held in memory however many rows there are,
and a client that goes away cancels the query. `iso_sql` and `flags_sql` spell a time and a
flag word in SQL the way the rest of Cellar spells them (collector/core/isotime.py, facts.py).
Which query to run is the caller's (collector/reader/csvrows.py).
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence

from django.db import connection, transaction

from collector.archive import settled_read, tier_read
from collector.core.facts import ALL_FLAGS, FLAGS

EXPORT_TIMEOUT_MS = 3_600_000     # one COPY statement streams the whole export
CHUNK = 1 << 16


def iso_sql(col: str) -> str:
    """ISO 8601 UTC text of a timestamptz column, fractions only when there are some."""
    return (f"to_char({col} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE WHEN date_trunc('second', {col}) "
            f"= {col} THEN '' ELSE rtrim(to_char({col} AT TIME ZONE 'UTC', '.US'), '0') END || 'Z'")


def _spelled(bits: int) -> str:
    return "|".join(f.name for f in FLAGS if bits & f.bit)


# Every combination of the known flag bits, spelled: one array subscript per value instead of
# nine CASEs (the CSV export's most expensive column otherwise).
FLAG_WORDS_ARRAY = "ARRAY[" + ",".join(f"'{_spelled(b)}'" for b in range(ALL_FLAGS)) + "]::text[]"


def flags_sql(col: str) -> str:
    """"WRAP|GAP" for a flag word column (NULL for none)."""
    spelled = ", ".join(f"CASE WHEN ({col} & {f.bit}) <> 0 THEN '{f.name}' END" for f in FLAGS)
    return (f"CASE WHEN {col} = 0 THEN NULL WHEN {col} > 0 AND {col} < {ALL_FLAGS} THEN "
            f"({FLAG_WORDS_ARRAY})[{col} + 1] ELSE nullif(concat_ws('|', {spelled}), '') END")


def header_line(columns: Sequence[str]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(columns)
    return buf.getvalue().encode()


def stream_copy(sql: str, params: dict, *, prepare_plan: bool = True,
                timeout_ms: int = EXPORT_TIMEOUT_MS) -> Iterator[bytes]:
    """The CSV rows of `sql` as PostgreSQL writes them, in chunks of ~64 KiB, under a statement
    timeout of timeout_ms (a web request passes its own, shorter one: collector/reader/timelimits.py);
    with prepare_plan, plans that stream rows in time order."""
    params = dict(params)
    pieces = [p for k in [k for k in params if k.endswith(settled_read.PIECES_PARAM)]
              for p in settled_read.decode_pieces(params.pop(k))]
    tier_pieces = [p for k in [k for k in params if k.endswith(tier_read.PIECES_PARAM)] for p in params.pop(k)]
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT set_config('statement_timeout', %s, true)", [str(int(timeout_ms))])
        if pieces:
            settled_read.stage(cur, pieces)
        if tier_pieces:
            tier_read.stage_pieces(cur, tier_pieces)
        if prepare_plan:
            streaming_plan(cur)
        try:
            with cur.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)", params) as copy:
                chunk = bytearray()
                for data in copy:
                    chunk += data
                    if len(chunk) >= CHUNK:
                        yield bytes(chunk)
                        chunk.clear()
                if chunk:
                    yield bytes(chunk)
        except GeneratorExit:
            # The client went away: stop the query instead of reading it to its end.
            connection.connection.cancel_safe()
            raise


def streaming_plan(cur) -> None:
    """Inside a transaction: plans that stream rows in time order from the indexes (merging
    ordered chunk scans) instead of sorting everything before the first row. (JIT is off on
    every connection: webapp/settings.py.)"""
    cur.execute("SET LOCAL enable_sort = off")
    cur.execute("SET LOCAL max_parallel_workers_per_gather = 0")
