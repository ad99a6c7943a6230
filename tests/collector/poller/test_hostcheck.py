"""Host checks for real: ICMP to loopback, TCP connect, and an address that does not answer."""
from __future__ import annotations

import socket

import pytest

from collector.inventory.models import Host
from collector.poller import hostcheck
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
