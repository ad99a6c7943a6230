"""grafana/ (the compose profile's provisioning and dashboards) holds together without a Grafana: the
YAML parses and names the views' role, every dashboard parses, every panel has SQL that reads only
schema grafana, every variable it uses is defined, every data source is the provisioned one; and the
macro expansion the database tests rely on is Grafana's (tests/support/grafana_sql.py)."""
from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
import yaml

from tests.support import grafana_sql as g

ROOT = g.ROOT
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DATASOURCES = yaml.safe_load((g.PROVISIONING / "datasources" / "cellar.yaml").read_text())
PROVIDERS = yaml.safe_load((g.PROVISIONING / "dashboards" / "cellar.yaml").read_text())
BUILT_IN = {"__interval", "__interval_ms", "__range", "__from", "__to", "__all"}
# What a panel's SQL may name besides columns: schema grafana's objects and SQL itself.
OBJECT = re.compile(r"\b(?:FROM|JOIN)\s+([a-zA-Z_][\w.]*)(\s*\()?", re.I)


def _datasource() -> dict:
    (ds,) = DATASOURCES["datasources"]
    return ds


def test_the_provisioned_data_source_is_the_read_only_role_with_the_password_from_the_environment():
    ds = _datasource()
    assert ds["type"] == "grafana-postgresql-datasource" and ds["url"] == "db:5432"
    assert ds["user"] == "cellar_grafana" and ds["jsonData"]["database"] == "cellar"
    assert ds["jsonData"]["timescaledb"] is True
    assert ds["secureJsonData"]["password"] == "$CELLAR_GRAFANA_PASSWORD"
    (provider,) = PROVIDERS["providers"]
    assert provider["type"] == "file" and provider["allowUiUpdates"] is False
    grafana = COMPOSE["services"]["grafana"]
    assert grafana["profiles"] == ["grafana"]
    assert re.fullmatch(r"grafana/grafana-oss:11\.\d+\.\d+", grafana["image"]), grafana["image"]
    assert grafana["ports"] == ["127.0.0.1:3000:3000"]
    mounts = {m.split(":")[0]: m.split(":")[1] for m in grafana["volumes"] if m.startswith("./")}
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"
    assert mounts["./grafana/dashboards"] == provider["options"]["path"]
    assert "CELLAR_GRAFANA_PASSWORD" in grafana["environment"] and "env_file" not in grafana
    assert "manage.py grafana_role" in " ".join(COMPOSE["services"]["migrate"]["command"])


def test_every_dashboard_panel_and_variable_reads_only_schema_grafana_through_the_provisioned_source():
    uid = _datasource()["uid"]
    found = g.dashboards()
    assert set(found) == {"switch-ports.json", "port.json", "pvc-path.json", "top-talkers.json"}
    uids = set()
    for name, d in found.items():
        uids.add(d["uid"])
        defined = {v["name"] for v in g.variables_of(d)}
        queries = []
        for var in g.variables_of(d):
            if var["type"] == "query":
                assert var["datasource"]["uid"] == uid, (name, var["name"])
                queries.append((f"variable {var['name']}", var["query"]))
        for panel in g.panels(d):
            if panel["type"] == "row":
                continue
            assert panel["datasource"]["uid"] == uid, (name, panel["title"])
            assert panel["targets"], (name, panel["title"])
            for t in panel["targets"]:
                assert t["datasource"]["uid"] == uid and t["rawQuery"] and t["format"] in ("time_series", "table")
                queries.append((panel["title"], t["rawSql"]))
            if panel["type"] == "timeseries":
                assert panel["fieldConfig"]["defaults"]["unit"], (name, panel["title"])
            if "repeat" in panel:
                assert panel["repeat"] in defined
            for text in (panel["title"],):
                assert g.used_variables(text) <= defined | BUILT_IN, (name, text)
        assert queries
        for what, sql in queries:
            assert g.used_variables(sql) <= defined | BUILT_IN, (name, what, g.used_variables(sql) - defined)
            objects = OBJECT.findall(sql)
            assert objects, (name, what)
            for obj, _ in objects:
                assert obj.startswith("grafana."), (name, what, obj)
            assert not re.search(r"(?<!grafana\.)\b(public|traffic_\w+|inventory_\w+|pg_\w+)\b", sql), (name, what)
    assert len(uids) == len(found)


def test_units_are_grafana_unit_ids():
    units = {p["fieldConfig"]["defaults"]["unit"] for d in g.dashboards().values() for p in g.panels(d)
             if p["type"] == "timeseries"}
    assert units <= {"bps", "pps", "cps", "suffix: cells/s"}, units


# --- the expansion, against the examples of Grafana's own macros_test.go and the frontend's rules ---

FROM = datetime(2018, 4, 12, 18, 0, tzinfo=UTC)
TO = datetime(2018, 4, 12, 18, 5, tzinfo=UTC)


@pytest.mark.parametrize("raw, expanded", [
    ("WHERE $__timeFilter(time_column)",
     "WHERE time_column BETWEEN '2018-04-12T18:00:00Z' AND '2018-04-12T18:05:00Z'"),
    ("SELECT $__timeGroup(time_column,'5m')", "SELECT time_bucket('300.000s',time_column)"),
    ("SELECT $__timeGroupAlias(time_column,'5m')", "SELECT time_bucket('300.000s',time_column) AS \"time\""),
    ("select $__timeFrom()", "select '2018-04-12T18:00:00Z'"),
    ("select $__time(time_column)", "select time_column AS \"time\""),
    ("select $__unixEpochFilter(time)", "select time >= 1523556000 AND time <= 1523556300"),
    ("WHERE x = $__interval_ms AND y = '$__interval'", "WHERE x = 60000 AND y = '1m'"),
])
def test_macros_expand_as_grafana_postgresql_does(raw, expanded):
    assert g.expand_macros(raw, FROM, TO, 60_000) == expanded


def test_template_variables_are_quoted_as_the_sql_data_source_does():
    v = {"switch": g.Variable("switch", False, ("o'brien",)),
         "direction": g.Variable("direction", True, ("in", "out"))}
    assert g.interpolate("switch = '$switch' AND direction IN ($direction) AND d IN (${direction})", v) == \
        "switch = 'o''brien' AND direction IN ('in','out') AND d IN ('in','out')"
    assert g.interpolate("$__interval_ms $unknown", v) == "$__interval_ms $unknown"
    assert [g.format_interval(ms) for ms in (500, 15_000, 90_000, 3_600_000, 86_400_000)] == \
        ["500ms", "15s", "1m", "1h", "1d"]
    assert g.rfc3339nano(datetime(2018, 4, 12, 18, 0, 0, 123000, tzinfo=UTC)) == "2018-04-12T18:00:00.123Z"
    with pytest.raises(ValueError, match="unknown macro"):
        g.expand_macros("$__nope(x)", FROM, TO, 1000)
