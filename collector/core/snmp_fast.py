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
import socket

from collector.core import snmp_codec as codec
from collector.core.snmp_types import (
    SnmpError,
    SnmpProtocolError,
    SnmpStats,
    SnmpTarget,
    SnmpTimeout,
    resolve,
    timeout_message,
    unreachable_from_errno,
)

# Linux's IP_RECVERR / IPV6_RECVERR (not in Python's socket module): every ICMP error reaches the
# socket. Without it a connected UDP socket hears only "port unreachable"; "host unreachable" (a
# router's, or the kernel's own when nobody answers ARP on the LAN) is dropped, and an agent that is
# not there looked like a wrong community.
RECVERR: dict[int, tuple[int, int]] = {socket.AF_INET: (socket.IPPROTO_IP, 11),
                                        socket.AF_INET6: (socket.IPPROTO_IPV6, 25)}


def _udp_socket(family: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sock.setblocking(False)
    if family in RECVERR:
        try:
            sock.setsockopt(*RECVERR[family], 1)
        except OSError:
            pass                       # not Linux: port unreachable is still heard
    return sock


class _UdpClientProtocol(asyncio.DatagramProtocol):
    def __init__(self, stats: SnmpStats, label: str, sock: socket.socket | None = None):
        self.stats = stats
        self.label = label
        self.sock = sock
        self.pending: dict[int, asyncio.Future] = {}
        self.transport: asyncio.DatagramTransport | None = None
        self.icmp_errno: int | None = None     # the last ICMP error the socket reported

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
        # ICMP port/host unreachable etc.; UDP is unreliable, so keep waiting/retrying, and say
        # at the end what the network answered instead of the agent.
        self.stats.icmp_errors += 1
        self.icmp_errno = getattr(exc, "errno", None)
        self._drain_errors()

    def _drain_errors(self) -> None:
        """Empty the socket's error queue (IP_RECVERR): a queued error keeps the socket signalling
        POLLERR, and the event loop would spin on it."""
        if self.sock is None:
            return
        for _ in range(64):
            try:
                self.sock.recvmsg(1, 1024, socket.MSG_ERRQUEUE)
            except OSError:
                return

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
            sock = _udp_socket(family)
            try:
                sock.connect(addr)
                transport, proto = await loop.create_datagram_endpoint(
                    lambda: _UdpClientProtocol(self.stats, t.label, sock), sock=sock)
            except OSError as e:
                sock.close()
                failure = unreachable_from_errno(t, e.errno)
                if failure is not None:
                    raise failure from None
                raise SnmpError(f"cannot open UDP socket to {t.label}: {e.strerror or e}") from None
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
                raise unreachable_from_errno(t, proto.icmp_errno) or SnmpTimeout(timeout_message(t))
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
