"""The benchmark's own database: dropped, created and migrated at the start of every run.

Never the `cellar` database of `make run`: the name is `cellar_bench` (CELLAR_BENCH_DB) on the
same server as DATABASE_URL (state/cellar.env). Django is configured against it before any
collector or webapp module is imported.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = os.environ.get("CELLAR_BENCH_DB", "cellar_bench")


def _env_file_value(name: str) -> str | None:
    path = Path(os.environ.get("CELLAR_ENV_FILE") or ROOT / "state" / "cellar.env")
    try:
        for line in path.read_text().splitlines():
            if line.startswith(f"{name}="):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def base_url() -> str:
    url = os.environ.get("CELLAR_BENCH_BASE_DATABASE_URL") or os.environ.get("DATABASE_URL") \
        or _env_file_value("DATABASE_URL")
    if not url:
        raise SystemExit("benchmarks: no DATABASE_URL (run `make provision` or `make bench`)")
    return url


def url_for(dbname: str, url: str | None = None) -> str:
    parts = urlsplit(url or base_url())
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, parts.fragment))


def dbname_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def recreate(dbname: str = BENCH_DB) -> str:
    """DROP (forcing other sessions off) and CREATE the benchmark database; returns its URL."""
    import psycopg

    base = base_url()
    if dbname == dbname_of(base) or dbname in ("cellar", "postgres", "template0", "template1"):
        raise SystemExit(f"benchmarks: refusing to drop database {dbname!r}")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{dbname}"')
    return url_for(dbname, base)


def drop(dbname: str = BENCH_DB) -> None:
    import psycopg

    with psycopg.connect(base_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')


def migrate(url: str) -> float:
    """`manage.py migrate` against url (a subprocess, as an operator would); returns seconds."""
    t0 = time.monotonic()
    env = {**os.environ, "DATABASE_URL": url}
    out = subprocess.run([sys.executable, "manage.py", "migrate", "-v0", "--no-input"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"benchmarks: migrate of {dbname_of(url)} failed:\n{out.stderr[-3000:]}")
    return time.monotonic() - t0


def setup_django(url: str) -> None:
    """Point Django at the benchmark database and set it up (once per process)."""
    os.environ.setdefault("CELLAR_BENCH_BASE_DATABASE_URL", base_url())
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    # The benchmark measures the poll path, not a 60 s statement timeout on multi-GB loads.
    os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT_MS", "0")
    import django

    django.setup()


def server_versions(conn) -> dict[str, str]:
    row = conn.execute("SELECT current_setting('server_version'), "
                       "(SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'), "
                       "current_setting('timescaledb.license', true)").fetchone()
    return {"postgresql": row[0], "timescaledb": f"{row[1]} ({row[2] or '?'} edition)"}


def backend_pid(cursor) -> int:
    cursor.execute("SELECT pg_backend_pid()")
    return cursor.fetchone()[0]


def empty_traffic(ctx=None) -> None:
    """Empty the sample, poll-log and rollup tables (each figure starts from the same state), and
    forget what earlier figures kept of the archive in ctx.cache (the plot data): it is gone."""
    from django.db import connection

    if ctx is not None:
        ctx.cache.clear()

    with connection.cursor() as cur:
        cur.execute("TRUNCATE traffic_sample, traffic_poll_log, traffic_rollup_1m, traffic_rollup_15m, "
                    "traffic_rollup_1h, traffic_rollup_1d, traffic_rollup_watermark, traffic_series_total, "
                    "traffic_settled_poll, traffic_settled_series")
        cur.execute("SELECT to_regclass('traffic_rollup_invalidation')")
        if cur.fetchone()[0]:
            cur.execute("TRUNCATE traffic_rollup_invalidation")
