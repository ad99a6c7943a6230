"""services/__main__.py: a port counts as taken only when binding it fails for being taken, so a
`make run` refuses to start web or trapd on another program's port and leaves any other bind
error (an address the machine lacks) to the program's own log."""
from __future__ import annotations

import socket

import pytest

from services.__main__ import tcp_in_use, udp_in_use


def _free(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("listen_on, taken", [("127.0.0.1", True), ("0.0.0.0", True), (None, False)])
def test_a_tcp_listener_takes_the_web_port(listen_on, taken):
    port = _free(socket.SOCK_STREAM)
    with socket.socket() as s:
        if listen_on:
            s.bind((listen_on, port))
            s.listen()
        assert tcp_in_use(port) is taken


@pytest.mark.parametrize("bound_on, trap_host, taken", [
    ("127.0.0.1", "0.0.0.0", True),
    ("0.0.0.0", "0.0.0.0", True),
    (None, "0.0.0.0", False),
    (None, "203.0.113.1", False),    # not this machine's: trapd says so in its log
])
def test_a_bound_udp_socket_takes_the_trap_port(bound_on, trap_host, taken):
    port = _free(socket.SOCK_DGRAM)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        if bound_on:
            s.bind((bound_on, port))
        assert udp_in_use(trap_host, port) is taken
