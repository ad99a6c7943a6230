"""The role Grafana logs in as (cellar_grafana, migration archive/0007, manage.py grafana_role) reads the
views of schema grafana and nothing else, writes nothing, and its statements stop at the plot data's
time limit. It logs in for real (a role's settings apply at login, not to SET ROLE), over TCP with the
password manage.py grafana_role set, to the test database."""
from __future__ import annotations

import io
import secrets
from datetime import timedelta

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from collector.reader.timelimits import limit_ms
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db(transaction=True)


def _login(password: str) -> psycopg.Connection:
    s = connection.settings_dict
    return psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"], dbname=s["NAME"], user="cellar_grafana",
                           password=password, autocommit=True)


@pytest.fixture
def grafana_login(settings):
    password = secrets.token_urlsafe(18)
    settings.CELLAR_GRAFANA_PASSWORD = password
    out = io.StringIO()
    call_command("grafana_role", stdout=out)
    assert "LOGIN with the password given" in out.getvalue() and password not in out.getvalue()
    yield password
    settings.CELLAR_GRAFANA_PASSWORD = ""
    call_command("grafana_role", stdout=io.StringIO())


def _archive() -> None:
    sw = f.switch()
    p = f.port(sw, "A1")
    lay = f.layout(sw, [f.series(p, "in")])
    f.insert(sw, lay, [(i * 15, 15_000, [1000 + i], [0]) for i in range(240)])


def test_the_role_reads_the_views_only_and_never_writes(grafana_login):
    _archive()
    with _login(grafana_login) as conn:
        assert conn.execute("SELECT count(*) FROM grafana.traffic_raw").fetchone()[0] == 240
        assert conn.execute("SELECT count(*) FROM grafana.series_labels").fetchone()[0] == 1
        for table in ("traffic_sample", "traffic_series", "traffic_rollup_1m", "inventory_switch",
                      "auth_user", "access_api_token"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                conn.execute(f"SELECT 1 FROM public.{table} LIMIT 1")
        for statement in ("DELETE FROM grafana.series_labels", "CREATE TABLE grafana.x (i int)",
                          "CREATE TABLE public.x (i int)", "CREATE VIEW grafana.y AS SELECT 1",
                          "UPDATE grafana.traffic_1m SET value = 0"):
            with pytest.raises((psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.InsufficientPrivilege,
                                psycopg.errors.ObjectNotInPrerequisiteState)):
                conn.execute(statement)
        # read-only is the default, not a wall: switching it off still leaves no privilege to write
        conn.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TABLE public.x (i int)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TABLE grafana.x (i int)")


def test_an_unbounded_dashboard_query_is_stopped_at_the_plot_data_limit(settings):
    _archive()
    settings.CELLAR_WEB_TIMEOUT_SCALE = 0.02         # 15 s -> 300 ms, so the test need not wait 15 s
    password = secrets.token_urlsafe(18)
    settings.CELLAR_GRAFANA_PASSWORD = password
    out = io.StringIO()
    call_command("grafana_role", stdout=out)
    ms = limit_ms("traffic.data")
    assert ms == 300 and f"statement timeout {ms} ms" in out.getvalue()
    try:
        with _login(password) as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()[0] == f"{ms}ms"
            # no $__timeFilter at all: every raw row against every other, as a careless panel might
            unbounded = "SELECT count(*) FROM grafana.traffic_raw a, grafana.traffic_raw b, grafana.traffic_raw c"
            with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout") as caught:
                conn.execute(unbounded)
            assert caught.value.sqlstate == "57014"
            # a bounded query of the same views is answered
            assert conn.execute("SELECT count(*) FROM grafana.traffic_raw WHERE time BETWEEN %s AND %s",
                                [f.T0, f.T0 + timedelta(minutes=10)]).fetchone()[0] == 41
    finally:
        settings.CELLAR_GRAFANA_PASSWORD = ""
        settings.CELLAR_WEB_TIMEOUT_SCALE = 1.0
        call_command("grafana_role", stdout=io.StringIO())


def test_without_a_password_the_role_cannot_log_in(settings):
    settings.CELLAR_GRAFANA_PASSWORD = ""
    out = io.StringIO()
    call_command("grafana_role", stdout=out)
    assert "NOLOGIN" in out.getvalue()
    with pytest.raises(psycopg.OperationalError):
        _login("whatever-it-was-before").close()
    settings.CELLAR_GRAFANA_PASSWORD = "short"
    with pytest.raises(CommandError, match="at least 12"):
        call_command("grafana_role", stdout=io.StringIO())
