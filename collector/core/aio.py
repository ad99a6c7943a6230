"""Run SNMP coroutines from synchronous code (Celery pool threads, the CLI, views).

Each thread keeps one long-lived event loop: a worker thread polls many times, and keeping its
loop (and with it the pysnmp engine and its v3 key cache, built per loop) saves ~100 ms of CPU
per SNMPv3 poll over asyncio.run().
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_local = threading.local()


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on this thread's event loop."""
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = _local.loop = asyncio.new_event_loop()
    return loop.run_until_complete(coro)
