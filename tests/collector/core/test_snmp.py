"""collector/core/snmp.py and its backends (snmp_fast, snmp_pysnmp, snmp_types) against a
real net-snmp snmpd on 127.0.0.1 (tests/support/agents.py): targets and secrets, GET, walks,
SNMPv3, timeouts and dead agents, engines.  Every behaviour test runs on both backends where
the backend can speak the version: "fast" (own codec, v1/v2c) and "pysnmp" (pysnmp 7, all
versions).  Hostile and malformed answers (in-process FakeAgent), fuzz and CPU throughput
are in test_snmp_hostile_agents.py; shared constants and helpers in snmp_helpers.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from collector.core.snmp import SnmpSession
from collector.core.snmp_pysnmp import Engine
from collector.core.snmp_types import SnmpAuthError, SnmpConfigError, SnmpRefused, SnmpTarget, SnmpTimeout
from tests.collector.core.snmp_helpers import (
    HR_SW_COLUMNS,
    HR_SW_INSTALLED,
    IF_COLUMNS,
    IF_TABLE,
    IF_X_COLUMNS,
    IF_X_TABLE,
    IP_AD_ENT_ADDR,
    KIND_IDS,
    KINDS,
    SECRET_AUTH,
    SECRET_COMMUNITY,
    SECRET_PRIV,
    SECRETS,
    SYS_DESCR,
    SYS_OBJECT_ID,
    SYS_UPTIME,
    V1V2_BACKENDS,
    V1V2_IDS,
    assert_no_secrets,
    compare_with_reference,
    flatten,
    run,
    target_for,
    tool_value,
    tool_walk,
)
from tests.support.agents import NetSnmpAgent, V3User, free_udp_port, parse_tool_output, snmpd_available


@pytest.fixture(scope="module")
def small_bulk_agent():
    """An snmpd that truncates every GETBULK answer to 7 varbinds (partial rows)."""
    if not snmpd_available():
        pytest.fail("net-snmp snmpd not installed (make test installs it)")
    with NetSnmpAgent(max_getbulk_responses=7) as a:
        yield a


# ---------------------------------------------------------------------------------------
# Target / secrets

def test_repr_and_str_hide_secrets():
    t = SnmpTarget("192.0.2.1", community=SECRET_COMMUNITY)
    t3 = SnmpTarget("192.0.2.1", version="3", v3_user="u", auth_proto="SHA",
                    auth_key=SECRET_AUTH, priv_proto="AES", priv_key=SECRET_PRIV)
    assert_no_secrets(t, t3, SnmpSession(t), SnmpSession(t3))
    assert "192.0.2.1" in repr(t) and "v3_user='u'" in repr(t3)


@pytest.mark.parametrize("bad", [
    dict(version="2"), dict(port=0), dict(timeout=0), dict(retries=-1),
    dict(max_repetitions=0), dict(version="3"),
    dict(version="3", v3_user="u", auth_proto="SHA1", auth_key=SECRET_AUTH),
    dict(version="3", v3_user="u", priv_proto="AES", priv_key=SECRET_PRIV),
    dict(version="3", v3_user="u", auth_proto="SHA", auth_key="short"),
])
def test_invalid_targets_rejected(bad):
    with pytest.raises(SnmpConfigError) as ei:
        SnmpSession(SnmpTarget("192.0.2.1", **{"community": SECRET_COMMUNITY, **bad}))
    assert isinstance(ei.value, ValueError)
    assert_no_secrets(ei.value)


def test_backend_choice():
    assert SnmpSession(SnmpTarget("192.0.2.1", version="1")).backend == "fast"
    assert SnmpSession(SnmpTarget("192.0.2.1")).backend == "fast"
    t3 = SnmpTarget("192.0.2.1", version="3", v3_user="u", auth_proto="SHA", auth_key="12345678")
    assert SnmpSession(t3).backend == "pysnmp"
    assert SnmpSession(SnmpTarget("192.0.2.1"), backend="pysnmp").backend == "pysnmp"
    with pytest.raises(SnmpConfigError):
        SnmpSession(t3, backend="fast")


def test_bad_oids_rejected():
    async def main():
        async with SnmpSession(SnmpTarget("127.0.0.1", free_udp_port())) as s:
            for bad in (["1"], ["1.3.6.x"], ["3.1"], ["1.40"], ["1.3..6"], ["1.3.6.1.-1"]):
                with pytest.raises(SnmpConfigError):
                    await s.get(bad)
            with pytest.raises(SnmpConfigError):
                await s.walk("1.3.6")       # a string, not a sequence of columns
        assert s.stats.requests == 0
    run(main())


# ---------------------------------------------------------------------------------------
# Against a real snmpd

@pytest.mark.parametrize("kind,backend", KINDS, ids=KIND_IDS)
def test_get_scalars(agent, kind, backend):
    ref = parse_tool_output(agent.run_tool("snmpget", SYS_DESCR, SYS_OBJECT_ID))

    async def main():
        async with SnmpSession(target_for(agent, kind), backend=backend) as s:
            r = await s.get([SYS_UPTIME, SYS_DESCR, SYS_OBJECT_ID, "1.3.6.1.2.1.1.99.0",
                             SYS_UPTIME])
            return r, s.stats
    r, stats = run(main())
    assert list(r) == [SYS_UPTIME, SYS_DESCR, SYS_OBJECT_ID, "1.3.6.1.2.1.1.99.0"]
    assert isinstance(r[SYS_UPTIME], int) and r[SYS_UPTIME] >= 0
    assert r[SYS_DESCR] == tool_value(*ref[SYS_DESCR]) and r[SYS_DESCR].startswith(b"Linux")
    assert r[SYS_OBJECT_ID] == tool_value(*ref[SYS_OBJECT_ID]) == "1.3.6.1.4.1.8072.3.2.10"
    assert r["1.3.6.1.2.1.1.99.0"] is None            # noSuchObject / v1 noSuchName
    assert stats.requests >= 1 and stats.responses >= 1 and stats.timeouts == 0


@pytest.mark.parametrize("kind,backend", KINDS, ids=KIND_IDS)
def test_walk_iftable_equals_snmpbulkwalk(agent, kind, backend):
    async def main():
        async with SnmpSession(target_for(agent, kind), backend=backend) as s:
            return await s.walk(IF_COLUMNS)
    before = tool_walk(agent, IF_TABLE)
    ours = run(main())
    after = tool_walk(agent, IF_TABLE)
    assert list(ours) == IF_COLUMNS
    assert len(ours[f"{IF_TABLE}.1"]) >= 2                       # lo + eth0 at least
    assert all(isinstance(i, tuple) and len(i) == 1 for i in ours[f"{IF_TABLE}.2"])
    compare_with_reference(flatten(ours), before, after)


@pytest.mark.parametrize("kind,backend", [k for k in KINDS if k[0] != "v1"],
                         ids=[i for i in KIND_IDS if not i.startswith("v1")])
def test_walk_ifxtable_counter64_equals_snmpbulkwalk(agent, kind, backend):
    async def main():
        async with SnmpSession(target_for(agent, kind), backend=backend) as s:
            return await s.walk(IF_X_COLUMNS)
    before = tool_walk(agent, IF_X_TABLE)
    ours = run(main())
    after = tool_walk(agent, IF_X_TABLE)
    compare_with_reference(flatten(ours), before, after)
    assert all(isinstance(v, int) for v in ours[f"{IF_X_TABLE}.6"].values())   # HC octets


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_v1_walk_of_counter64_column_is_empty(agent, backend):
    async def main():
        async with SnmpSession(target_for(agent, "v1"), backend=backend) as s:
            return await s.walk([f"{IF_X_TABLE}.6", f"{IF_TABLE}.2"])
    r = run(main())
    assert r[f"{IF_X_TABLE}.6"] == {}          # v1 cannot carry Counter64: agent skips them
    assert r[f"{IF_TABLE}.2"]


@pytest.mark.parametrize("kind,backend", [k for k in KINDS if k != ("v1", "pysnmp")],
                         ids=[i for i in KIND_IDS if i != "v1-pysnmp"])
def test_walk_large_table_multibyte_indexes_exact(agent, kind, backend):
    """hrSWInstalledTable: hundreds of rows (indexes >= 128 encode in 2 octets), 5 columns,
    (nearly) static content -> equals snmpbulkwalk."""
    before = tool_walk(agent, HR_SW_INSTALLED)

    async def main():
        async with SnmpSession(target_for(agent, kind, max_repetitions=30),
                               backend=backend) as s:
            return await s.walk(HR_SW_COLUMNS), s.stats
    ours, stats = run(main())
    flat = flatten(ours)
    after = tool_walk(agent, HR_SW_INSTALLED)
    if before == after:
        assert flat == before
    compare_with_reference(flat, before, after)
    assert len(ours[f"{HR_SW_INSTALLED}.1"]) > 128
    assert (200,) in ours[f"{HR_SW_INSTALLED}.2"]
    if kind != "v1":
        # several columns per GETBULK: far fewer requests than varbinds
        assert stats.requests < len(flat) / 20


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_walk_with_agent_truncating_bulk_answers(small_bulk_agent, backend):
    """The agent answers 5 columns x 25 repetitions with 7 varbinds: partial rows."""
    before = tool_walk(small_bulk_agent, HR_SW_INSTALLED)

    async def main():
        async with SnmpSession(target_for(small_bulk_agent, "v2c"), backend=backend) as s:
            return await s.walk(HR_SW_COLUMNS), s.stats
    ours, stats = run(main())
    compare_with_reference(flatten(ours), before, tool_walk(small_bulk_agent, HR_SW_INSTALLED))
    assert stats.varbinds <= 7 * stats.requests


@pytest.mark.parametrize("version,backend", V1V2_BACKENDS, ids=V1V2_IDS)
def test_value_types(agent, version, backend):
    async def main():
        async with SnmpSession(target_for(agent, "v" + version), backend=backend) as s:
            return await s.walk([IP_AD_ENT_ADDR, f"{IF_TABLE}.6", f"{IF_TABLE}.22",
                                 f"{IF_TABLE}.10", "1.3.6.1.2.1.1.3"])
    r = run(main())
    assert r[IP_AD_ENT_ADDR][(127, 0, 0, 1)] == "127.0.0.1"        # IpAddress -> dotted str
    assert all(isinstance(v, bytes) for v in r[f"{IF_TABLE}.6"].values())
    assert all(isinstance(v, str) for v in r[f"{IF_TABLE}.22"].values())   # OID -> str
    assert all(isinstance(v, int) and v >= 0 for v in r[f"{IF_TABLE}.10"].values())
    assert list(r["1.3.6.1.2.1.1.3"]) == [(0,)]


@pytest.mark.parametrize("version,backend", V1V2_BACKENDS, ids=V1V2_IDS)
def test_get_chunks_large_requests(agent, version, backend):
    oids = [f"{c}.{i}" for c in IF_COLUMNS for i in (1, 2, 3)] + ["1.3.6.1.2.1.1.5.0"]
    assert len(oids) > 40 * 1.5

    async def main():
        async with SnmpSession(target_for(agent, "v" + version), backend=backend) as s:
            return await s.get(oids), s.stats
    r, stats = run(main())
    assert list(r) == oids and all(v is not None for v in r.values())
    assert stats.requests == 2   # at most 40 varbinds per PDU


@pytest.mark.parametrize("backend", ["fast", "pysnmp"])
def test_concurrent_calls_on_one_session(agent, backend):
    async def main():
        async with SnmpSession(target_for(agent, "v2c"), backend=backend) as s:
            return await asyncio.gather(s.get([SYS_DESCR]), s.walk(IF_COLUMNS[:3]),
                                        s.walk(HR_SW_COLUMNS[:2]), s.get([SYS_OBJECT_ID]))
    a, b, c, d = run(main())
    assert a[SYS_DESCR].startswith(b"Linux") and d[SYS_OBJECT_ID].startswith("1.3.6.1.4.1")
    assert b[IF_COLUMNS[1]] and len(c[HR_SW_COLUMNS[1]]) > 128


# ---------------------------------------------------------------------------------------
# Failures

@pytest.mark.parametrize("version,backend", V1V2_BACKENDS, ids=V1V2_IDS)
def test_wrong_community_times_out_quickly(agent, version, backend):
    t = SnmpTarget("127.0.0.1", agent.port, version=version, community=SECRET_COMMUNITY,
                   timeout=0.5, retries=0)

    async def main():
        async with SnmpSession(t, backend=backend) as s:
            t0 = time.monotonic()
            with pytest.raises(SnmpTimeout) as ei:
                await s.get([SYS_UPTIME])
            return ei.value, time.monotonic() - t0
    err, elapsed = run(main())
    assert 0.45 <= elapsed < 1.3
    assert "community not accepted" in str(err) and f"127.0.0.1:{agent.port}" in str(err)
    assert_no_secrets(err)


@pytest.mark.parametrize("change", [
    dict(auth_key=SECRET_AUTH),                                   # wrong digest
    dict(v3_user="nosuchuser"),                                   # unknown user
    dict(auth_proto="MD5"),                                       # wrong auth protocol
    dict(priv_proto="", priv_key=""),                             # level below the user's
], ids=["wrong-auth-key", "unknown-user", "wrong-auth-proto", "too-low-level"])
def test_v3_auth_errors(agent, change, caplog):
    t = dataclasses.replace(target_for(agent, "v3priv", timeout=1.0, retries=0), **change)

    async def main():
        async with SnmpSession(t) as s:
            with pytest.raises(SnmpAuthError) as ei:
                await s.get([SYS_UPTIME])
            return ei.value
    caplog.set_level("DEBUG")
    err = run(main())
    secrets = SECRETS + (agent.v3_users["authpriv"].auth_key, agent.v3_users["authpriv"].priv_key)
    assert_no_secrets(err, secrets=secrets)
    assert_no_secrets(caplog.text, secrets=secrets)


def test_v3_wrong_priv_key_is_timeout_with_hint(agent):
    # net-snmp silently drops PDUs it cannot decrypt (no report): looks like a timeout
    t = dataclasses.replace(target_for(agent, "v3priv", timeout=0.5, retries=0),
                            priv_key=SECRET_PRIV)

    async def main():
        async with SnmpSession(t) as s:
            with pytest.raises(SnmpTimeout) as ei:
                await s.get([SYS_UPTIME])
            return ei.value
    err = run(main())
    assert "privacy key" in str(err)
    assert_no_secrets(err)


# The fast backend's connected socket hears the ICMP port unreachable and says so (nothing listens
# there: not a credential problem); pysnmp's shared socket hears nothing and times out.
@pytest.mark.parametrize("kind,backend,error", [("v1", "fast", SnmpRefused), ("v2c", "fast", SnmpRefused),
                                                ("v2c", "pysnmp", SnmpTimeout), ("v3priv", "pysnmp", SnmpTimeout)],
                         ids=["v1-fast", "v2c-fast", "v2c-pysnmp", "v3-pysnmp"])
def test_a_dead_port_is_refused_or_times_out(kind, backend, error):
    port = free_udp_port()
    if kind == "v3priv":
        t = SnmpTarget("127.0.0.1", port, version="3", v3_user="u", auth_proto="SHA",
                       auth_key=SECRET_AUTH, priv_proto="AES", priv_key=SECRET_PRIV,
                       timeout=0.3, retries=1)
    else:
        t = SnmpTarget("127.0.0.1", port, version=kind[1:], community=SECRET_COMMUNITY,
                       timeout=0.3, retries=1)

    async def main():
        async with SnmpSession(t, backend=backend) as s:
            t0 = time.monotonic()
            with pytest.raises(error) as ei:
                await s.walk(IF_COLUMNS)
            return ei.value, time.monotonic() - t0, s.stats
    err, elapsed, stats = run(main())
    assert 0.55 <= elapsed < 1.6           # two attempts of 0.3 s (UDP: an ICMP error may be stale)
    assert stats.timeouts == 1 and type(err) is error
    if backend == "fast":
        assert stats.retries == 1 and stats.icmp_errors >= 1
        assert f"no SNMP agent listens on port {port}" in str(err)
    assert_no_secrets(err)


def test_dead_agent_does_not_delay_live_ones(agent):
    """20 targets in one gather: 2 dead (v2c + v3) and 18 live ones of every kind; the live
    ones finish in about their own time, long before the dead ones time out."""
    dead_port = free_udp_port()
    live_kinds = [("v1", "fast"), ("v2c", "fast"), ("v2c", "pysnmp"), ("v3auth", "pysnmp"),
                  ("v3priv", "pysnmp"), ("v3md5des", "pysnmp")] * 3

    async def one(t, backend):
        t0 = time.monotonic()
        async with SnmpSession(t, backend=backend) as s:
            await s.get([SYS_UPTIME, SYS_DESCR])
            await s.walk(IF_COLUMNS)
        return time.monotonic() - t0

    async def main(with_dead: bool):
        jobs = [one(target_for(agent, k), b) for k, b in live_kinds]
        if with_dead:
            dead = SnmpTarget("127.0.0.1", dead_port, timeout=2.0, retries=1)
            dead3 = dataclasses.replace(target_for(agent, "v3priv"), port=dead_port,
                                        timeout=2.0, retries=1)
            jobs = [one(dead, "fast"), one(dead3, "pysnmp")] + jobs
        return await asyncio.gather(*jobs, return_exceptions=True)

    alone = run(main(False))
    assert all(isinstance(x, float) for x in alone), alone
    t0 = time.monotonic()
    mixed = run(main(True))
    total = time.monotonic() - t0
    assert isinstance(mixed[0], SnmpRefused) and isinstance(mixed[1], SnmpTimeout)   # as in the test above
    live = mixed[2:]
    assert all(isinstance(x, float) for x in live), live
    # CPU-bound work (pysnmp decoding) shares one loop; the dead targets add nothing
    # Relative to the same work without the dead targets, so a loaded machine does not fail it.
    assert max(live) < max(alone) * 1.3 + 0.5, (alone, live)
    # The dead ones take their timeout budget (2 s x 2 tries), not more than that plus the live work.
    assert 4.0 <= total < 4.0 + max(alone) + 2.0, (total, alone)


def test_same_v3_user_name_with_different_keys_on_two_agents():
    """pysnmp's USM table is keyed by user name: Engine keeps such users apart."""
    u1 = V3User("ops", "SHA", "first-auth-key", "AES", "first-priv-key")
    u2 = V3User("ops", "SHA", "second-auth-key", "AES", "second-priv-key")
    with NetSnmpAgent(v3_users={"authpriv": u1}) as a1, \
            NetSnmpAgent(v3_users={"authpriv": u2}) as a2:
        async def one(a):
            async with SnmpSession(target_for(a, "v3priv", timeout=1.0, retries=0)) as s:
                return await s.get([SYS_UPTIME])

        async def main():
            r = await asyncio.gather(one(a1), one(a2), one(a1), one(a2))
            Engine.default().close()
            return r
        assert all(isinstance(x[SYS_UPTIME], int) for x in run(main()))
