"""Backups of the whole Cellar database: pg_dump in custom format (-Fc) and a manifest beside it.

TimescaleDB's documented procedure ("Back up and restore", logical backup): `pg_dump -Fc` of
the entire database; hypertables and their chunks are ordinary tables to pg_dump, which warns
about the circular foreign keys of TimescaleDB's catalog (hypertable <-> chunk): expected, and
counted here instead of shown. The restore side is collector/archive/restore.py.

The manifest (`<name>.manifest.json` next to `<name>.dump`) says what the dump holds, so a restore
can refuse what it cannot take before touching anything: the Cellar commit, every applied
migration (and the last of each app), the TimescaleDB and PostgreSQL versions, the exact row
count of every table and the dump's sha256. The counts are read in the very snapshot pg_dump
dumps (pg_export_snapshot + --snapshot), so they match the dump even while the collector writes.

The password goes to pg_dump through PGPASSWORD in its environment, never its command line
(visible to every user in ps) nor any message.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections
from psycopg import sql

MANIFEST_FORMAT = 1
# pg_dump's warning about TimescaleDB's catalog (hypertable <-> chunk, and the like): expected.
CIRCULAR_FK = re.compile(r"circular foreign-key constraints|consider using a full dump|"
                         r"you might not be able to restore the dump without using --disable-triggers|"
                         r"^\s*(pg_dump: )?(detail|hint): ", re.IGNORECASE)
Say = Callable[[str], None]


class BackupError(Exception):
    """Backup or restore cannot go on; str() says why and what to do, never a password."""


@dataclass(frozen=True)
class Target:
    """Where the database is, from settings.DATABASES (DATABASE_URL)."""

    host: str
    port: str
    user: str
    password: str
    dbname: str
    sslmode: str = ""

    @classmethod
    def from_settings(cls, alias: str = "default", dbname: str | None = None) -> Target:
        # settings_dict, not settings.DATABASES: the test runner renames the database there.
        d = connections[alias].settings_dict
        return cls(d.get("HOST") or "", str(d.get("PORT") or ""), d.get("USER") or "", d.get("PASSWORD") or "",
                   dbname or d["NAME"], str((d.get("OPTIONS") or {}).get("sslmode") or ""))

    def env(self, dbname: str | None = None) -> dict[str, str]:
        """The environment of a pg_dump / pg_restore child: libpq reads the connection from it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update({"PGHOST": self.host, "PGPORT": self.port, "PGUSER": self.user,
                    "PGDATABASE": dbname or self.dbname, "PGCONNECT_TIMEOUT": "10",
                    "PGAPPNAME": "cellar-backup"})
        if self.password:
            env["PGPASSWORD"] = self.password
        if self.sslmode:
            env["PGSSLMODE"] = self.sslmode
        return {k: v for k, v in env.items() if v}

    def connect(self, dbname: str | None = None, autocommit: bool = True) -> psycopg.Connection:
        kwargs: dict[str, Any] = {"host": self.host, "port": self.port, "user": self.user, "password": self.password,
                  "dbname": dbname or self.dbname, "connect_timeout": 10, "application_name": "cellar-backup"}
        if self.sslmode:
            kwargs["sslmode"] = self.sslmode
        try:
            return psycopg.connect(autocommit=autocommit, **{k: v for k, v in kwargs.items() if v})
        except psycopg.OperationalError as exc:
            raise BackupError(f"cannot connect to database {dbname or self.dbname!r} at "
                              f"{self.host or 'localhost'}:{self.port}: {first_line(exc)}") from None


@dataclass
class Manifest:
    created_at: str
    database: str
    cellar_commit: str
    postgres_version: str
    timescaledb_version: str
    migrations: list[str]                         # every applied migration, "app.name"
    heads: dict[str, str]                         # the last applied migration of each app
    row_counts: dict[str, int]                    # every table of schema public
    dump_file: str = ""
    dump_bytes: int = 0
    dump_sha256: str = ""
    format: int = MANIFEST_FORMAT
    notes: list[str] = field(default_factory=list)

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")

    @classmethod
    def read(cls, path: Path) -> Manifest:
        if not path.is_file():
            raise BackupError(f"no manifest {path.name} beside the dump: a restore needs it (written by "
                              "`manage.py backup`) to check the schema and the TimescaleDB version")
        try:
            data = json.loads(path.read_text())
            if data.get("format") != MANIFEST_FORMAT:
                raise BackupError(f"{path.name}: manifest format {data.get('format')!r}, this Cellar reads "
                                  f"{MANIFEST_FORMAT}")
            return cls(**data)
        except (ValueError, TypeError) as exc:
            raise BackupError(f"{path.name} is not a Cellar manifest: {exc}") from None


def manifest_path(dump: Path) -> Path:
    return dump.with_name(dump.stem + ".manifest.json")


