"""A beat slot's polls (actions.poll_batch -> runner.poll_batch -> ingest.ingest_batch): each switch
at its own due time, one event loop, the samples in one COPY, poll log and health in one go; the
same rows a single poll writes, a failing switch delaying none of the others."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from collector.archive.models import PollLog
from collector.inventory.models import Switch
from collector.poller import actions, runner
from collector.poller.models import SwitchHealth
from tests.support.agents import free_udp_port


def _whole(raw0: list[int], raw1: list[int], delta1: list[int | None]) -> bool:
    """Every counter's delta is the whole difference from the row before (the discontinuity
    times stored beside the counters have none)."""
    counters = [(a, b, d) for a, b, d in zip(raw0, raw1, delta1) if d is not None]
    return len(counters) >= len(raw0) * 8 // 9 and all(d == b - a for a, b, d in counters)


@pytest.fixture(scope="module")
def agent() -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-m", "simnet.swarm", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        m = re.search(r":(\d+)$", (proc.stdout.readline() if proc.stdout else "").strip())
        assert m, "swarm did not start"
        yield int(m.group(1))
    finally:
        proc.terminate()
        proc.wait(10)


def _rows(sid: int):
    with connection.cursor() as cur:
        cur.execute("SELECT extract(epoch FROM time)::float8, raw, delta FROM traffic_sample WHERE switch_id = %s "
                    "ORDER BY time", [sid])
        return cur.fetchall()


@pytest.mark.django_db(transaction=True)
def test_a_slot_of_switches_is_polled_stored_and_recorded_together(agent):
    runner.forget_switches()
    common = {"address": "127.0.0.1", "poll_interval_s": 15, "timeout_s": 0.5, "retries": 0}
    ip = [Switch.objects.create(name=f"b-ip-{i}", snmp_port=agent, community="ip48", profile="if-mib", **common)
          for i in range(3)]
    atm = Switch.objects.create(name="b-atm", snmp_port=agent, community="atm200", profile="atm2", **common)
    dead = Switch.objects.create(name="b-dead", snmp_port=free_udp_port(), community="ip48", profile="if-mib",
                                 **common)
    gone = Switch.objects.create(name="b-gone", snmp_port=agent, community="ip48", profile="if-mib", **common)
    gone_id = gone.id
    gone.delete()
    ids = [s.id for s in (*ip, atm, dead)]
    now = time.time()
    late_due = now + 0.6                 # one switch's slot lies ahead: it waits for it
    due = {sid: now for sid in ids} | {ip[2].id: late_due, gone_id: now}
    t0 = time.monotonic()
    # the dead agent's port answers ICMP port unreachable: "refused", not a timeout
    assert actions.poll_batch(due) == {"ok": 4, "refused": 1, "gone": 1}
    # concurrent: the timeout (0.5 s) and the wait (0.6 s) overlap instead of adding up
    assert time.monotonic() - t0 < 1.5
    start = PollLog.objects.get(switch_id=ip[2].id)
    assert start.time.timestamp() - start.duration_ms / 2000 >= late_due - 0.01
    assert PollLog.objects.filter(switch_id__in=ids).count() == 5
    assert PollLog.objects.get(switch_id=dead.id).status == "refused"
    time.sleep(1.1)
    assert actions.poll_batch({sid: time.time() for sid in ids}) == {"ok": 4, "refused": 1}
    for sw in (*ip, atm):
        rows = _rows(sw.id)
        assert len(rows) == 2
        (_, raw0, _), (_, raw1, delta1) = rows
        assert _whole(raw0, raw1, delta1)
        h = SwitchHealth.objects.get(switch=sw)
        assert (h.polls_ok, h.polls_failed, h.consecutive_failures, h.last_status) == (2, 0, 0, "ok")
        assert h.last_success_at is not None and h.last_varbinds > 0
    h = SwitchHealth.objects.get(switch=dead)
    assert (h.polls_ok, h.polls_failed, h.consecutive_failures, h.last_status) == (0, 2, 2, "refused")
    assert h.last_success_at is None and "no SNMP agent listens on port" in h.last_error
    assert "from this poller: group default, network namespace root" in h.last_error
    assert len(_rows(atm.id)[0][1]) > 200 * 5          # VC counters stored as the single poll stores them


@pytest.mark.django_db(transaction=True)
def test_a_batch_and_single_polls_write_the_same_rows_and_never_twice(agent):
    runner.forget_switches()
    sw = Switch.objects.create(name="b-one", address="127.0.0.1", snmp_port=agent, community="ip48",
                               profile="if-mib", poll_interval_s=15)
    assert runner.poll_once(sw.id).stored == "written"
    time.sleep(1.1)
    assert actions.poll_batch({sw.id: time.time()}) == {"ok": 1}
    time.sleep(1.1)
    assert runner.poll_once(sw.id).stored == "written"
    rows = _rows(sw.id)
    assert len(rows) == 3
    for (_, raw0, _), (_, raw1, delta1) in zip(rows, rows[1:]):
        assert _whole(raw0, raw1, delta1)
    # the lock: a switch being polled elsewhere is skipped, not polled twice
    from collector.poller.locks import PollLock

    held = PollLock(sw.id)
    assert held.acquire()
    try:
        assert actions.poll_batch({sw.id: time.time()}) == {"skipped": 1}
    finally:
        held.release()
    assert len(_rows(sw.id)) == 3


@pytest.mark.django_db(transaction=True)
def test_the_expected_ports_of_a_slot_are_read_in_one_statement_and_kept_for_their_ttl(django_assert_num_queries):
    from collector.inventory.models import Port

    sws = [Switch.objects.create(name=f"exp{i}", address="127.0.0.1", community="x", profile="if-mib")
           for i in range(4)]
    for sw in sws[:3]:
        Port.objects.bulk_create([Port(switch=sw, key=str(k), name=f"p{k}") for k in (1, 2)])
    Port.objects.filter(switch=sws[2], key="2").update(gone_at="2026-01-01T00:00:00Z")
    ids = [sw.id for sw in sws]
    runner.forget_switches()
    with django_assert_num_queries(1):
        got = runner.expected_many(ids)
    assert got == {ids[0]: {"port": frozenset({"1", "2"})}, ids[1]: {"port": frozenset({"1", "2"})},
                   ids[2]: {"port": frozenset({"1"})}, ids[3]: None}      # gone ports and no discovery
    with django_assert_num_queries(0):                                  # within the TTL: kept
        assert runner.expected_many(ids) == got
    runner.forget_expected(ids[0])                                       # discovery of one switch
    Port.objects.create(switch=sws[0], key="3", name="p3")
    with django_assert_num_queries(1):
        assert runner.expected_many(ids)[ids[0]] == {"port": frozenset({"1", "2", "3"})}
