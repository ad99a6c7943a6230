"""Cellar's samples live in TimescaleDB hypertables: require the extension, with a fix-it message."""
from django.db import migrations

FIX = (
    "Cellar needs the TimescaleDB extension in this database. "
    "With `make run` / `make test` it is built and preloaded for you (scripts/provision.sh). "
    "On your own PostgreSQL: install TimescaleDB >= 2.13 for PostgreSQL {pg}, set "
    "shared_preload_libraries = 'timescaledb' in postgresql.conf, restart PostgreSQL, then run "
    "`CREATE EXTENSION timescaledb;` as a superuser in database {db!r} (or the timescale/timescaledb "
    "image of docker-compose.yml)."
)


def require_timescaledb(apps, schema_editor):
    with schema_editor.connection.cursor() as cur:
        cur.execute("SELECT current_setting('server_version_num')::int / 10000, current_database()")
        pg, db = cur.fetchone()
        cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'")
        if cur.fetchone():
            return
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'")
        if not cur.fetchone():
            raise RuntimeError("TimescaleDB is not installed on this server. " + FIX.format(pg=pg, db=db))
        cur.execute("SELECT current_setting('shared_preload_libraries')")
        if "timescaledb" not in cur.fetchone()[0]:
            raise RuntimeError("TimescaleDB is installed but not preloaded. " + FIX.format(pg=pg, db=db))
        cur.execute("CREATE EXTENSION IF NOT EXISTS timescaledb")


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        # Never dropped on reverse: other databases objects may depend on it.
        migrations.RunPython(require_timescaledb, migrations.RunPython.noop, elidable=False),
    ]
