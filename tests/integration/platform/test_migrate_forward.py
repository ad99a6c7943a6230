"""A database made before the one-way house migrates forward and keeps every row.

The schema of that database is what migrations inventory 0001, traffic 0001-0008 and status
0001-0002 made (the code of that time wrote the rows below the same way, through those
tables). The test migrates back to exactly that state, writes rows as the old code did, migrates
forward, and reads them through today's models and today's ingest.
"""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from collector.core.facts import to_i64

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("inventory", "0001_inventory_tables"), ("traffic", "0008_lz4_sample_arrays"),
          ("status", "0002_host_check_hypertable"), ("archive", None), ("poller", None)]
T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _old_rows() -> dict:
    """Rows as the code before the move wrote them, in the old schema (raw SQL: no model of
    today describes it)."""
    with connection.cursor() as cur:
        cur.execute("""INSERT INTO inventory_switch (name, address, snmp_port, snmp_version, community, v3_user,
                       auth_proto, auth_key, priv_proto, priv_key, timeout_s, retries, profile, detected_profile,
                       poll_interval_s, poller_group, enabled, sys_object_id, sys_descr, sys_name, switch_type,
                       software_version, hardware_version, created_at, updated_at)
                       VALUES ('old-sw', '127.0.0.1', 161, '2c', '', '', '', '', '', '', 2.0, 1, 'if-mib', '', 15,
                       'default', true, '', '', '', '', '', '', now(), now()) RETURNING id""")
        switch_id = cur.fetchone()[0]
        cur.execute("""INSERT INTO inventory_port (switch_id, key, if_index, name, label, description, port_type,
                       is_atm, speed_bps, admin_status, oper_status, neighbor_address, neighbor_ifname, first_seen)
                       VALUES (%s, '1', 1, 'eth0', '', '', 'ethernet', false, 1000000000, 'up', 'up', '', '', now())
                       RETURNING id""", [switch_id])
        port_id = cur.fetchone()[0]
        # Two interfaces the old code named alike (it kept the agent's name as it was).
        for key in ("2", "3"):
            cur.execute("""INSERT INTO inventory_port (switch_id, key, if_index, name, label, description, port_type,
                           is_atm, admin_status, oper_status, neighbor_address, neighbor_ifname, first_seen)
                           VALUES (%s, %s, %s, 'lo0', '', '', 'loopback', false, 'up', 'up', '', '', now())""",
                        [switch_id, key, int(key)])
        cur.execute("""INSERT INTO traffic_series (switch_id, object_name, index, kind, port_id, direction, metric,
                       unit, width, capacity_per_s, first_seen, reset_series_id)
                       VALUES (%s, 'ifHCInOctets', '1', 'counter', %s, 'in', 'octets', 'octets', 64, 125000000,
                       now(), NULL) RETURNING id""", [switch_id, port_id])
        series_id = cur.fetchone()[0]
        # The digest as the ingest of that time made it: sha256 of the comma-separated series ids.
        digest = hashlib.sha256(str(series_id).encode()).hexdigest()
        cur.execute("INSERT INTO traffic_layout (switch_id, series_ids, digest, created_at) VALUES (%s, %s, %s, now()) "
                    "RETURNING id", [switch_id, [series_id], digest])
        layout_id = cur.fetchone()[0]
        raw = 2**64 - 1000      # a Counter64 above 2**63: stored two's complement
        for k in range(40):
            cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                        "flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                        [T0 + timedelta(seconds=15 * k), 100 + 1500 * k, switch_id, layout_id,
                         None if k == 0 else 15000, [to_i64((raw + 1000 * k) % 2**64)],
                         [None if k == 0 else 1000], [32 if k == 0 else (1 if k == 1 else 0)]])
        cur.execute("INSERT INTO traffic_poll_log (time, switch_id, duration_ms, varbinds, samples, status, error) "
                    "VALUES (%s, %s, 12, 3, 1, 'ok', '')", [T0, switch_id])
        cur.execute("INSERT INTO traffic_rollup_1m (bucket, sum_delta, sum_interval_ms, max_rate, min_rate, series_id, "
                    "samples, flagged) VALUES (%s, 4000, 60000, 66.7, 66.7, %s, 4, 0)", [T0, series_id])
        cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until) VALUES ('1m', %s)",
                    [T0 + timedelta(minutes=1)])
        cur.execute("INSERT INTO status_switchhealth (switch_id, last_status, last_error, consecutive_failures, "
                    "polls_ok, polls_failed) VALUES (%s, 'ok', '', 0, 40, 0)", [switch_id])
        cur.execute("INSERT INTO inventory_host (name, address, description, check_method, tcp_port, enabled) "
                    "VALUES ('h', '127.0.0.1', '', 'auto', 22, true) RETURNING id")
        host_id = cur.fetchone()[0]
        cur.execute("INSERT INTO status_host_check (time, rtt_ms, host_id, reachable, method, error) "
                    "VALUES (%s, 0.1, %s, true, 'icmp', '')", [T0, host_id])
        cur.execute("INSERT INTO status_hoststate (host_id, reachable, method, error) VALUES (%s, true, 'icmp', '')",
                    [host_id])
        cur.execute("INSERT INTO django_content_type (app_label, model) VALUES ('traffic', 'series'), "
                    "('status', 'switchhealth') ON CONFLICT DO NOTHING")
    return {"switch": switch_id, "series": series_id, "host": host_id}


