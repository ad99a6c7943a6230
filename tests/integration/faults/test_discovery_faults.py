"""Discovery when part of it fails: an agent that never answers one table (its requests time out),
and a database that refuses a row. Either way: what could be kept is kept, the failure is one
line naming the switch and the cause, `manage.py discover` exits non-zero, and no traceback.
"""
from __future__ import annotations

import asyncio
import io
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from collector.core import profiles
from collector.core.snmp_codec import raw_to_str
from collector.inventory.models import Port, Switch
from tests.support.agents import FakeAgent, NetSnmpAgent

pytestmark = pytest.mark.django_db(transaction=True)
IF_X = profiles.object_by_name("ifName").oid.rsplit(".", 1)[0]       # ifXTable entry


def ifmib() -> dict:
    mib = {"1.3.6.1.2.1.1.1.0": (0x04, b"partial agent"), "1.3.6.1.2.1.1.2.0": (0x06, "1.3.6.1.4.1.32473.9"),
           "1.3.6.1.2.1.1.3.0": (0x43, 1000), "1.3.6.1.2.1.1.5.0": (0x04, b"partial")}
    for i in (1, 2, 3):
        mib[f"1.3.6.1.2.1.2.2.1.2.{i}"] = (0x04, f"eth{i}".encode())
        mib[f"1.3.6.1.2.1.2.2.1.3.{i}"] = (0x02, 6)
        mib[f"1.3.6.1.2.1.2.2.1.8.{i}"] = (0x02, 1)
        mib[f"{IF_X}.1.{i}"] = (0x04, f"Ethernet{i}".encode())
    return mib


class ThreadedAgent:
    """A FakeAgent serving from a thread of its own (discovery runs its own event loop)."""

    def __init__(self, mib: dict, handler=None):
        self.loop = asyncio.new_event_loop()
        self.agent = FakeAgent(mib, handler=handler)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> FakeAgent:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.agent.__aenter__(), self.loop).result(5)
        return self.agent

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self.agent.__aexit__(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def silent_on_ifxtable(agent, req, data):
    """Never answer a request for the ifXTable: its walk times out; answer everything else."""
    if any(raw_to_str(name).startswith(IF_X) for name, _ in req.varbinds):
        return None
    return agent.answer(req)


def test_a_table_the_agent_never_answers_keeps_the_rest_and_exits_nonzero():
    with ThreadedAgent(ifmib(), silent_on_ifxtable) as agent:
        call_command("add_switch", "--no-check", "partial", "127.0.0.1", "--port", str(agent.port), "--community",
                     "public", "--profile", "if-mib", "--timeout", "0.3", "--retries", "0", stdout=io.StringIO())
        out = io.StringIO()
        with pytest.raises(CommandError) as info:
            call_command("discover", "partial", stdout=out)
    message = str(info.value)
    assert message.startswith("partial: discovery incomplete, kept what was read: ifName") and "\n" not in message
    assert "no answer from 127.0.0.1" in message and "3 ports" in out.getvalue()
    ports = Port.objects.filter(switch__name="partial").order_by("key")
    assert [p.name for p in ports] == ["eth1", "eth2", "eth3"]      # ifDescr: the names ifXTable did not give


def test_a_database_error_is_one_line_naming_the_switch_and_the_cause():
    with NetSnmpAgent() as agent:
        call_command("add_switch", "--no-check", "sw-dberr", agent.host, "--port", str(agent.port), "--community",
                     agent.community, "--profile", "if-mib", stdout=io.StringIO())
        with connection.cursor() as cur:        # a real refusal by PostgreSQL, not a mock
            cur.execute("ALTER TABLE inventory_port ADD CONSTRAINT test_no_lo CHECK (agent_name <> 'lo')")
        try:
            with pytest.raises(CommandError) as info:
                call_command("discover", "sw-dberr", stdout=io.StringIO())
        finally:
            with connection.cursor() as cur:
                cur.execute("ALTER TABLE inventory_port DROP CONSTRAINT test_no_lo")
    message = str(info.value)
    assert message.startswith("sw-dberr: database error while storing what the agent answered: IntegrityError")
    assert "test_no_lo" in message and "\n" not in message and "Traceback" not in message
    assert Switch.objects.get(name="sw-dberr").detected_profile == "if-mib"