def cellar_commit() -> str:
    """The git commit this code runs from, if it runs from a checkout (a Docker image does not)."""
    try:
        out = subprocess.run(["git", "-C", str(settings.BASE_DIR), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def heads_of(applied: list[str]) -> dict[str, str]:
    """The last applied migration of each app (names start with their number: 0003_... > 0002_...)."""
    heads: dict[str, str] = {}
    for item in sorted(applied):
        app, _, name = item.partition(".")
        heads[app] = name
    return heads


def one_row(cur: psycopg.Cursor) -> tuple[Any, ...]:
    """The row of a statement that always answers one (SHOW, count(*), a function's value)."""
    row = cur.fetchone()
    if row is None:
        raise BackupError("the database answered no row to a statement that always answers one")
    return row


def describe(cur: psycopg.Cursor) -> tuple[str, str, list[str], dict[str, int]]:
    """PostgreSQL and TimescaleDB versions, applied migrations and exact row counts, as `cur` sees them."""
    cur.execute("SHOW server_version")
    pg_version = one_row(cur)[0]
    cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'")
    row = cur.fetchone()
    if row is None:
        raise BackupError("this database has no timescaledb extension: not a Cellar database")
    cur.execute("SELECT to_regclass('public.django_migrations') IS NOT NULL")
    applied: list[str] = []
    if one_row(cur)[0]:
        cur.execute("SELECT app || '.' || name FROM django_migrations ORDER BY app, name")
        applied = [r[0] for r in cur.fetchall()]
    cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    counts: dict[str, int] = {}
    for (table,) in cur.fetchall():
        cur.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table)))
        counts[table] = one_row(cur)[0]
    return pg_version, row[0], applied, counts


def backup(destination: Path, say: Say = print, alias: str = "default") -> tuple[Path, Manifest]:
    """Dump the database to `destination` (a file, or a directory to put cellar-<db>-<UTC time>.dump in),
    write the manifest beside it; returns both. Nothing is left behind under the final names on failure."""
    target = Target.from_settings(alias)
    now = datetime.now(UTC)
    if destination.is_dir():
        destination = destination / f"cellar-{target.dbname}-{now:%Y%m%dT%H%M%SZ}.dump"
    if destination.exists():
        raise BackupError(f"{destination} exists; give another name (a backup never overwrites one)")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    # The counts and the dump come from one snapshot, held open by this transaction.
    with target.connect(autocommit=False) as conn, conn.cursor() as cur:
        cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cur.execute("SELECT pg_export_snapshot()")
        snapshot = one_row(cur)[0]
        pg_version, ts_version, applied, counts = describe(cur)
        say(f"dumping database {target.dbname!r} (TimescaleDB {ts_version}, "
            f"{counts.get('traffic_sample', 0):,} samples) to {destination}")
        proc = run_tool(["pg_dump", "--format=custom", f"--snapshot={snapshot}", f"--file={partial}",
                         "--no-password"], target.env())
        conn.rollback()
    expected, other = split_warnings(proc.stderr)
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError("pg_dump failed: " + (" | ".join(other) or f"exit {proc.returncode}"))
    for line in other:
        say(f"pg_dump: {line}")
    if expected:
        say(f"pg_dump: {expected} expected warning lines about the circular foreign keys of TimescaleDB's "
            "catalog (hypertable/chunk; documented by TimescaleDB, harmless)")
    manifest = Manifest(created_at=now.isoformat(), database=target.dbname, cellar_commit=cellar_commit(),
                        postgres_version=pg_version, timescaledb_version=ts_version, migrations=applied,
                        heads=heads_of(applied), row_counts=counts, dump_file=destination.name,
                        dump_bytes=partial.stat().st_size, dump_sha256=sha256_of(partial))
    partial.rename(destination)
    manifest.write(manifest_path(destination))
    say(f"wrote {destination} ({manifest.dump_bytes:,} bytes) and {manifest_path(destination).name} "
        f"(commit {manifest.cellar_commit[:12]}, {len(counts)} tables, {sum(counts.values()):,} rows)")
    return destination, manifest


def run_tool(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """pg_dump / pg_restore with the connection in `env`; a missing tool is one clear line."""
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True)
    except FileNotFoundError:
        raise BackupError(f"{argv[0]} is not installed: install PostgreSQL's client tools (Debian: "
                          "postgresql-client, the server's major version or newer)") from None


def split_warnings(stderr: str) -> tuple[int, list[str]]:
    """(number of expected TimescaleDB catalog warning lines, the other lines)."""
    expected, other = 0, []
    for line in stderr.splitlines():
        if not line.strip():
            continue
        if CIRCULAR_FK.search(line):
            expected += 1
        else:
            other.append(line.strip())
    return expected, other


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def first_line(exc: BaseException) -> str:
    """An error's first line: libpq's messages never carry the password, but keep them short."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
