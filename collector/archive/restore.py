"""Restore a backup made by collector/archive/backup.py, by TimescaleDB's documented procedure.

Steps (TimescaleDB "Back up and restore", logical backup, 2.x):
  1. a database with the timescaledb extension at the dump's version (CREATE EXTENSION ... VERSION);
  2. SELECT timescaledb_pre_restore();   (restoring mode: background jobs stopped, catalog writable)
  3. pg_restore -Fc into it, in one process (TimescaleDB's catalog does not take a parallel -j restore);
  4. SELECT timescaledb_post_restore();  (always, even after a failed pg_restore)
Before step 1 the manifest is checked: the dump's sha256, its migrations against this code's (a
dump from a newer schema is refused; an older one is migrated forward after the restore, said so),
the TimescaleDB version this server can create. After step 4 every table's row count is compared
with the manifest. A database that holds tables is never replaced without `force`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management import call_command
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

from collector.archive.backup import (
    BackupError,
    Manifest,
    Say,
    Target,
    describe,
    first_line,
    manifest_path,
    one_row,
    run_tool,
    sha256_of,
    split_warnings,
)

MAINTENANCE_DBS = ("postgres", "template1")


@dataclass
class Plan:
    """What a restore will do, decided from the manifest before anything is touched."""

    dump: Path
    manifest: Manifest
    target: Target
    missing: list[str] = field(default_factory=list)     # migrations this code has and the dump has not


@dataclass
class Report:
    database: str
    replaced: bool
    created: bool
    row_counts: dict[str, int]
    migrated: list[str]
    lines: list[str] = field(default_factory=list)


def code_migrations() -> set[str]:
    """Every migration this code has ("app.name"), read from disk only."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {f"{app}.{name}" for app, name in loader.disk_migrations}


def plan(dump: Path, into: str | None = None, alias: str = "default") -> Plan:
    if not dump.is_file():
        raise BackupError(f"no dump at {dump}")
    manifest = Manifest.read(manifest_path(dump))
    if manifest.dump_sha256 != sha256_of(dump):
        raise BackupError(f"{dump.name} does not match its manifest (sha256 differs): truncated or altered; "
                          "nothing was restored")
    known = code_migrations()
    newer = sorted(set(manifest.migrations) - known)
    if newer:
        raise BackupError(f"the dump was made by a newer Cellar (commit {manifest.cellar_commit[:12]}): its schema "
                          f"has migrations this code does not know ({', '.join(newer)}); restore it with that "
                          "version or a later one. Nothing was restored")
    return Plan(dump, manifest, Target.from_settings(alias, into), sorted(known - set(manifest.migrations)))


def restore(dump: Path, into: str | None = None, force: bool = False, say: Say = print,
            alias: str = "default") -> Report:
    p = plan(dump, into, alias)
    m, target = p.manifest, p.target
    say(f"dump {dump.name}: database {m.database!r} of {m.created_at}, Cellar commit {m.cellar_commit[:12]}, "
        f"TimescaleDB {m.timescaledb_version}, {m.row_counts.get('traffic_sample', 0):,} samples")
    admin_db = _admin_db(target)
    with target.connect(admin_db) as admin:
        _check_extension(admin, m.timescaledb_version)
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [target.dbname]).fetchone()
        replaced = created = False
        if exists:
            tables, samples = _contents(target)
            if tables and not force:
                raise BackupError(
                    f"database {target.dbname!r} is not empty ({tables} tables, {samples:,} samples): restore "
                    "--force replaces it, --into NAME restores into another (new) database. Nothing was changed")
            if tables:
                _drop(admin, target.dbname)
                replaced = True
        if replaced or not exists:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(target.dbname)))
            created = not replaced
    say(f"{'replaced' if replaced else 'created' if created else 'using the empty'} database {target.dbname!r}")
    _pg_restore(p, say)
    counts = _verify_counts(target, m)
    say(f"restored {len(counts)} tables, {sum(counts.values()):,} rows, as the manifest lists them")
    migrated: list[str] = []
    if p.missing:
        say(f"the dump's schema is older than this code: applying {len(p.missing)} migrations "
            f"({', '.join(p.missing)})")
        _migrate(target, alias)
        migrated = p.missing
        say("migrated forward")
    return Report(target.dbname, replaced, created, counts, migrated)


def _admin_db(target: Target) -> str:
    """A database to issue CREATE/DROP DATABASE from (never the one being replaced)."""
    for name in MAINTENANCE_DBS:
        if name == target.dbname:
            continue
        try:
            target.connect(name).close()
            return name
        except BackupError:
            continue
    raise BackupError(f"cannot connect to a maintenance database ({', '.join(MAINTENANCE_DBS)}) as "
                      f"{target.user!r} to create {target.dbname!r}")


