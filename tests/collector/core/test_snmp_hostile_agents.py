"""collector/core/snmp.py and its backends against the in-process FakeAgent (tests/support/agents.py):
other OIDs, error statuses, too many or no varbinds, stray and duplicate datagrams, endless tables and
fuzzed messages must only ever give results or SnmpError subclasses; also IPv6/hostname targets, engine
loops, and the fast path's CPU throughput (real snmpd, `agent`).  Against snmpd: test_snmp.py."""

from __future__ import annotations

import asyncio
import random
import resource
import time

import pytest

from collector.core import snmp_codec as codec
from collector.core.snmp import SnmpSession
from collector.core.snmp_codec import encode_message, encode_value
from collector.core.snmp_pysnmp import Engine
from collector.core.snmp_types import SnmpAuthError, SnmpError, SnmpProtocolError, SnmpTarget
from tests.collector.core.snmp_helpers import (
    HR_SW_COLUMNS,
    SYS_DESCR,
    SYS_UPTIME,
    V1V2_BACKENDS,
    V1V2_IDS,
    assert_no_secrets,
    run,
    target_for,
)
from tests.support.agents import FAKE_MIB, FakeAgent, mutate

# ---------------------------------------------------------------------------------------
# Hostile and broken agents (in-process fake agent)

FAKE_COLUMNS = ["1.3.6.1.2.1.2.2.1.1", "1.3.6.1.2.1.2.2.1.2", "1.3.6.1.2.1.2.2.1.10",
                "1.3.6.1.2.1.4.20.1.1", "1.3.6.1.2.1.31.1.1.1.6"]
BOTH = ["fast", "pysnmp"]


def fake_target(port, version="2c", **kw):
    kw.setdefault("timeout", 0.5)
    kw.setdefault("retries", 0)
    return SnmpTarget("127.0.0.1", port, version=version, **kw)


@pytest.mark.parametrize("version,backend", V1V2_BACKENDS, ids=V1V2_IDS)
def test_fake_agent_values(version, backend):
    async def main():
        async with FakeAgent(FAKE_MIB) as fa:
            async with SnmpSession(fake_target(fa.port, version, max_repetitions=4),
                                   backend=backend) as s:
                return (await s.get(list(FAKE_MIB)[:3] + ["1.3.6.1.4.1.99999.1.1.0",
                                                          "1.3.6.1.4.1.99999.1.2.0",
                                                          "1.3.6.1.4.1.99999.1.3.0"]),
                        await s.walk(FAKE_COLUMNS))
    g, w = run(main())
    assert g == {"1.3.6.1.2.1.1.1.0": b"fake agent", "1.3.6.1.2.1.1.2.0": "1.3.6.1.4.1.99999.1",
                 "1.3.6.1.2.1.1.3.0": 4294967295, "1.3.6.1.4.1.99999.1.1.0": -2**31,
                 "1.3.6.1.4.1.99999.1.2.0": 2**31 - 1,
                 "1.3.6.1.4.1.99999.1.3.0": b"\x9f\x78\x04\x00\x00\x00\x00"}
    idx = [(1,), (2,), (127,), (128,), (300,), (16384,)]
    assert list(w["1.3.6.1.2.1.2.2.1.1"]) == idx
    assert w["1.3.6.1.2.1.2.2.1.10"][(16384,)] == 2**32 - 16384
    assert w["1.3.6.1.2.1.4.20.1.1"] == {(10, 0, 0, 1): "10.0.0.1",
                                          (192, 168, 255, 254): "192.168.255.254"}
    if version == "2c":
        assert w["1.3.6.1.2.1.31.1.1.1.6"] == {(1,): 2**64 - 1, (2,): 0, (4294967295,): 2**63}


@pytest.mark.parametrize("backend", BOTH)
def test_ipv6_and_hostname_targets(backend):
    async def main():
        out = []
        async with FakeAgent(FAKE_MIB, host="::1") as fa6:
            async with SnmpSession(SnmpTarget("::1", fa6.port, timeout=0.5, retries=0),
                                   backend=backend) as s:
                out.append(await s.get([SYS_DESCR]))
        async with FakeAgent(FAKE_MIB) as fa:
            async with SnmpSession(SnmpTarget("localhost", fa.port, timeout=0.5, retries=0),
                                   backend=backend) as s:
                out.append(await s.get([SYS_DESCR]))
            with pytest.raises(SnmpError):
                async with SnmpSession(SnmpTarget("no-such-host.invalid", fa.port),
                                       backend=backend) as s:
                    await s.get([SYS_DESCR])
        return out
    assert run(main()) == [{SYS_DESCR: b"fake agent"}] * 2


