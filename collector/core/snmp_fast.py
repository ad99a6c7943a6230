"""The fast SNMPv1/v2c backend: our strict BER codec (snmp_codec) over one connected asyncio
UDP endpoint per session, with request-id matching and retransmission.

Decoding is the hot path of polling (pysnmp took ~10x the CPU of net-snmp for the same walk);
this backend keeps OIDs in their encoded form. A backend answers
request(pdu_type, raw_names, max_repetitions) -> (error_status, error_index, varbinds); the
session (collector/core/snmp.py) builds GET and walk on top of it.
"""
from __future__ import annotations

import asyncio
import random

from collector.core import snmp_codec as codec
from collector.core.snmp_types import (
    SnmpError,
    SnmpProtocolError,
    SnmpStats,
    SnmpTarget,
    SnmpTimeout,
    resolve,
    timeout_message,
)


class _UdpClientProtocol(asyncio.DatagramProtocol):
    def __init__(self, stats: SnmpStats, label: str):
        self.stats = stats
        self.label = label
        self.pending: dict[int, asyncio.Future] = {}
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        st = self.stats
        st.bytes_received += len(data)
        if not self.pending:
            st.stray += 1
            return
        try:
            resp = codec.decode_response(data)
        except codec.CodecError as e:
            # Only the agent can reach this connected socket: it is sending garbage.
            st.malformed += 1
            for waiting in self.pending.values():
                if not waiting.done():
                    waiting.set_exception(
                        SnmpProtocolError(f"malformed response from {self.label}: {e}"))
            return
        fut = self.pending.get(resp.request_id)
        if fut is None or fut.done():
            st.stray += 1
            return
        fut.set_result(resp)

    def error_received(self, exc: Exception) -> None:
        # ICMP port/host unreachable etc.; UDP is unreliable, so keep waiting/retrying.
        self.stats.icmp_errors += 1

    def connection_lost(self, exc) -> None:
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(SnmpError(f"transport to {self.label} closed"))


def _expire(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


class FastBackend:
    name = "fast"

    def __init__(self, target: SnmpTarget, stats: SnmpStats):
        self.target = target
        self.stats = stats
        self._version = 0 if target.version == "1" else 1
        self._community = target.community.encode("utf-8", "surrogateescape")
        self._proto: _UdpClientProtocol | None = None
        self._transport: asyncio.DatagramTransport | None = None
        self._open_lock = asyncio.Lock()
        self._rid = random.randrange(1, 2**31 - 1)

    async def _open(self) -> None:
        async with self._open_lock:
            if self._transport is not None:
                return
            t = self.target
            loop = asyncio.get_running_loop()
            family, addr = await resolve(t)
            try:
                transport, proto = await loop.create_datagram_endpoint(
                    lambda: _UdpClientProtocol(self.stats, t.label),
                    remote_addr=(addr[0], addr[1]),
                    family=family)
            except OSError as e:
                raise SnmpError(f"cannot open UDP socket to {t.label}: {e}") from None
            self._transport, self._proto = transport, proto

    async def request(self, pdu_type: int, names: list, max_repetitions: int = 0):
        if self._transport is None:
            await self._open()
        t = self.target
        st = self.stats
        proto, transport = self._proto, self._transport
        assert proto is not None and transport is not None
        self._rid = self._rid % (2**31 - 1) + 1
        rid = self._rid
        msg = codec.encode_request(self._version, self._community, pdu_type, rid, names,
                                   0, max_repetitions)
        loop = asyncio.get_running_loop()
        pending = proto.pending
        st.requests += 1
        resp = None
        try:
            for attempt in range(t.retries + 1):
                if attempt:
                    st.retries += 1
                # a fresh future per attempt; a late answer to an earlier attempt carries
                # the same request-id and is accepted as well
                fut = loop.create_future()
                pending[rid] = fut
                transport.sendto(msg)
                st.bytes_sent += len(msg)
                timer = loop.call_later(t.timeout, _expire, fut)
                try:
                    resp = await fut     # may raise SnmpProtocolError (malformed datagram)
                finally:
                    timer.cancel()
                if resp is not None:
                    break
            else:
                st.timeouts += 1
                raise SnmpTimeout(timeout_message(t))
        finally:
            pending.pop(rid, None)
        if resp.version != self._version or resp.pdu_type != codec.RESPONSE:
            raise SnmpProtocolError(f"unexpected message version/PDU type from {t.label}")
        if resp.community != self._community:
            raise SnmpProtocolError(f"response from {t.label} carries a different community")
        st.responses += 1
        st.varbinds += len(resp.varbinds)
        return resp.error_status, resp.error_index, resp.varbinds

    async def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
            self._proto = None
