"""Fixtures of tests/collector/core: `agent`, a net-snmp snmpd for the SNMP tests
(test_snmp.py, test_snmp_hostile_agents.py)."""

from __future__ import annotations

import pytest

from tests.support.agents import NetSnmpAgent, snmpd_available

# No skipping: `make test` installs net-snmp; a missing snmpd fails the tests that start one.

@pytest.fixture(scope="module")
def agent():
    if not snmpd_available():
        pytest.fail("net-snmp snmpd not installed (make test installs it)")
    with NetSnmpAgent() as a:
        yield a
