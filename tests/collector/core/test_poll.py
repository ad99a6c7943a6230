"""collector/core/poll.py against an in-process agent: the 32-bit fallback is read per interface.

A router whose Gigabit ports answer ifHCInOctets and whose serial links answer only ifInOctets:
every interface gets its octets, the 64-bit ones from their column, the others from theirs; the
fallback is read with GETs of just the instances that need it when the inventory knows them, and
walked when it does not.
"""
from __future__ import annotations

import asyncio

from collector.core import profiles
from collector.core.poll import PollResult, columns_to_walk, poll_switch
from collector.core.snmp import SnmpSession
from collector.core.snmp_codec import GET, GETBULK
from collector.core.snmp_types import SnmpTarget
from tests.support.agents import FakeAgent

IF_MIB = profiles.get_profile("if-mib")
OID = {name: profiles.object_by_name(name).oid for name in
       ("ifHCInOctets", "ifHCOutOctets", "ifInOctets", "ifOutOctets", "ifHCInUcastPkts", "ifInUcastPkts",
        "ifHCOutUcastPkts", "ifOutUcastPkts", "ifInErrors", "ifOutErrors", "ifInDiscards", "ifOutDiscards")}


def router_mib() -> dict:
    mib = {"1.3.6.1.2.1.1.3.0": (0x43, 1000)}
    for i in (1, 2, 3, 4):                       # Gigabit: both columns
        for hc, low in (("ifHCInOctets", "ifInOctets"), ("ifHCOutOctets", "ifOutOctets"),
                        ("ifHCInUcastPkts", "ifInUcastPkts"), ("ifHCOutUcastPkts", "ifOutUcastPkts")):
            mib[f"{OID[hc]}.{i}"] = (0x46, 2**40 + i)
            mib[f"{OID[low]}.{i}"] = (0x41, 1000 + i)
    for i in (5, 6):                             # serial WAN links: 32-bit only
        for low in ("ifInOctets", "ifOutOctets", "ifInUcastPkts", "ifOutUcastPkts"):
            mib[f"{OID[low]}.{i}"] = (0x41, 500 + i)
    for i in range(1, 7):
        for name in ("ifInErrors", "ifOutErrors", "ifInDiscards", "ifOutDiscards"):
            mib[f"{OID[name]}.{i}"] = (0x41, i)
    return mib


def poll(expected=None) -> tuple[PollResult, list[bytes]]:
    async def main():
        async with FakeAgent(router_mib()) as agent:
            async with SnmpSession(SnmpTarget("127.0.0.1", agent.port, community="public", timeout=1,
                                              retries=0)) as s:
                result = await poll_switch(s, 1, IF_MIB, "2c", expected)
            return result, list(agent.seen_types)
    return asyncio.run(main())


def widths(result: PollResult, obj: str) -> dict[str, int]:
    return {k[1]: r.width for k, r in result.readings.items() if k[0] == obj}


def test_each_interface_gets_its_64_bit_column_or_its_32_bit_one():
    result, _ = poll({"port": frozenset(str(i) for i in range(1, 7))})
    assert widths(result, "ifHCInOctets") == {"1": 64, "2": 64, "3": 64, "4": 64, "5": 32, "6": 32}
    assert widths(result, "ifHCOutUcastPkts")["6"] == 32
    assert result.readings[("ifHCInOctets", "5")].value == 505
    assert result.notes == [] and result.missing_columns == []


def test_known_interfaces_get_their_fallback_by_get_unknown_ones_by_walk():
    _, with_inventory = poll({"port": frozenset(str(i) for i in range(1, 7))})
    _, without = poll(None)
    # the epoch scalars (GET), the 64-bit columns (GETBULK), then the two serial links' 2 x 4
    # fallback instances in one GET; without an inventory, the fallback columns are walked
    assert with_inventory == [GET, GETBULK, GET]
    assert without == [GET, GETBULK, GETBULK]


def test_an_interface_the_inventory_knows_that_answers_nothing_is_noted():
    result, _ = poll({"port": frozenset({"1", "2", "3", "4", "5", "6", "7"})})
    absent = {(n.object, n.reason) for n in result.notes if n.index == "7"}
    assert ("ifHCInOctets", "not answered") in absent and ("ifInErrors", "not answered") in absent


def test_the_first_walk_asks_the_64_bit_columns_and_v1_their_fallbacks():
    v2 = columns_to_walk(IF_MIB, "2c")
    v1 = columns_to_walk(IF_MIB, "1")
    assert OID["ifHCInOctets"] in v2 and OID["ifInOctets"] not in v2
    assert OID["ifInOctets"] in v1 and OID["ifHCInOctets"] not in v1
