"""Hosts for reachability checks.

Reachable hosts live on 127.0.0.x loopback addresses: they answer ICMP echo (the kernel
does) and a TCP listener accepts (and immediately closes) connections on `tcp_port`.

The unreachable host (hopper-atm.ukans):
  * as root (and with `ip` available): namespace `cellar-simnet` holding one end of a veth
    pair that is left DOWN; the root-namespace end `csim-h0` is up with 198.18.0.1/30
    (RFC 2544 benchmarking range).  198.18.0.2 is then routed to csim-h0 (no traffic
    can leave through eth0), ARP gets no answer: ping gets no reply and TCP connect fails
    with EHOSTUNREACH after ~3 s.  Nothing outside the namespace/veth pair is changed.
    The namespace is created once and left in place (other simnet instances may use it);
    `python -m simnet netns-cleanup` removes it (only while no simnet is running: without
    the veth route the address would follow the default route).
  * otherwise: fallback "closed-port" - address 127.0.0.1 with `tcp_port` a port nothing
    listens on (connection refused).  ICMP to it would succeed, so only a TCP check sees
    this host as down.
"""

from __future__ import annotations

import os
import selectors
import shutil
import socket
import subprocess
import threading

from . import network


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10, check=check)


def netns_available() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


def netns_present() -> bool:
    r = _ip("-br", "addr", "show", "dev", network.UNREACHABLE_VETH_HOST, check=False)
    return r.returncode == 0 and network.UNREACHABLE_LOCAL in r.stdout


def ensure_unreachable_netns() -> bool:
    """Create the namespace + veth pair if missing.  Returns True when 198.18.0.2 is
    (now) an unreachable, locally routed address."""
    if not netns_available():
        return False
    if netns_present():
        return True
    try:
        names = _ip("netns", "list", check=False).stdout.split()
        if network.UNREACHABLE_NETNS not in names:
            _ip("netns", "add", network.UNREACHABLE_NETNS)
        if _ip("link", "show", network.UNREACHABLE_VETH_HOST, check=False).returncode != 0:
            _ip("link", "add", network.UNREACHABLE_VETH_HOST, "type", "veth", "peer", "name",
                network.UNREACHABLE_VETH_PEER, "netns", network.UNREACHABLE_NETNS)
        _ip("addr", "replace", f"{network.UNREACHABLE_LOCAL}/30", "dev", network.UNREACHABLE_VETH_HOST)
        _ip("link", "set", network.UNREACHABLE_VETH_HOST, "up")
        # the peer stays down: make sure of it
        _ip("-n", network.UNREACHABLE_NETNS, "link", "set", network.UNREACHABLE_VETH_PEER, "down", check=False)
    except (subprocess.SubprocessError, OSError):
        return False
    return netns_present()


def remove_unreachable_netns() -> None:
    if not netns_available():
        return
    _ip("netns", "del", network.UNREACHABLE_NETNS, check=False)   # removes the veth pair too
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
                        c, _ = key.fileobj.accept()
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
    """Manifest entries for the hosts; sets up the unreachable address."""
    out = []
    netns_ok = ensure_unreachable_netns() if use_netns else False
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
