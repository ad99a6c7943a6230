"""10,000 hostile answers to a real poll: the poller returns a PollResult or an SnmpError, never
anything else, and nothing it returns can make the counter math fail.

The hostile agent is tests.support.agents.FakeAgent (a real UDP agent in the test's event loop) that
mutates its correct answers: torn, bit-flipped, re-typed, oversized datagrams, wrong request
ids. Malformed datagrams cannot be produced by a real agent on demand, hence the fake one.
"""
from __future__ import annotations

import asyncio
import random
import time

from collector.core.counters import CounterSpec
from collector.core.poll import PollResult, poll_switch
from collector.core.profiles import get_profile, object_by_name
from collector.core.rows import SeriesSlot, build_row
from collector.core.snmp import SnmpSession
from collector.core.snmp_types import SnmpError, SnmpTarget
from tests.support.agents import FakeAgent, mutate

CASES = 10_000
PORTS = (1, 2, 3, 7, 48, 100, 1000, 65535)


def _mib() -> dict:
    mib = {"1.3.6.1.2.1.1.3.0": (0x43, 123456)}
    for i in PORTS:
        for name, tag, value in (
                ("ifHCInOctets", 0x46, 2**64 - i), ("ifHCOutOctets", 0x46, i * 10**12),
                ("ifHCInUcastPkts", 0x46, i), ("ifHCOutUcastPkts", 0x46, 2**63 + i),
                ("ifInDiscards", 0x41, i), ("ifOutDiscards", 0x41, 2**32 - 1),
                ("ifInErrors", 0x41, 0), ("ifOutErrors", 0x41, i),
                ("ifCounterDiscontinuityTime", 0x43, 0)):
            mib[f"{object_by_name(name).oid}.{i}"] = (tag, value)
    return mib


def _hostile(rng: random.Random, mode: dict):
    def handler(agent, req, data):
        good = agent.answer(req)
        if not mode["hostile"]:
            return good
        r = rng.random()
        if r < 0.10:
            return good
        if r < 0.13:
            return None                          # silence: a timeout
        if r < 0.18:
            return [mutate(rng, good), good]     # garbage first, then the real answer
        return mutate(rng, good)
    return handler


async def _run(cases: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    profile = get_profile("if-mib")
    outcomes: dict[str, int] = {}
    mode = {"hostile": True}
    async with FakeAgent(_mib(), handler=_hostile(rng, mode)) as agent:
        for case in range(cases):
            mode["hostile"] = rng.random() > 0.1   # one poll in ten meets a well-behaved agent
            target = SnmpTarget("127.0.0.1", agent.port, version=rng.choice(["1", "2c"]), timeout=0.02,
                                retries=rng.choice([0, 1]), max_repetitions=rng.randint(1, 30))
            try:
                async with SnmpSession(target, max_walk_varbinds=20_000) as session:
                    result = await poll_switch(session, 1, profile, target.version)
            except SnmpError as exc:
                outcomes[type(exc).__name__] = outcomes.get(type(exc).__name__, 0) + 1
                continue
            assert isinstance(result, PollResult), case
            for (obj, index), reading in result.readings.items():
                assert 0 <= reading.value < 2**reading.width, (case, obj, index, reading)
            _derive(result)
            outcomes["ok"] = outcomes.get("ok", 0) + 1
    return outcomes


def _derive(result: PollResult) -> None:
    """Whatever the agent said must go through the counter math without an exception."""
    slots = [SeriesSlot(i, key, CounterSpec(r.width, None), None) for i, (key, r) in enumerate(result.readings.items())]
    prev = build_row(result, 1, slots, None, 15.0)
    shifted = PollResult(1, result.at + 15, result.uptime_cs, result.readings, result.discontinuity)
    from collector.core.rows import PreviousRow

    values = {s.series_id: v for s, v in zip(slots, prev.raw)}
    build_row(shifted, 1, slots, PreviousRow(prev.at, prev.uptime_cs, values), 15.0)


def test_ten_thousand_hostile_answers_never_escape_as_anything_but_snmp_errors():
    started = time.monotonic()
    outcomes = asyncio.run(_run(CASES, seed=20261122))
    assert sum(outcomes.values()) == CASES
    assert outcomes.get("ok", 0) > CASES * 0.08         # the well-behaved polls did produce results
    assert outcomes.get("SnmpProtocolError", 0) > 1000  # and the broken ones were caught as such
    print(f"{CASES} hostile polls in {time.monotonic() - started:.1f} s: {outcomes}")
