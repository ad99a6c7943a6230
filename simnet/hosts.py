"""Hosts for reachability checks.

Reachable hosts live on 127.0.0.x loopback addresses: they answer ICMP echo (the kernel
does) and a TCP listener accepts (and immediately closes) connections on `tcp_port`.

The unreachable host (hopper-atm.ukans), two ways:
  * "netns-veth": the simulated network runs inside a network namespace of its own (made by
    `python -m simnet netns-up`, named after the state dir; `make run` starts simnet and its
    worker, simworker, in it). Inside: lo up, and a veth pair whose end csim-h0 is up with
    198.18.0.1/30 (RFC 2544 benchmarking range) while its peer csim-p0 is left DOWN. From inside
    the namespace 198.18.0.2 is routed to csim-h0, ARP gets no answer: ping gets no reply and
    TCP connect fails with EHOSTUNREACH after ~3 s. Packets never leave the namespace, and the
    host's own (root) namespace gets no address, link or route. `netns-down` removes it all.
  * "closed-port" (not inside such a namespace: not root, or a test in the root namespace):
    address 127.0.0.1 with `tcp_port` a port nothing listens on (connection refused). ICMP to
    it would succeed, so only a TCP check sees this host as down.
"""

from __future__ import annotations

import hashlib
import os
import selectors
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import cast

from collector.core import netns

from . import network


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10, check=check,
                          stdin=subprocess.DEVNULL)


def netns_available() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


def netns_name(state_dir: str | os.PathLike) -> str:
    """The namespace of the simnet whose state dir this is: one per checkout (or test), so two
    `make run` on one machine never share one."""
    digest = hashlib.sha256(str(Path(state_dir).resolve()).encode()).hexdigest()[:10]
    return f"{network.NETNS_PREFIX}{digest}"


def netns_exists(name: str) -> bool:
    return os.path.exists(f"/run/netns/{name}")


def create_netns(name: str) -> None:
    """The namespace with lo up and the unreachable address; idempotent. Every command names the
    namespace (`ip -n`): nothing is created in the caller's namespace."""
    if not netns_exists(name):
        _ip("netns", "add", name)
    _ip("-n", name, "link", "set", "lo", "up")
    if _ip("-n", name, "link", "show", network.UNREACHABLE_VETH_HOST, check=False).returncode != 0:
        _ip("-n", name, "link", "add", network.UNREACHABLE_VETH_HOST, "type", "veth",
            "peer", "name", network.UNREACHABLE_VETH_PEER)
    _ip("-n", name, "addr", "replace", f"{network.UNREACHABLE_LOCAL}/30", "dev", network.UNREACHABLE_VETH_HOST)
    _ip("-n", name, "link", "set", network.UNREACHABLE_VETH_HOST, "up")
    _ip("-n", name, "link", "set", network.UNREACHABLE_VETH_PEER, "down")   # the peer stays down


def remove_netns(name: str) -> bool:
    """Delete the namespace (its veth pair goes with it). True if it existed."""
    if not netns_exists(name):
        return False
    _ip("netns", "del", name)
    return True


def current_netns() -> str | None:
    """The name of the namespace of ours this process runs in, or None: the root namespace, or
    one we did not make."""
    name = netns.current(network.NETNS_PREFIX)
    return None if name in (None, netns.ROOT) else name


def unreachable_ready() -> bool:
    """True inside a namespace made by create_netns: 198.18.0.2 is then unreachable."""
    if current_netns() is None or shutil.which("ip") is None:
        return False
    r = _ip("-br", "addr", "show", "dev", network.UNREACHABLE_VETH_HOST, check=False)
    return r.returncode == 0 and f"{network.UNREACHABLE_LOCAL}/30" in r.stdout


def remove_legacy_netns() -> None:
    """Remove what Cellar left in the root namespace before the simulated network had a namespace of
    its own: the `cellar-simnet`
    namespace and its root-side veth csim-h0 with 198.18.0.1/30."""
    if not netns_available():
        return
    _ip("netns", "del", network.LEGACY_NETNS, check=False)   # removes the veth pair too
    _ip("link", "del", network.UNREACHABLE_VETH_HOST, check=False)


def closed_tcp_port(address: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (bind, then close without listening)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((address, 0))
        return s.getsockname()[1]


class TcpResponder:
    """Accept-and-close TCP listeners, one per reachable host address (a daemon thread)."""

    def __init__(self):
        self._socks: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, endpoints: list[tuple[str, int]]) -> None:
        for addr, port in endpoints:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((addr, port))
            s.listen(16)
            self._socks.append(s)
        self._thread = threading.Thread(target=self._run, name="simnet-tcp", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        for s in self._socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select(timeout=0.2):
                    try:
                        # The selector holds only the listening sockets registered above.
                        c, _ = cast(socket.socket, key.fileobj).accept()
                    except OSError:
                        continue
                    c.close()
        finally:
            sel.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for s in self._socks:
            s.close()
        self._socks.clear()


def host_entries(tcp_port: int, use_netns: bool = True) -> list[dict]:
    """Manifest entries for the hosts. The unreachable one is "netns-veth" when this process
    runs inside a namespace made by create_netns (and use_netns), else "closed-port"."""
    out = []
    netns_ok = use_netns and unreachable_ready()
    for h in network.HOSTS:
        if h.reachable:
            out.append(dict(name=h.name, address=h.address, reachable=True, tcp_port=tcp_port,
                            method="loopback", description=h.description))
        elif netns_ok:
            out.append(dict(name=h.name, address=network.UNREACHABLE_ADDRESS, reachable=False,
                            tcp_port=tcp_port, method="netns-veth", description=h.description))
        else:
            out.append(dict(name=h.name, address="127.0.0.1", reachable=False,
                            tcp_port=closed_tcp_port(), method="closed-port",
                            description=h.description + " (fallback: TCP check only)"))
    return out