def test_engine_forgets_closed_loops():
    async def one():
        async with FakeAgent(FAKE_MIB) as fa:
            async with SnmpSession(fake_target(fa.port), backend="pysnmp") as s:
                await s.get([SYS_DESCR])
        return asyncio.get_running_loop()
    loops = [run(one()) for _ in range(3)]
    assert all(lp.is_closed() for lp in loops)
    assert not any(lp in Engine.default()._by_loop for lp in loops[:-1])


def _bulk_names(req):
    return [n for n, _ in req.varbinds]


def _respond(req, varbinds, status=0, index=0):
    return encode_message(req.version, req.community, 0xA2, req.request_id, status, index,
                          varbinds)


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("mode", ["same", "decreasing"])
def test_non_increasing_oids_detected(backend, mode):
    col = codec.oid_to_raw("1.3.6.1.2.1.2.2.1.10")

    def handler(agent, req, data):
        names = _bulk_names(req)
        if names[0] == col:
            return _respond(req, [(col + b"\x05", b"\x41\x01\x01")])
        if mode == "same":
            return _respond(req, [(names[0], b"\x41\x01\x01")])
        return _respond(req, [(col + b"\x03", b"\x41\x01\x01")])

    async def main():
        async with FakeAgent(handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port), backend=backend) as s:
                with pytest.raises(SnmpProtocolError, match="non-increasing"):
                    await s.walk(["1.3.6.1.2.1.2.2.1.10"])
            return fa.requests
    assert run(main()) == 2


@pytest.mark.parametrize("backend", BOTH)
def test_an_unordered_walk_reads_each_row_once_and_stops_at_a_repeat(backend):
    """A table answered out of OID order (a Ruijie's lldpRemTable): walk(ordered=False) takes every
    new row and ends at the first row it has read already (no loop)."""
    col = codec.oid_to_raw("1.3.6.1.2.1.2.2.1.10")
    after = {col: col + b"\x05", col + b"\x05": col + b"\x03", col + b"\x03": col + b"\x07",
             col + b"\x07": col + b"\x05"}

    def handler(agent, req, data):
        return _respond(req, [(after[_bulk_names(req)[0]], b"\x41\x01\x01")])

    async def main():
        async with FakeAgent(handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port), backend=backend) as s:
                return await s.walk(["1.3.6.1.2.1.2.2.1.10"], ordered=False)
    rows = run(main())["1.3.6.1.2.1.2.2.1.10"]
    assert sorted(rows) == [(3,), (5,), (7,)]


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("version", ["1", "2c"])
def test_endless_agent_hits_the_varbind_cap(backend, version):
    col = codec.oid_to_raw("1.3.6.1.4.1.99999.7")

    def handler(agent, req, data):      # always "one more row"
        out = []
        reps = req.error_index if req.pdu_type == 0xA5 else 1
        last = codec.raw_to_oid(_bulk_names(req)[0])
        i = last[-1] if len(last) > len(codec.raw_to_oid(col)) else 0
        for k in range(1, reps + 1):
            out.append((col + codec.oid_to_raw((1, 3, i + k))[1:], b"\x02\x01\x07"))
        return _respond(req, out)

    cap = 300 if version == "1" else 2000

    async def main():
        async with FakeAgent(handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port, version, max_repetitions=50),
                                   backend=backend, max_walk_varbinds=cap) as s:
                with pytest.raises(SnmpProtocolError, match=f"exceeded {cap}"):
                    await s.walk(["1.3.6.1.4.1.99999.7"])
            return fa.requests
    requests = run(main())
    assert requests <= (cap + 1 if version == "1" else cap // 50 + 1)


@pytest.mark.parametrize("backend", BOTH)
def test_get_answered_with_other_oid_or_count(backend):
    def handler(agent, req, data):
        names = _bulk_names(req)
        if len(names) == 1:
            return _respond(req, [(codec.oid_to_raw("1.3.6.1.2.1.1.5.0"), b"\x04\x01x")])
        return _respond(req, [(names[0], b"\x04\x01x")])

    async def main():
        async with FakeAgent(handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port), backend=backend) as s:
                with pytest.raises(SnmpProtocolError, match="answered GET"):
                    await s.get([SYS_DESCR])
                with pytest.raises(SnmpProtocolError, match="with 1"):
                    await s.get([SYS_DESCR, SYS_UPTIME])
    run(main())


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("status,exc", [(5, SnmpProtocolError), (16, SnmpAuthError),
                                        (3, SnmpProtocolError)])
