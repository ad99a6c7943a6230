"""The simulated network of `make run` leaves the machine's own network namespace as it was.

What `make run` does for simnet (services/), for real: `python -m simnet netns-up` makes the
checkout's namespace, `ip netns exec NS python -m simnet up` runs the agents and hosts inside;
Cellar's host checks from inside find the reachable hosts up and hopper-atm.ukans down by ICMP
and TCP; `python -m simnet netns-down` removes the namespace (`make stop`: `ip netns del`). The root
namespace's addresses, links and routes are the same before, during and after.
"""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from simnet import hosts as hostmod
from simnet import manifest as mf
from simnet.network import UNREACHABLE_ADDRESS
from tests.support.simnet_lab import ROOT, host_checks_in_netns, root_netns_snapshot

pytestmark = [pytest.mark.netns, pytest.mark.timeout(180)]


def _simnet(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "simnet", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=30, check=True, stdin=subprocess.DEVNULL).stdout.strip()


def _netns_list() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout


def _wait_for_manifest(state, proc: subprocess.Popen, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"simnet up exited with {proc.returncode}")
        try:
            man = mf.load(state)
            if man.get("supervisor_pid") == proc.pid and man["hosts"] and all(s["running"] for s in man["switches"]):
                return man
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.3)
    pytest.fail(f"simnet up was not ready within {timeout} s")


def test_make_runs_simnet_changes_nothing_in_the_root_namespace(state_dir_factory):
    assert hostmod.netns_available(), "needs root and ip netns (make test runs as root)"
    before = root_netns_snapshot()
    state = state_dir_factory("netns")
    name = _simnet("netns-up", "--state-dir", str(state))
    assert name == hostmod.netns_name(state) and name in _netns_list()
    proc = subprocess.Popen(["ip", "netns", "exec", name, sys.executable, "-m", "simnet", "up",
                             "--state-dir", str(state)], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        man = _wait_for_manifest(state, proc)
        [hopper] = [h for h in man["hosts"] if not h["reachable"]]
        assert (hopper["address"], hopper["method"]) == (UNREACHABLE_ADDRESS, "netns-veth")
        checks = host_checks_in_netns(name, [(h["address"], h["tcp_port"]) for h in man["hosts"]])
        assert [(c["icmp"], c["tcp"]) for c in checks] == [(h["reachable"],) * 2 for h in man["hosts"]]
        assert sum(c["icmp"] for c in checks) == len(man["hosts"]) - 1
        assert root_netns_snapshot() == before
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        _simnet("netns-down", "--state-dir", str(state))
    assert name not in _netns_list()
    assert root_netns_snapshot() == before


def test_outside_its_namespace_simnet_falls_back_to_a_closed_port():
    # The root namespace (a test, or `make run` without root): nothing is made, TCP is refused.
    assert hostmod.current_netns() is None and not hostmod.unreachable_ready()
    [hopper] = [h for h in hostmod.host_entries(16100) if not h["reachable"]]
    assert (hopper["address"], hopper["method"]) == ("127.0.0.1", "closed-port")