def _check_extension(admin, version: str) -> None:
    row = admin.execute("SELECT 1 FROM pg_available_extension_versions WHERE name = 'timescaledb' AND version = %s",
                        [version]).fetchone()
    if row is None:
        have = [r[0] for r in admin.execute(
            "SELECT version FROM pg_available_extension_versions WHERE name = 'timescaledb' ORDER BY 1")]
        raise BackupError(f"the dump needs TimescaleDB {version}; this server offers {', '.join(have) or 'none'}. "
                          f"Restore on a server with {version}, then ALTER EXTENSION timescaledb UPDATE. "
                          "Nothing was changed")


def _contents(target: Target) -> tuple[int, int]:
    with target.connect() as conn:
        (tables,) = one_row(conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
        samples = 0
        if one_row(conn.execute("SELECT to_regclass('public.traffic_sample') IS NOT NULL"))[0]:
            samples = one_row(conn.execute("SELECT count(*) FROM traffic_sample"))[0]
    return tables, samples


def _drop(admin, dbname: str) -> None:
    connections.close_all()         # this process's own Django connections, so they do not block the DROP
    others: list[str] = []
    for _ in range(50):         # a session just closed (ours) leaves pg_stat_activity a moment later
        others = [r[0] or "?" for r in admin.execute(
            "SELECT application_name FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'",
            [dbname])]
        if not others:
            break
        time.sleep(0.1)
    if others:
        raise BackupError(f"{len(others)} other sessions are connected to {dbname!r} ({', '.join(sorted(set(others)))}"
                          "; web, worker, beat?): stop them before a restore replaces the database. Nothing was "
                          "changed")
    # FORCE ends what is left: TimescaleDB's background job scheduler of that database, no client.
    admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(dbname)))


# The dump grants schema grafana's views to the role cellar_grafana (migration archive/0007). A role belongs to the
# cluster, not to the database: a cluster that never had it (a restore onto a new server) gets it here, NOLOGIN,
# or pg_restore fails on those GRANTs; `manage.py grafana_role` then gives it its login and settings.
_GRAFANA_ROLE = """DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cellar_grafana') THEN
        CREATE ROLE cellar_grafana NOLOGIN;
    END IF;
END $$"""


def _pg_restore(p: Plan, say: Say) -> None:
    target, version = p.target, p.manifest.timescaledb_version
    with target.connect() as conn:
        conn.execute(_GRAFANA_ROLE)
        conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS timescaledb VERSION {}").format(sql.Literal(version)))
        (have,) = one_row(conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'"))
        if have != version:
            raise BackupError(f"database {target.dbname!r} has TimescaleDB {have}, the dump {version}")
        conn.execute("SELECT timescaledb_pre_restore()")
        say("timescaledb_pre_restore(); pg_restore ...")
        try:
            # --no-owner: the objects belong to the user restoring (the dump may come from another role).
            proc = run_tool(["pg_restore", "--format=custom", f"--dbname={target.dbname}", "--no-owner",
                             "--no-password", str(p.dump)], target.env())
        finally:
            conn.execute("SELECT timescaledb_post_restore()")
            say("timescaledb_post_restore()")
    _, lines = split_warnings(proc.stderr)
    if proc.returncode != 0:
        raise BackupError("pg_restore reported errors (the database is left as restored, for inspection): "
                          + " | ".join(lines[:10]))
    for line in lines:
        say(f"pg_restore: {line}")


def _verify_counts(target: Target, m: Manifest) -> dict[str, int]:
    with target.connect() as conn, conn.cursor() as cur:
        _, _, applied, counts = describe(cur)
    if applied != m.migrations:
        raise BackupError("the restored database's migrations differ from the manifest's")
    wrong = {t: (counts.get(t), n) for t, n in m.row_counts.items() if counts.get(t) != n}
    if wrong:
        detail = ", ".join(f"{t}: {got} rows, manifest {want}" for t, (got, want) in sorted(wrong.items()))
        raise BackupError(f"restored row counts differ from the manifest: {detail}")
    return counts


def _migrate(target: Target, alias: str) -> None:
    """Apply this code's migrations to the restored database: through `alias` when it is the configured
    database, else through a copy of that connection renamed (held for this call only, never in settings)."""
    use = alias
    if connections[alias].settings_dict["NAME"] != target.dbname:
        use = f"restore_{target.dbname}"
        wrapper = connections[alias].copy(alias=use)
        wrapper.settings_dict["NAME"] = target.dbname
        connections[use] = wrapper
    try:
        call_command("migrate", database=use, interactive=False, verbosity=0)
    except Exception as exc:
        raise BackupError(f"migrating the restored database forward failed: {first_line(exc)}") from exc
    finally:
        if use != alias:
            connections[use].close()
            del connections[use]
