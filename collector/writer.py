"""The only code that writes samples and poll outcomes to the database.

Rows go in with one COPY into a temporary table and one INSERT ... ON CONFLICT DO NOTHING, so
a batch is fast (no per-row round trip) and idempotent: a poll written twice (a spool replayed
after a crash, a retried transaction) leaves exactly one row, keyed by (switch_id, time).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterable

from django.db import connection, transaction

from collector.counters import u64_to_i64
from collector.poll import SampleRow

SAMPLE_COLUMNS = "time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags"


def to_datetime(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.utc)


def _signed(values: list[int | None]) -> list[int | None]:
    # Counter64 readings above 2**63-1 keep their bits in a signed bigint (cellar_u64 reads back).
    return [None if v is None else (v if v < 1 << 63 else u64_to_i64(v)) for v in values]


def write_samples(rows: Iterable[SampleRow]) -> int:
    """Write sample rows; returns how many were new (duplicates are skipped, not errors)."""
    rows = list(rows)
    if not rows:
        return 0
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "CREATE TEMP TABLE IF NOT EXISTS cellar_sample_in "
            "(LIKE traffic_sample INCLUDING DEFAULTS) ON COMMIT DELETE ROWS")
        with cur.copy(f"COPY cellar_sample_in ({SAMPLE_COLUMNS}) FROM STDIN") as copy:
            for r in rows:
                copy.write_row((to_datetime(r.at), r.uptime_cs, r.switch_id, r.layout_id,
                                r.interval_ms, _signed(r.raw), r.delta, r.flags))
        cur.execute(
            f"INSERT INTO traffic_sample ({SAMPLE_COLUMNS}) "
            f"SELECT {SAMPLE_COLUMNS} FROM cellar_sample_in ORDER BY switch_id, time "
            "ON CONFLICT (switch_id, time) DO NOTHING")
        return cur.rowcount


def write_poll_log(switch_id: int, at: float, status: str, duration_ms: int, varbinds: int,
                   samples: int, error: str) -> None:
    """Record one poll attempt (idempotent on (switch_id, time) like the samples)."""
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO traffic_poll_log (time, switch_id, duration_ms, varbinds, samples, status, error) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (switch_id, time) DO NOTHING",
            [to_datetime(at), switch_id, duration_ms, varbinds, samples, status, error[:2000]])