def test_a_database_from_before_the_move_migrates_forward_without_losing_a_row():
    _migrate(BEFORE)
    try:
        _check_forward()
    finally:       # whatever happened, leave the test database at today's schema for the next tests
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def _check_forward():
    from django.db.migrations.recorder import MigrationRecorder

    with connection.cursor() as cur:
        cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'traffic_series'")
        assert "reset_series_id" in {r[0] for r in cur.fetchall()}       # really the old schema
    ids = _old_rows()
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from django.contrib.contenttypes.models import ContentType

    from collector.archive import ingest
    from collector.archive.models import Layout, PollLog, Rollup1m, RollupWatermark, Sample, Series
    from collector.core.facts import stored_to_u64
    from collector.core.poll import PollResult
    from collector.core.readings import CounterReading
    from collector.inventory.models import Switch
    from collector.poller.models import HostCheck, HostState, SwitchHealth

    applied = {(m.app, m.name) for m in MigrationRecorder.Migration.objects.all()}
    assert ("archive", "0002_drop_reset_series") in applied and ("poller", "0001_models_from_status") in applied
    from collector.inventory.models import Port

    names = dict(Port.objects.filter(switch_id=ids["switch"]).values_list("key", "name"))
    assert names == {"1": "eth0", "2": "lo0 (ifIndex 2)", "3": "lo0 (ifIndex 3)"}
    assert set(Port.objects.filter(switch_id=ids["switch"]).values_list("agent_name", flat=True)) == {"eth0", "lo0"}
    series = Series.objects.get(pk=ids["series"])
    assert (series.object_name, series.width, series.port.name) == ("ifHCInOctets", 64, "eth0")
    samples = list(Sample.objects.filter(switch_id=ids["switch"]).order_by("time"))
    assert len(samples) == 40
    assert stored_to_u64(samples[0].raw[0]) == 2**64 - 1000 and samples[39].delta == [1000]
    assert PollLog.objects.filter(switch_id=ids["switch"]).count() == 1
    assert Rollup1m.objects.get(series_id=ids["series"]).sum_delta == 4000
    assert RollupWatermark.objects.get(tier="1m").done_until == T0 + timedelta(minutes=1)
    assert SwitchHealth.objects.get(switch_id=ids["switch"]).polls_ok == 40
    assert HostCheck.objects.filter(host_id=ids["host"]).count() == 1
    assert HostState.objects.get(host_id=ids["host"]).reachable
    assert ContentType.objects.filter(app_label="archive", model="series").exists()
    assert not ContentType.objects.filter(app_label="traffic", model="series").exists()
    with connection.cursor() as cur:
        cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'traffic_series'")
        assert "reset_series_id" not in {r[0] for r in cur.fetchall()}
    # Today's ingest continues the old series: the next poll derives its delta from the last old row.
    switch = Switch.objects.get(pk=ids["switch"])
    last = samples[-1]
    at = last.time.timestamp() + 15
    reading = CounterReading((stored_to_u64(last.raw[0]) + 4500) % 2**64, 64)
    assert ingest.ingest(PollResult(switch.id, at, last.uptime_cs + 1500, {("ifHCInOctets", "1"): reading}, {}),
                         switch) == 1
    new = Sample.objects.filter(switch_id=switch.id).order_by("-time").first()
    assert new.layout_id == Layout.objects.get(switch=switch).id == last.layout_id       # no new series, same layout
    assert new.delta == [4500] and Series.objects.filter(switch=switch).count() == 1
