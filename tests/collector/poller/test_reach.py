"""collector/poller/reach.py: a poller group bound to a network namespace is served only from inside it.

A real namespace (ip netns add) is bound to a group; this test process runs in the root namespace,
so every way of sending that group's packets refuses here (a poll, a batch, a discovery, a host
check, a network job) and nothing is recorded against the switch; a process inside the namespace
(`ip netns exec`) is served. The namespace has only `lo`: had anything been sent from inside it to
the switch's address, it would have gone nowhere.
"""
from __future__ import annotations

import os
import sys
import time

import pytest

from collector.core import netns
from collector.inventory.models import Host, Switch
from collector.poller import actions, hostcheck, jobs, reach, runner
from collector.poller.models import HostCheck, NetworkJob, SwitchHealth
from simnet import netns as lab_netns

pytestmark = [pytest.mark.django_db, pytest.mark.netns]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture
def bound():
    reason = lab_netns.unavailable_reason()
    if reason:
        pytest.fail(reason)
    with lab_netns.NetnsLab() as lab:
        ns = lab.add_ns("reach")
        reach.bind("far", ns.name)
        # 192.0.2.x: TEST-NET-1. Refused here before any packet; never routed from inside (only lo).
        sw = Switch.objects.create(name="far-sw", address="192.0.2.77", community="c", profile="if-mib",
                                   poller_group="far")
        host = Host.objects.create(name="far-host", address="192.0.2.78", poller_group="far", check_method="icmp")
        yield ns, sw, host
        reach.forget()


def test_this_process_knows_where_it_runs():
    assert netns.current() == netns.ROOT and netns.describe() == "root"


def test_every_way_of_sending_a_bound_groups_packets_refuses_outside_its_namespace(bound):
    ns, sw, host = bound
    assert not reach.served_here("far") and reach.served_here("default")
    with pytest.raises(reach.Elsewhere, match=rf"switch far-sw is in poller group 'far', whose network is "
                                              rf"namespace {ns.name}; this process runs in namespace root"):
        runner.poll_once(sw.id)
    with pytest.raises(reach.Elsewhere, match="switch far-sw"):
        actions.discover(sw.id)
    with pytest.raises(reach.Elsewhere, match="host far-host"):
        hostcheck.check_and_record(host.id)
    # a batch sent to the wrong queue skips it, and records nothing against it
    assert actions.poll_batch({sw.id: time.time()}) == {}
    assert not SwitchHealth.objects.filter(switch=sw).exists() and not HostCheck.objects.exists()
    # a network job run here fails with where to run it
    job = jobs.create(NetworkJob.Kind.CHECK_SWITCH, sw.name, "far", {"switch_id": sw.id}, queue=False)
    assert jobs.run(job.id) == "failed"
    job.refresh_from_db()
    assert job.error.startswith("a job for far-sw is in poller group 'far'") and ns.name in job.error


def test_inside_the_namespace_a_process_finds_the_name_the_group_is_bound_to(bound):
    # reach.check compares the bound name with netns.describe() of the process: inside, they match
    ns, _, _ = bound
    code = "from collector.core import netns; print(netns.current(), netns.describe())"
    out = ns.run([sys.executable, "-c", code], timeout=60, env={**os.environ, "PYTHONPATH": ROOT})
    assert out.stdout.split() == [ns.name, ns.name], out.stderr
    assert reach.namespace_of("far") == ns.name


def test_a_group_without_a_binding_is_served_anywhere_and_unbinding_is_immediate(bound):
    ns, sw, _ = bound
    reach.bind("far", None)
    assert reach.served_here("far") and reach.namespace_of("far") is None
    reach.bind("far", ns.name)
    assert not reach.served_here("far")
