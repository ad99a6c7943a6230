"""Fixtures for the simulated-network tests.

`simnet_net` (session): the whole network on a free high port range in a private state
dir, started once.  Tests that reboot/kill agents start their own SimNetwork.
"""

from __future__ import annotations

import shutil

import pytest

from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import NETSNMP, make_state_dir


@pytest.fixture
def state_dir_factory():
    made = []

    def make(tag="t"):
        d = make_state_dir(tag)
        made.append(d)
        return d

    yield make
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def simnet_net():
    if not NETSNMP:
        pytest.fail("net-snmp command line tools (snmpget, snmpbulkwalk) not installed (make test installs them)")
    d = make_state_dir("session")
    net = SimNetwork(d, find_free_base_port(5))
    net.start()
    try:
        yield net
    finally:
        net.stop()
        shutil.rmtree(d, ignore_errors=True)
