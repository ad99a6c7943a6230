"""Is an SNMP agent up? One SNMPv2c GET of sysUpTime.0, encoded and decoded by the core codec.

Used to wait for the simulated agents, for snmpd in a network namespace (tests, benchmarks).
"""
from __future__ import annotations

import socket
import time

from collector.core import snmp_codec as codec

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"


def snmp_probe(address: str, port: int, community: str, timeout: float = 0.5) -> bool:
    """True if an SNMPv2c GET of sysUpTime.0 gets a response to our request id."""
    rid = int(time.time() * 1000) & 0x7FFFFFFF
    request = codec.encode_request(1, community.encode(), codec.GET, rid, [codec.oid_to_raw(SYS_UPTIME)])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        try:
            s.sendto(request, (address, port))
            data, _ = s.recvfrom(65535)
            return codec.decode_response(data).request_id == rid
        except (OSError, codec.CodecError):
            return False


def wait_for_agent(address: str, port: int, community: str, seconds: float, alive=lambda: True) -> bool:
    """Probe until the agent answers (True) or `seconds` pass or alive() says the process died."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and alive():
        if snmp_probe(address, port, community, timeout=0.2):
            return True
        time.sleep(0.05)
    return False
