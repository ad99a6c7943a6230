"""Host checks for real: ICMP to loopback, TCP connect, and an address that does not answer."""
from __future__ import annotations

import socket

import pytest

from collector.inventory.models import Host
from collector.poller import hostcheck, jobs
from collector.poller.models import HostCheck, HostState

pytestmark = pytest.mark.django_db


def test_loopback_answers_icmp_with_a_delay():
    result = hostcheck.check_icmp("127.0.0.1")
    assert result.reachable and result.method == "icmp" and 0 <= result.rtt_ms < 100


def test_tcp_refused_means_the_host_is_up():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]   # bound, not listening: the kernel answers with a reset
    result = hostcheck.check_tcp("127.0.0.1", port)
    assert result.reachable and result.method == "tcp"


@pytest.mark.netns
def test_an_address_behind_a_down_link_is_unreachable_by_every_method(tmp_path):
    # simnet's unreachable host: 198.18.0.2 routed, inside a namespace of ours, to a veth whose
    # peer is down, so the packets go nowhere and never leave the namespace. The checks run in a
    # child process inside it; the root namespace is not touched.
    from simnet import hosts as simhosts
    from simnet.network import UNREACHABLE_ADDRESS
    from tests.support.simnet_lab import host_checks_in_netns

    assert simhosts.netns_available(), "needs root and ip netns (make test runs as root)"
    name = simhosts.netns_name(tmp_path)
    simhosts.create_netns(name)
    try:
        [hopper, lo] = host_checks_in_netns(name, [(UNREACHABLE_ADDRESS, 22), ("127.0.0.1", 22)])
    finally:
        simhosts.remove_netns(name)
    assert not hopper["icmp"] and not hopper["tcp"] and hopper["error"]
    assert lo["icmp"] and lo["tcp"]     # the same child reaches its own loopback
    assert not simhosts.netns_exists(name)


def test_check_and_record_keeps_state_and_history():
    host = Host.objects.create(name="lo", address="127.0.0.1", check_method="auto")
    hostcheck.check_and_record(host.id)
    hostcheck.check_and_record(host.id)
    state = HostState.objects.get(host=host)
    assert state.reachable and state.last_seen_at and state.rtt_ms is not None
    assert HostCheck.objects.filter(host_id=host.id).count() == 2


class LoopbackTcp:
    """A TCP port of 127.0.0.1 that a test silences and lets answer again: bound but not listening,
    the kernel resets a connect (the host answered: reachable); listening with its queue full,
    a connect gets no answer and times out (unreachable)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.filler: socket.socket | None = None

    def silence(self) -> None:
        self.sock.listen(0)
        self.filler = socket.create_connection(("127.0.0.1", self.port), timeout=2)   # fills the queue

    def answer(self) -> None:
        assert self.filler is not None
        self.filler.close()
        self.sock.close()              # the port is free again: a connect is refused


def test_a_host_going_down_and_back_is_two_events_on_its_page_and_the_list(client):
    from collector.events.models import Event

    tcp = LoopbackTcp()
    flaky = Host.objects.create(name="flaky", address="127.0.0.1", check_method="tcp", tcp_port=tcp.port)
    dark = Host.objects.create(name="dark", address="127.0.0.1", check_method="tcp", tcp_port=tcp.port)
    steady = Host.objects.create(name="steady", address="127.0.0.1", check_method="icmp")

    def check(host: Host) -> None:
        # the host page's "check now" (operator): a job, run here as the group's worker would
        resp = client.post(f"/hosts/{host.name}/check")
        assert resp.status_code == 302 and jobs.run(int(resp.url.split("/")[3])) == "done"

    for host in (flaky, flaky, steady, steady):
        check(host)                            # first seen responding, then confirmed: no event
    assert not Event.objects.exists()
    try:
        tcp.silence()
        for host in (flaky, flaky, dark):
            check(host)
    finally:
        tcp.answer()
    check(flaky)
    check(flaky)
    assert HostCheck.objects.filter(host_id=flaky.id).count() == 6
    assert HostState.objects.get(host=flaky).reachable and not HostState.objects.get(host=dark).reachable
    rows = list(Event.objects.filter(kind="host_state", source="check").order_by("at", "id"))
    assert [(e.host.name, e.data["from"], e.data["to"]) for e in rows] == [
        ("flaky", "up", "down"), ("dark", None, "down"), ("flaky", "down", "up")]
    assert Event.objects.count() == 3
    assert rows[0].message == f"host flaky unreachable (tcp: tcp/{tcp.port}: TimeoutError)"
    assert rows[2].message.startswith("host flaky responding again (tcp, ")

    page = client.get("/hosts/flaky/").content.decode()
    section = page[page.index('id="host-events"'):page.index("VCs from flaky")]
    assert section.count('class="event-host_state"') == 2
    assert "host flaky unreachable" in section and "host flaky responding again" in section
    assert "host dark" not in section
    assert "No event recorded for this host" in client.get("/hosts/steady/").content.decode()
    listed = client.get("/events/?host=flaky").content.decode()
    assert "2 events · page 1 of 1" in listed and 'href="/hosts/flaky/"' in listed
    everything = client.get("/events/?kind=host_state").content.decode()
    assert "3 events" in everything and "host dark unreachable" in everything