def test_error_status_raises(backend, status, exc):
    def handler(agent, req, data):
        return agent.answer(req, status=status, index=1)

    async def main():
        async with FakeAgent(FAKE_MIB, handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port), backend=backend) as s:
                with pytest.raises(exc, match=codec.ERROR_STATUS_NAMES[status]):
                    await s.get([SYS_DESCR])
                with pytest.raises(exc):
                    await s.walk(FAKE_COLUMNS)
    run(main())


@pytest.mark.parametrize("backend", BOTH)
def test_too_big_splits_get_and_shrinks_bulk(backend):
    def handler(agent, req, data):
        n = len(req.varbinds)
        if req.pdu_type == 0xA0 and n > 2:
            return agent.answer(req, status=1, index=0)
        if req.pdu_type == 0xA5 and req.error_index * n > 6:
            return agent.answer(req, status=1, index=0)
        return agent.answer(req)

    async def main():
        async with FakeAgent(FAKE_MIB, handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port, max_repetitions=20),
                                   backend=backend) as s:
                g = await s.get(list(FAKE_MIB)[:7])
                w = await s.walk(FAKE_COLUMNS[:3])
                return g, w
    g, w = run(main())
    assert g["1.3.6.1.2.1.1.1.0"] == b"fake agent" and len(g) == 7
    assert len(w["1.3.6.1.2.1.2.2.1.2"]) == 6


@pytest.mark.parametrize("backend", BOTH)
def test_v1_no_such_name_in_get_maps_to_none(backend):
    async def main():
        async with FakeAgent(FAKE_MIB) as fa:
            async with SnmpSession(fake_target(fa.port, "1"), backend=backend) as s:
                return await s.get([SYS_DESCR, "1.3.6.1.2.1.1.77.0", SYS_UPTIME,
                                    "1.3.6.1.2.1.1.78.0"])
    assert run(main()) == {SYS_DESCR: b"fake agent", "1.3.6.1.2.1.1.77.0": None,
                           SYS_UPTIME: 4294967295, "1.3.6.1.2.1.1.78.0": None}


@pytest.mark.parametrize("backend", BOTH)
def test_too_many_or_no_varbinds_in_bulk_answer(backend):
    def handler(agent, req, data):
        good = codec.decode_message(agent.answer(req))
        if req.request_id % 2:
            vbs = []
        else:
            vbs = [(n, _encode_v(v)) for n, v in good.varbinds] * 3
        return _respond(req, vbs)

    async def main():
        async with FakeAgent(FAKE_MIB, handler=handler) as fa:
            async with SnmpSession(fake_target(fa.port, max_repetitions=3),
                                   backend=backend) as s:
                for _ in range(2):
                    with pytest.raises(SnmpProtocolError, match="varbinds"):
                        await s.walk(FAKE_COLUMNS[:2])
    run(main())


def _encode_v(v):
    if isinstance(v, codec.VarBindException):
        return bytes((0x80 + ("noSuchObject", "noSuchInstance", "endOfMibView").index(v.name),
                      0))
    if isinstance(v, bytes):
        return encode_value(0x04, v)
    if isinstance(v, str):
        return encode_value(0x40 if v.count(".") == 3 and not v.startswith("1.3") else 0x06, v)
    return encode_value(0x46 if v >= 2**32 else (0x02 if v < 0 else 0x42), v)


