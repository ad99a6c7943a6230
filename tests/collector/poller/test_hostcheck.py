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
def test_an_address_behind_a_down_link_is_unreachable_by_every_method():
    # simnet's unreachable host: 198.18.0.2 routed into a namespace of ours whose veth end is
    # down, so the packets go nowhere and never leave the machine.
    from simnet import hosts as simhosts
    from simnet.network import UNREACHABLE_ADDRESS

    assert simhosts.ensure_unreachable_netns(), "needs root and ip netns (make test runs as root)"
    host = Host.objects.create(name="hopper", address=UNREACHABLE_ADDRESS, check_method="auto", tcp_port=22)
    result = hostcheck.check(host)
    assert not result.reachable and result.error
    assert result.method == "icmp"     # TCP failed too, and no switch has this address for SNMP


def test_check_and_record_keeps_state_and_history():
    host = Host.objects.create(name="lo", address="127.0.0.1", check_method="auto")
    hostcheck.check_and_record(host.id)
    hostcheck.check_and_record(host.id)
    state = HostState.objects.get(host=host)
    assert state.reachable and state.last_seen_at and state.rtt_ms is not None
    assert HostCheck.objects.filter(host_id=host.id).count() == 2
