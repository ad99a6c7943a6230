"""Throw-away network namespaces, veth pairs, and processes running inside them (real agents for
the tests and the benchmarks).

Everything a ``NetnsLab`` creates is recorded and removed by ``close()`` (also on ``__exit__``
and on failure half way through setup), in reverse order: processes it started (by their
own pid), root-side links, namespaces. Names carry the test process's pid, so two runs never
collide and leftovers of a crashed run are recognisable (``cellar-t-<pid>-...``).

    with NetnsLab() as lab:
        a, b = lab.add_ns("a"), lab.add_ns("b")
        lab.add_veth(a, "tob", b, "toa")
        a.run(["ip", "addr", "add", "10.213.0.1/30", "dev", "tob"])
        server = lab.spawn(b, ["iperf3", "-s", "-1"])

Needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN) and iproute2; ``unavailable_reason()`` says why
not, for a test to fail with (``make test`` runs as root: a skip would hide a broken CI).
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

IP = shutil.which("ip") or "/usr/sbin/ip"
PREFIX = "cellar-t-"
_STALE_RE = re.compile(rf"^{re.escape(PREFIX)}(\d+)-")


class NetnsError(RuntimeError):
    pass


def run(argv: list[str], timeout: float = 20.0, check: bool = True, **kw) -> subprocess.CompletedProcess:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    except subprocess.TimeoutExpired as exc:
        raise NetnsError(f"timed out after {timeout} s: {' '.join(argv)}") from exc
    if check and out.returncode != 0:
        raise NetnsError(f"{' '.join(argv)} failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")
    return out


def unavailable_reason() -> str | None:
    """None when namespaces can be made here, else a one-line reason."""
    if os.geteuid() != 0:
        return f"network-namespace tests need root (running as uid {os.geteuid()}); run `make test` as root"
    if not os.path.exists(IP):
        return "iproute2 `ip` not found (apt-get install iproute2)"
    probe = f"{PREFIX}{os.getpid()}-probe"
    out = run([IP, "netns", "add", probe], check=False)
    if out.returncode != 0:
        return f"`ip netns add` does not work here: {out.stderr.strip()}"
    run([IP, "netns", "del", probe], check=False)
    return None


def remove_stale_namespaces() -> list[str]:
    """Delete ``cellar-t-<pid>-*`` namespaces left by test processes that no longer exist."""
    out = run([IP, "-j", "netns", "list"], check=False)
    removed: list[str] = []
    try:
        entries = json.loads(out.stdout or "[]")
    except ValueError:
        return removed
    for entry in entries:
        name = entry.get("name", "")
        m = _STALE_RE.match(name)
        if not m or int(m.group(1)) == os.getpid() or os.path.exists(f"/proc/{m.group(1)}"):
            continue
        if run([IP, "netns", "del", name], check=False).returncode == 0:
            removed.append(name)
    return removed


def free_subnet(candidates: list[str]) -> ipaddress.IPv4Network:
    """The first candidate network that overlaps no address and no route of the root namespace
    (the default route aside): the test may use it on a root-side veth without shadowing anything."""
    addrs = json.loads(run([IP, "-j", "-4", "addr", "show"]).stdout or "[]")
    routes = json.loads(run([IP, "-j", "-4", "route", "show", "table", "all"]).stdout or "[]")
    used: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for link in addrs:
        for a in link.get("addr_info", []):
            used.append(ipaddress.ip_network(f"{a['local']}/{a.get('prefixlen', 32)}", strict=False))
    for r in routes:
        dst = r.get("dst", "")
        if dst in ("default", "") or r.get("type") in ("broadcast",):
            continue
        try:
            used.append(ipaddress.ip_network(dst if "/" in dst else f"{dst}/32", strict=False))
        except ValueError:
            continue
    for cand in candidates:
        net = ipaddress.IPv4Network(cand)
        if not any(net.overlaps(u) for u in used):
            return net
    raise NetnsError(f"no free subnet among {candidates[0]} ... {candidates[-1]}")


@dataclass
class Netns:
    name: str

    def argv(self, cmd: list[str]) -> list[str]:
        return [IP, "netns", "exec", self.name, *cmd]

    def run(self, cmd: list[str], timeout: float = 20.0, check: bool = True, **kw) -> subprocess.CompletedProcess:
        """Run a command inside the namespace and wait for it (bounded)."""
        return run(self.argv(cmd), timeout=timeout, check=check, **kw)

    def ip(self, *args: str) -> subprocess.CompletedProcess:
        return run([IP, "-n", self.name, *args])

    def dev_counters(self, dev: str) -> dict[str, int]:
        """The kernel's interface counters as /proc/net/dev shows them inside the namespace."""
        text = self.run(["cat", "/proc/net/dev"]).stdout
        for line in text.splitlines():
            name, _, rest = line.partition(":")
            if name.strip() == dev:
                f = [int(x) for x in rest.split()]
                return {"rx_bytes": f[0], "rx_packets": f[1], "rx_errs": f[2], "rx_drop": f[3],
                        "tx_bytes": f[8], "tx_packets": f[9], "tx_errs": f[10], "tx_drop": f[11]}
        raise NetnsError(f"{dev} not in /proc/net/dev of {self.name}")

    def disable_ipv6(self) -> None:
        """No IPv6 autoconfiguration chatter (RS, MLD, DAD) on interfaces created afterwards."""
        self.run(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"])


class NetnsLab:
    def __init__(self, tag: str | None = None):
        self.tag = tag or f"{PREFIX}{os.getpid()}"
        self.namespaces: list[Netns] = []
        self.root_links: list[str] = []
        self.procs: list[subprocess.Popen] = []

    # -- building ------------------------------------------------------------------------
    def add_ns(self, suffix: str) -> Netns:
        ns = Netns(f"{self.tag}-{suffix}")
        run([IP, "netns", "add", ns.name])
        self.namespaces.append(ns)
        ns.ip("link", "set", "lo", "up")
        return ns

    def add_veth(self, a: Netns | None, a_name: str, b: Netns | None, b_name: str,
                 link_opts: tuple[str, ...] = ()) -> None:
        """A veth pair a_name (in a, None = root namespace) <-> b_name (in b).

        link_opts (e.g. ("mtu", "1500", "gso_max_segs", "1")) apply to both ends at creation.
        """
        if len(a_name) > 15 or len(b_name) > 15:
            raise NetnsError("interface names are at most 15 characters")
        head = [IP] + (["-n", a.name] if a else [])
        peer = ["peer", "name", b_name, *link_opts] + (["netns", b.name] if b else [])
        run([*head, "link", "add", a_name, *link_opts, "type", "veth", *peer])
        if a is None:
            self.root_links.append(a_name)
        elif b is None:
            self.root_links.append(b_name)

    def spawn(self, ns: Netns, cmd: list[str], **kw) -> subprocess.Popen:
        """Start a long-running process inside ns (`ip netns exec` execs it: same pid)."""
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        proc = subprocess.Popen(ns.argv(cmd), start_new_session=True, **kw)
        self.procs.append(proc)
        return proc

    # -- teardown --------------------------------------------------------------------------
    @staticmethod
    def stop(proc: subprocess.Popen, grace: float = 5.0) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(grace)

    def close(self) -> None:
        errors = []
        for proc in reversed(self.procs):
            try:
                self.stop(proc)
            except Exception as exc:   # keep tearing down the rest
                errors.append(f"pid {proc.pid}: {exc}")
        self.procs.clear()
        for link in reversed(self.root_links):
            # Deleting one end deletes the pair; it may already be gone with its namespace.
            if run([IP, "link", "show", link], check=False).returncode == 0:
                out = run([IP, "link", "del", link], check=False)
                if out.returncode != 0:
                    errors.append(f"ip link del {link}: {out.stderr.strip()}")
        self.root_links.clear()
        for ns in reversed(self.namespaces):
            out = run([IP, "netns", "del", ns.name], check=False)
            if out.returncode != 0 and "No such file" not in out.stderr:
                errors.append(f"ip netns del {ns.name}: {out.stderr.strip()}")
        self.namespaces.clear()
        if errors:
            raise NetnsError("teardown incomplete: " + "; ".join(errors))

    def __enter__(self) -> NetnsLab:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.close()
        except NetnsError as teardown:
            if exc is None:
                raise
            exc.add_note(str(teardown))   # do not hide the test's own failure


def wait_until(predicate, timeout: float, interval: float = 0.1, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() >= deadline:
            raise NetnsError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
