"""A simulated IF-MIB switch whose traffic the test sets: one 10 Mb/s interface whose ifHCInOctets
grows at the rate the test chooses now (set_rate), the integral kept exact across changes.

It is tests/support/agents.FakeAgent (a real SNMP agent over UDP on 127.0.0.1, speaking the
project's BER codec) served from a thread, so real polls (a Celery worker in another process,
or `manage.py poll`) read it; discovery finds the interface as with any IF-MIB agent.
"""
from __future__ import annotations

import asyncio
import threading
import time

from collector.core import profiles, snmp_codec
from tests.support.agents import FakeAgent

SPEED_BPS = 10_000_000                      # 10 Mb/s: 1,250,000 octets/s is 100 % of capacity
CAPACITY_OCTETS = SPEED_BPS // 8
OUT_RATE = 1_000                            # octets/s transmitted, constant


def oid(name: str, index: int = 1) -> str:
    return f"{profiles.object_by_name(name).oid}.{index}"


class RateAgent(FakeAgent):
    def __init__(self, rate_pct: float = 10.0):
        self.started = time.time()
        self.lock = threading.Lock()
        self.total_in = 10_000_000.0
        self.rate = CAPACITY_OCTETS * rate_pct / 100
        self.changed = self.started
        mib = {
            "1.3.6.1.2.1.1.1.0": (0x04, b"Cellar test switch (RateAgent)"),
            "1.3.6.1.2.1.1.2.0": (0x06, "1.3.6.1.4.1.32473.14"),
            "1.3.6.1.2.1.1.3.0": (0x43, 100),
            "1.3.6.1.2.1.1.5.0": (0x04, b"rate-switch"),
            oid("ifDescr"): (0x04, b"eth1"), oid("ifType"): (0x02, 6), oid("ifSpeed"): (0x42, SPEED_BPS),
            oid("ifAdminStatus"): (0x02, 1), oid("ifOperStatus"): (0x02, 1), oid("ifLastChange"): (0x43, 0),
            oid("ifName"): (0x04, b"eth1"), oid("ifAlias"): (0x04, b"uplink"), oid("ifHighSpeed"): (0x42, 10),
            oid("ifHCInOctets"): (0x46, 0), oid("ifHCOutOctets"): (0x46, 0),
            **{oid(n): (0x46, 0) for n in ("ifHCInUcastPkts", "ifHCOutUcastPkts")},
            **{oid(n): (0x41, 0) for n in ("ifInDiscards", "ifOutDiscards", "ifInErrors", "ifOutErrors")},
        }
        super().__init__(mib)
        self.dynamic = {oid("ifHCInOctets"): self.octets_in, oid("ifHCOutOctets"): self.octets_out,
                        "1.3.6.1.2.1.1.3.0": self.uptime}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    # -- the traffic -------------------------------------------------------------------------------
    def _advance(self, now: float) -> None:
        self.total_in += self.rate * (now - self.changed)
        self.changed = now

    def set_rate(self, pct: float) -> None:
        """From now on, ifHCInOctets grows at pct % of the interface's capacity."""
        with self.lock:
            self._advance(time.time())
            self.rate = CAPACITY_OCTETS * pct / 100

    def octets_in(self, now: float) -> tuple[int, int]:
        with self.lock:
            self._advance(now)
            return 0x46, int(self.total_in)

    def octets_out(self, now: float) -> tuple[int, int]:
        return 0x46, int(OUT_RATE * (now - self.started))

    def uptime(self, now: float) -> tuple[int, int]:
        return 0x43, int((now - self.started) * 100) + 100

    def answer(self, req, **kw) -> bytes:
        now = time.time()
        for key, value in self.dynamic.items():
            raw = snmp_codec.oid_to_raw(key)
            encoded = snmp_codec.encode_value(*value(now))
            self.by_raw[raw] = encoded
            i = self.keys.index(snmp_codec.raw_to_oid(raw))
            self.items[i] = (self.items[i][0], raw, encoded)
        return super().answer(req, **kw)

    # -- served from a thread of its own -------------------------------------------------------------
    def __enter__(self) -> RateAgent:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.__aenter__(), self.loop).result(5)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self.__aexit__(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
