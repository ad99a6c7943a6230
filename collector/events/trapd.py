"""The trap receiver: a small asyncio UDP service (`manage.py trapd`, started by `make run`).

Datagrams are read by the event loop and handed, in order, to one worker thread that runs
traps.handle (the ORM is synchronous); the queue is bounded (QUEUE_MAX): under a flood the
datagrams past it are counted, logged and recorded as one "trap_rejected" event per
DROP_REPORT_S, never lost without a word; so are rejected datagrams past traps.REJECT_MAX per
source and window. A v2c inform whose credentials matched is answered.
"""
from __future__ import annotations

import asyncio
import logging
import signal
import socket
import time

from django.db import close_old_connections

from collector.core import snmp_codec as codec
from collector.events import traps
from collector.events.record import record_event

log = logging.getLogger(__name__)
QUEUE_MAX = 10_000
# The kernel's receive buffer holds a burst while the loop is busy (Linux caps it at
# net.core.rmem_max unless raised there): 8 MB is some 10,000 small traps.
RCVBUF = 8 << 20
DROP_REPORT_S = 60.0


class Receiver(asyncio.DatagramProtocol):
    def __init__(self, queue: asyncio.Queue) -> None:
        self.queue = queue
        self.transport: asyncio.DatagramTransport | None = None
        self.dropped = 0
        self.received = 0

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        self.received += 1
        try:
            self.queue.put_nowait((data, addr))
        except asyncio.QueueFull:
            self.dropped += 1

    def answer_inform(self, data: bytes, addr) -> None:
        """Acknowledge a v2c inform (same request id, empty varbind list)."""
        try:
            resp = codec.decode_message(data)
            reply = codec.encode_message(resp.version, bytes(resp.community), codec.RESPONSE, resp.request_id, 0, 0,
                                         [])
        except codec.CodecError:
            return
        if self.transport is not None:
            self.transport.sendto(reply, addr)


def _handle(data: bytes, src: str) -> traps.Outcome:
    close_old_connections()          # a long-lived process: drop a connection the server closed
    try:
        return traps.handle(data, src)
    except Exception as exc:         # a database error: logged, the service goes on
        log.exception("trap from %s not recorded", src)
        return traps.Outcome("error", f"{exc.__class__.__name__}: {exc}")


async def _worker(queue: asyncio.Queue, proto: Receiver) -> None:
    while True:
        data, addr = await queue.get()
        outcome = await asyncio.to_thread(_handle, data, addr[0])
        if outcome.inform:
            proto.answer_inform(data, addr)
        log.info("trap from %s: %s", addr[0], outcome.message)


async def _report_drops(proto: Receiver) -> None:
    reported = 0
    while True:
        await asyncio.sleep(DROP_REPORT_S)
        await asyncio.to_thread(traps.flush_rejects)
        if proto.dropped > reported:
            n, reported = proto.dropped - reported, proto.dropped
            log.warning("trap receiver: %d datagrams not processed (queue of %d full)", n, QUEUE_MAX)
            await asyncio.to_thread(record_event, "trap_rejected", source="trap", data={"dropped": n},
                                    message=f"{n} datagrams not processed in the last {DROP_REPORT_S:.0f} s: "
                                            f"the receiver's queue ({QUEUE_MAX}) was full")


async def serve(host: str, port: int, ready=None) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue(QUEUE_MAX)
    transport, proto = await loop.create_datagram_endpoint(lambda: Receiver(queue), local_addr=(host, port))
    sock = transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    got = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(_worker(queue, proto)), asyncio.create_task(_report_drops(proto))]
    log.info("trap receiver listening on %s:%d (UDP), receive buffer %d bytes", host, port, got)
    if ready is not None:
        ready(transport.get_extra_info("sockname"))
    started = time.monotonic()
    try:
        await stop.wait()
    finally:
        transport.close()
        for t in tasks:
            t.cancel()
        await asyncio.to_thread(traps.flush_rejects, True)
        log.info("trap receiver stopped after %.0f s: %d datagrams received, %d not processed",
                 time.monotonic() - started, proto.received, proto.dropped)