def test_fast_path_transport_robustness():
    """Stray/duplicate datagrams are ignored, lost datagrams are retried, a response with
    another community or version is refused."""
    state = {"n": 0}

    def handler(agent, req, data):
        state["n"] += 1
        good = agent.answer(req)
        if state["n"] == 1:
            return None                                      # lost: client must retry
        other = encode_message(req.version, req.community, 0xA2, req.request_id ^ 0x5A5A, 0,
                               0, [])
        return [other, good, good]                           # stray + duplicate

    async def main():
        async with FakeAgent(FAKE_MIB, handler=handler) as fa:
            t = fake_target(fa.port, timeout=0.2, retries=2)
            async with SnmpSession(t, backend="fast") as s:
                assert (await s.get([SYS_DESCR]))[SYS_DESCR] == b"fake agent"
                await asyncio.sleep(0.05)
                assert s.stats.retries == 1 and s.stats.stray >= 2
                assert s.stats.bytes_sent > 0 and s.stats.bytes_received > 0

        for bad in ("community", "version"):
            def handler2(agent, req, data, bad=bad):
                return encode_message(req.version if bad == "community" else 0,
                                      b"other" if bad == "community" else req.community,
                                      0xA2, req.request_id, 0, 0, [])
            async with FakeAgent(FAKE_MIB, handler=handler2) as fa:
                async with SnmpSession(fake_target(fa.port), backend="fast") as s:
                    with pytest.raises(SnmpProtocolError):
                        await s.get([SYS_DESCR])
    run(main())


# ---------------------------------------------------------------------------------------
# Fuzz: mutated answers must only ever produce results or SnmpError subclasses

def _check_result(op, result):
    if op == "get":
        for k, v in result.items():
            assert isinstance(k, str) and (v is None or isinstance(v, (int, bytes, str)))
    else:
        for rows in result.values():
            last = ()
            for idx, v in rows.items():
                assert isinstance(idx, tuple) and all(isinstance(x, int) for x in idx)
                assert idx > last
                last = idx
                assert v is None or isinstance(v, (int, bytes, str))


async def _fuzz(backend: str, cases: int, seed: int, timeout: float):
    rng = random.Random(seed)
    mib_oids = list(FAKE_MIB)
    outcomes: dict[str, int] = {}

    def handler(agent, req, data):
        good = agent.answer(req)
        r = rng.random()
        if r < 0.08:
            return good
        if r < 0.12:
            return [mutate(rng, good), good]
        return mutate(rng, good)

    async with FakeAgent(FAKE_MIB, handler=handler) as fa:
        for case in range(cases):
            version = rng.choice(["1", "2c"])
            t = fake_target(fa.port, version, timeout=timeout, retries=rng.choice([0, 0, 1]),
                            max_repetitions=rng.randint(1, 30))
            op = rng.choice(["get", "walk"])
            before = fa.requests
            t0 = time.monotonic()
            async with SnmpSession(t, backend=backend, max_walk_varbinds=5000) as s:
                try:
                    if op == "get":
                        result = await s.get(rng.sample(mib_oids, rng.randint(1, 6)))
                    else:
                        result = await s.walk(rng.sample(FAKE_COLUMNS, rng.randint(1, 4)))
                except SnmpError as e:
                    outcomes[type(e).__name__] = outcomes.get(type(e).__name__, 0) + 1
                    assert_no_secrets(e)
                else:
                    outcomes["ok"] = outcomes.get("ok", 0) + 1
                    _check_result(op, result)
            assert fa.requests - before <= 200, f"case {case}: unbounded conversation"
            assert time.monotonic() - t0 < 30 * timeout + 2, f"case {case} too slow"
    return outcomes


def test_fuzz_fast_path_malformed_responses():
    outcomes = run(_fuzz("fast", cases=500, seed=20261122, timeout=0.05))
    assert sum(outcomes.values()) == 500
    assert outcomes.get("SnmpProtocolError", 0) > 100      # mostly caught by the codec
    print("fast fuzz outcomes:", outcomes)


def test_fuzz_pysnmp_path_malformed_responses():
    outcomes = run(_fuzz("pysnmp", cases=60, seed=7, timeout=0.1))
    assert sum(outcomes.values()) == 60
    print("pysnmp fuzz outcomes:", outcomes)


# ---------------------------------------------------------------------------------------
# Performance (CPU time, reported; loose floor)

def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def test_fast_walk_cpu_throughput(agent):
    async def main():
        async with SnmpSession(target_for(agent, "v2c", max_repetitions=25)) as s:
            await s.walk(HR_SW_COLUMNS)
            best = None
            for _ in range(3):
                c = _cpu()
                r = await s.walk(HR_SW_COLUMNS)
                dc = _cpu() - c
                n = sum(len(v) for v in r.values())
                rate = n / max(dc, 1e-6)
                best = rate if best is None else max(best, rate)
            return n, best
    n, rate = run(main())
    print(f"fast v2c walk: {n} varbinds, {rate:,.0f} varbinds per CPU-second")
    assert n > 1000
    assert rate > 30_000
