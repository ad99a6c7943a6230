"""End to end against a real net-snmp snmpd: add, discover, poll, store, derive.

snmpd reports the real interfaces of this machine (at least `lo`), so the counters move by
whatever the machine does; the test generates loopback traffic between polls so that the
loopback octet delta is known to be at least that much.
"""
from __future__ import annotations

import socket
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collector.archive.models import Layout, PollLog, Sample, Series
from collector.core.facts import Flag
from collector.inventory.models import Port, Switch
from collector.poller import runner
from collector.poller.models import SwitchHealth
from tests.support.agents import NetSnmpAgent

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def snmpd():
    with NetSnmpAgent() as agent:
        yield agent


def _add(agent, name="sw-lo", **extra) -> Switch:
    args = ["add_switch", "--no-check", name, agent.host, "--port", str(agent.port), "--community", agent.community,
            "--interval", "1", "--timeout", "1", "--retries", "0"]
    for k, v in extra.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    call_command(*args)
    return Switch.objects.get(name=name)


def _udp_burst(n_bytes: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        rx.bind(("127.0.0.1", 0))
        chunk = b"x" * 1000
        for _ in range(n_bytes // 1000):
            tx.sendto(chunk, rx.getsockname())


def test_auto_profile_discover_and_two_polls_store_exact_deltas(snmpd, capsys):
    switch = _add(snmpd)
    call_command("discover", switch.name)
    switch.refresh_from_db()
    assert switch.detected_profile == "if-mib"
    lo = Port.objects.get(switch=switch, name="lo")
    assert lo.oper_status == "up"

    first = runner.poll_once(switch.id)
    assert first.status in ("ok", "partial") and first.stored == "written"
    _udp_burst(2_000_000)
    time.sleep(6)   # net-snmp caches interface statistics for a few seconds
    second = runner.poll_once(switch.id)
    assert second.stored == "written"

    rows = list(Sample.objects.filter(switch_id=switch.id).order_by("time"))
    assert len(rows) == 2
    ids = Layout.objects.get(pk=rows[1].layout_id).series_ids
    s_in = Series.objects.get(switch=switch, object_name="ifHCInOctets", index=lo.key)
    pos = ids.index(s_in.id)
    assert rows[0].flags[pos] == Flag.FIRST and rows[0].delta[pos] is None
    # The stored delta is exactly the difference of the stored raw readings ...
    assert rows[1].delta[pos] == rows[1].raw[pos] - rows[0].raw[pos]
    # ... and covers at least the UDP payload we pushed through lo (plus headers).
    assert rows[1].delta[pos] >= 2_000_000
    assert s_in.port_id == lo.id and s_in.width == 64 and s_in.direction == "in"
    assert PollLog.objects.filter(switch_id=switch.id, status__in=["ok", "partial"]).count() == 2
    health = SwitchHealth.objects.get(switch=switch)
    assert health.polls_ok == 2 and health.consecutive_failures == 0


def test_snmpv1_falls_back_to_32_bit_counters(snmpd):
    switch = _add(snmpd, name="sw-v1", snmp_version="1", profile="if-mib")
    outcome = runner.poll_once(switch.id)
    assert outcome.ok, outcome.error
    widths = set(Series.objects.filter(switch=switch, object_name="ifHCInOctets").values_list("width", flat=True))
    assert widths == {32}


def test_v3_authpriv_polls(snmpd):
    user = snmpd.v3_users["authpriv"]
    switch = _add(snmpd, name="sw-v3", snmp_version="3", v3_user=user.name, auth_proto=user.auth_proto,
                  auth_key=user.auth_key, priv_proto=user.priv_proto, priv_key=user.priv_key, profile="if-mib")
    assert runner.poll_once(switch.id).ok


def test_wrong_community_is_one_clear_line_and_nonzero(snmpd):
    _add(snmpd, name="sw-bad", community="wrong", profile="if-mib")
    with pytest.raises(CommandError, match=r"sw-bad: timeout: .*"):
        call_command("poll", "sw-bad")
    assert PollLog.objects.filter(status="timeout").count() == 1


def test_wrong_v3_key_is_an_auth_failure(snmpd):
    user = snmpd.v3_users["authpriv"]
    _add(snmpd, name="sw-badkey", snmp_version="3", v3_user=user.name, auth_proto=user.auth_proto,
         auth_key="not-the-key-at-all", priv_proto=user.priv_proto, priv_key=user.priv_key, profile="if-mib")
    with pytest.raises(CommandError, match=r"sw-badkey: auth: "):
        call_command("poll", "sw-badkey")


def test_wrong_profile_is_reported(snmpd):
    _add(snmpd, name="sw-notfore", profile="fore-asx")
    with pytest.raises(CommandError, match="profile fore-asx does not fit this agent"):
        call_command("poll", "sw-notfore")


def test_unknown_switch(snmpd):
    with pytest.raises(CommandError, match="unknown switch 'nope'"):
        call_command("poll", "nope")


def test_poll_is_idempotent_for_the_same_result(snmpd):
    from collector.archive import ingest

    switch = _add(snmpd, name="sw-dup", profile="if-mib")
    outcome = runner.poll_once(switch.id)
    assert ingest.ingest_or_spool(outcome.result) == "duplicate"
    assert Sample.objects.filter(switch_id=switch.id).count() == 1
