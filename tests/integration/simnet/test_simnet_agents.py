"""Integration tests: real snmpsim agents on loopback, queried with net-snmp's CLI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from simnet import manifest as mf
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import ROOT, snmp

# No skipping: `make test` installs net-snmp; without it these tests fail, they do not pass.

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"


def _sw(net_or_manifest, name):
    man = net_or_manifest.manifest if hasattr(net_or_manifest, "manifest") else net_or_manifest
    return mf.switch(man, name)


def _within(series, start, value, t_before, t_after, slack=1):
    """value lies between the formula's values at the two bracketing times."""
    lo = mf.expected_value(series, start, t_before)
    hi = mf.expected_value(series, start, t_after)
    if lo <= hi:
        return lo - slack <= value <= hi + slack
    return value >= lo - slack or value <= hi + slack      # wrapped inside the bracket


def _by_object(walk: dict, column_oid: str) -> dict:
    pre = column_oid + "."
    return {oid[len(pre):]: v for oid, v in walk.items() if oid.startswith(pre)}


# --------------------------------------------------------------------------- walks

def test_manifest_file_matches_api(simnet_net):
    on_disk = mf.load(simnet_net.state_dir)
    assert on_disk["schema"] == mf.SCHEMA
    assert [s["name"] for s in on_disk["switches"]] == ["asx200bx", "asx200bx-b", "atm2sw", "ipsw48", "ipsw8"]
    assert {s["profile"] for s in on_disk["switches"]} == {"fore-asx", "atm2", "if-mib"}
    for s in on_disk["switches"]:
        assert s["running"] and s["pid"] and s["address"] == "127.0.0.1"
        assert s["community"] == s["name"]
        assert (simnet_net.state_dir / s["recording"]).is_file()
    assert set(on_disk["near_wrap"]) == {"counter32", "counter64"}


def test_fore_walk_types_and_values(simnet_net):
    sw = _sw(simnet_net, "asx200bx")
    t0, t1, walk = snmp("snmpbulkwalk", sw, "1.3.6.1")
    assert walk["1.3.6.1.2.1.1.2.0"] == ("OID", ".1.3.6.1.4.1.326.2.2.5")
    assert walk[SYS_UPTIME][0] == "Timeticks"
    base = "1.3.6.1.4.1.326.2.2.2.1"
    assert walk[base + ".1.2.0"] == ("INTEGER", 0x030001)            # softwareVersion 3.0.1
    assert walk[base + ".1.9.0"][1].find("3.0.1") >= 0
    assert walk[base + ".2.1.0"] == ("INTEGER", 17)                  # numberOfPorts
    assert walk[base + ".1.6.0"][0] == "Timeticks"                   # switch uptime
    names = _by_object(walk, base + ".2.2.1.62")
    assert len(names) == 17 and names["0"] == ("STRING", "merlin-atm.edc")
    assert names["56"] == ("STRING", "punx-atm.tioc.m") and names["16"] == ("STRING", "")
    rx = _by_object(walk, base + ".2.2.1.12")
    tx = _by_object(walk, base + ".2.2.1.18")
    assert len(rx) == len(tx) == 17 and all(v[0] == "Counter32" for v in (*rx.values(), *tx.values()))
    oper = _by_object(walk, base + ".2.2.1.3")
    assert sum(1 for v in oper.values() if v[1] == 1) == 10
    hw = _by_object(walk, "1.3.6.1.4.1.326.2.2.1.1.2.3.1.13")
    assert hw["0.0.0"] == ("STRING", "1A1") and hw["0.7.0"] == ("STRING", "1CTL")
    assert walk["1.3.6.1.4.1.326.2.2.1.1.2.3.1.9.0.0.0"][0] == "Counter32"   # hwPortOverflows
    # table 2d PVC and its route; figure 15/16 VC 0/201 on A1 (port 0) and B1 (port 8)
    assert walk[base + ".4.1.1.8.3.0.210"][0] == "Counter32"         # chanCells A4 0/210
    assert walk[base + ".4.1.1.9.3.0.210"][0] == "Timeticks"
    assert walk[base + ".4.2.1.9.3.0.210.11.0.210"] == ("STRING", "mauchly->houdini")
    assert walk[base + ".4.2.1.9.11.0.210.3.0.210"] == ("STRING", "houdini->mauchly")
    assert base + ".4.1.1.8.0.0.201" in walk and base + ".4.1.1.8.8.0.201" in walk
    assert walk[base + ".3.2.1.8.24.5.1.5"][0] == "Counter32"         # pathrCells D1/5 -> A2/5
    assert walk[base + ".3.1.1.10.24.0"][0] == "Counter32"            # pathCells D1 VPI 0
    # every counter of the walk matches the manifest formula at walk time
    start = sw["start_time"]
    checked = 0
    for s in sw["series"]:
        typ, val = walk[s["oid"]]
        assert typ == {"Counter32": "Counter32", "Counter64": "Counter64",
                       "TimeTicks": "Timeticks"}[s["syntax"]], s
        assert _within(s, start, val, t0, t1), (s, val)
        checked += 1
    assert checked == len(sw["series"]) > 150


def test_atm2_walk(simnet_net):
    sw = _sw(simnet_net, "atm2sw")
    _, _, walk = snmp("snmpbulkwalk", sw, "1.3.6.1.2.1")
    types = _by_object(walk, "1.3.6.1.2.1.2.2.1.3")
    assert len(types) == 6 and all(v == ("INTEGER", 37) for v in types.values())
    assert walk["1.3.6.1.2.1.37.1.2.1.11.1"] == ("IpAddress", "127.0.1.1")
    assert walk["1.3.6.1.2.1.37.1.2.1.12.1"] == ("STRING", "1D1")
    assert walk["1.3.6.1.2.1.37.1.14.1.11.1.1.1.0.100"][0] == "Counter32"   # atmVclStatTotalCellIns
    assert walk["1.3.6.1.2.1.37.1.14.1.11.1.5.2.0.100"][0] == "Counter32"   # ...TotalCellOuts
    assert walk["1.3.6.1.2.1.37.1.14.1.9.1.1.1.5"][0] == "Counter32"        # atmVplStat
    assert walk["1.3.6.1.2.1.37.1.14.1.12.1.3.2.0.32"][0] == "Counter32"    # AAL5 InOctets
    assert walk["1.3.6.1.2.1.37.1.11.1.9.1.1.0.100.2.0.100"] == ("INTEGER", 1)  # VC xc L2H oper
    assert walk["1.3.6.1.2.1.37.1.9.1.6.1.1.5.3.5"] == ("INTEGER", 1)      # VP xc admin
    assert walk["1.3.6.1.2.1.31.1.1.1.6.1"][0] == "Counter64"
    assert walk["1.3.6.1.2.1.2.2.1.10.1"][0] == "Counter32"


def test_ipsw48_walk(simnet_net):
    sw = _sw(simnet_net, "ipsw48")
    _, _, walk = snmp("snmpbulkwalk", sw, "1.3.6.1.2.1.31.1.1.1")
    hc_in = _by_object(walk, "1.3.6.1.2.1.31.1.1.1.6")
    assert len(hc_in) == 48 and all(v[0] == "Counter64" for v in hc_in.values())
    assert _by_object(walk, "1.3.6.1.2.1.31.1.1.1.15")["47"] == ("Gauge32", 10000)
    assert _by_object(walk, "1.3.6.1.2.1.31.1.1.1.1")["1"] == ("STRING", "Gi1/0/1")
    assert walk["1.3.6.1.2.1.31.1.1.1.19.1"][0] == "Timeticks"
    _, _, t = snmp("snmpbulkwalk", sw, "1.3.6.1.2.1.2.2.1.8")
    assert sum(1 for v in t.values() if v[1] == 2) == 4              # 3 down + 1 admin down


def test_second_fore_switch_walk(simnet_net):
    """Plain GETNEXT walk (snmpwalk) of the small FORE switch."""
    sw = _sw(simnet_net, "asx200bx-b")
    _, _, walk = snmp("snmpwalk", sw, "1.3.6.1.4.1.326.2.2.2.1.2")
    base = "1.3.6.1.4.1.326.2.2.2.1.2"
    assert walk[base + ".1.0"] == ("INTEGER", 4)
    assert _by_object(walk, base + ".2.1.62") == {
        "0": ("STRING", "mauchly-atm.ukans"), "1": ("STRING", "eckert-atm.ukans"),
        "2": ("STRING", "hopper-atm.ukans"), "3": ("STRING", "asx200bx.tioc")}
    assert _by_object(walk, base + ".2.1.3")["2"] == ("INTEGER", 2)       # 1A3 (hopper) down
    _, _, ch = snmp("snmpwalk", sw, "1.3.6.1.4.1.326.2.2.2.1.4.2.1.9")
    assert ch["1.3.6.1.4.1.326.2.2.2.1.4.2.1.9.0.0.210.3.0.210"] == ("STRING", "mauchly->houdini")


def test_mgmt_address_answers(simnet_net):
    sw = _sw(simnet_net, "asx200bx-b")
    _, _, r = snmp("snmpget", sw, "1.3.6.1.2.1.1.5.0", address=sw["mgmt_address"])
    assert r["1.3.6.1.2.1.1.5.0"] == ("STRING", "asx200bx-b.ukans.aai.net")


# --------------------------------------------------------------------------- rates

def test_counters_grow_at_manifest_rate(simnet_net):
    """Two gets ~2 s apart: delta == rate * elapsed, bracketed by the request timings."""
    picks = [("asx200bx", "portReceivedCells", {"port": "A1"}),
             ("asx200bx", "chanCells", {"port": "A4", "vci": 210}),
             ("asx200bx-b", "portTransmittedCells", {"port": "A4"}),
             ("atm2sw", "ifInOctets", {"ifindex": 1}),
             ("atm2sw", "atmVclStatTotalCellIns", {"ifindex": 2, "vci": 100}),
             ("ipsw48", "ifHCInOctets", {"ifindex": 45}),
             ("ipsw48", "ifInUcastPkts", {"ifindex": 5})]
    series = []
    for swname, obj, labels in picks:
        sw = _sw(simnet_net, swname)
        s = mf.find_series(sw, obj, **labels)
        assert s["rate"] > 0
        series.append((sw, s))
    first = [snmp("snmpget", sw, s["oid"]) for sw, s in series]
    time.sleep(2.0)
    second = [snmp("snmpget", sw, s["oid"]) for sw, s in series]
    for (sw, s), (a0, a1, r1), (b0, b1, r2) in zip(series, first, second):
        assert b0 - a1 > 1.5
        v1, v2 = r1[s["oid"]][1], r2[s["oid"]][1]
        delta = mf.counter_delta(v1, v2, s["width"])
        tol = 2 * mf.float_error_bound(s, sw["start_time"], b1)
        assert s["rate"] * (b0 - a1) - tol <= delta <= s["rate"] * (b1 - a0) + tol, \
            (sw["name"], s["object"], s["labels"], v1, v2, delta, s["rate"])
        assert _within(s, sw["start_time"], v2, b0, b1)


def test_rates_differ_between_series(simnet_net):
    sw = _sw(simnet_net, "asx200bx")
    rates = [s["rate"] for s in sw["series"] if s["object"] == "chanCells" and s["rate"]]
    assert len(rates) == len(set(rates)) >= 10


# --------------------------------------------------------------------------- wraps

def test_near_wrap_counters_wrap(state_dir_factory):
    d = state_dir_factory("wrap")
    with SimNetwork(d, find_free_base_port(5), wrap_in=6.0, wrap64_in=7.0, hosts=False,
                    switches=["asx200bx", "ipsw48"]) as net:
        man = net.manifest
        for key in ("counter32", "counter64"):
            nw = man["near_wrap"][key]
            sw = _sw(man, nw["switch"])
            s = mf.series_by_oid(sw)[nw["oid"]]
            width = s["width"]
            a0, a1, r = snmp("snmpget", sw, s["oid"])
            first = r[s["oid"]][1]
            if a1 < nw["wraps_at"]:
                assert first > 2 ** width - s["rate"] * (nw["wraps_at"] - a0) - 4096
            wait = nw["wraps_at"] + 1.0 - time.time()
            assert wait < 30
            if wait > 0:
                time.sleep(wait)
            b0, b1, r = snmp("snmpget", sw, s["oid"])
            second = r[s["oid"]][1]
            assert second < s["rate"] * (b1 - nw["wraps_at"]) + 4096       # wrapped: small
            tol = 2 * mf.float_error_bound(s, sw["start_time"], b1)
            assert _within(s, sw["start_time"], second, b0, b1)
            delta = mf.counter_delta(first, second, width)
            assert s["rate"] * (b0 - a1) - tol <= delta <= s["rate"] * (b1 - a0) + tol


# --------------------------------------------------------------------------- lifecycle

def test_reboot_kill_and_start(state_dir_factory):
    d = state_dir_factory("life")
    with SimNetwork(d, find_free_base_port(5), hosts=False,
                    switches=["asx200bx-b", "ipsw48"]) as net:
        sw = _sw(net, "asx200bx-b")
        rx = mf.find_series(sw, "portReceivedCells", port="A1")
        _, _, before = snmp("snmpget", sw, SYS_UPTIME, rx["oid"])
        assert before[SYS_UPTIME][1] > 3 * 86400 * 100
        old_start = sw["start_time"]
        time.sleep(1.0)
        net.restart_agent("asx200bx-b")
        sw2 = _sw(net, "asx200bx-b")
        assert sw2["boot_count"] == 1 and sw2["start_time"] >= old_start
        assert mf.load(d)["switches"][0]["boot_count"] == 1
        t0, t1, after = snmp("snmpget", sw2, SYS_UPTIME, rx["oid"])
        up = after[SYS_UPTIME][1]
        assert up < before[SYS_UPTIME][1] and up <= (t1 - sw2["start_time"]) * 100 + 1
        rx2 = mf.find_series(sw2, "portReceivedCells", port="A1")
        assert rx2["initial"] == 0
        assert after[rx["oid"]][1] <= rx2["rate"] * (t1 - sw2["start_time"]) + 1
        assert _within(rx2, sw2["start_time"], after[rx["oid"]][1], t0, t1)

        # dead agent: no answer at all, then back without a reboot
        ip = _sw(net, "ipsw48")
        net.kill_agent("ipsw48")
        assert not _sw(net, "ipsw48")["running"]
        with pytest.raises(RuntimeError, match="Timeout|No Response"):
            snmp("snmpget", ip, SYS_UPTIME, timeout=0.5, retries=0)
        net.start_agent("ipsw48")
        ip2 = _sw(net, "ipsw48")
        assert ip2["running"] and ip2["boot_count"] == 0 and ip2["start_time"] == ip["start_time"]
        s = mf.find_series(ip2, "ifHCInOctets", ifindex=47)
        t0, t1, r = snmp("snmpget", ip2, s["oid"])
        assert _within(s, ip2["start_time"], r[s["oid"]][1], t0, t1)
    assert not any(a.running for a in net.agents.values())


# --------------------------------------------------------------------------- hosts

def test_hosts_reachability(simnet_net):
    hosts = simnet_net.manifest["hosts"]
    assert {h["name"] for h in hosts} >= {"mauchly-atm.ukans", "houdini.tioc", "eckert-atm.ukans",
                                          "hopper-atm.ukans"}
    unreachable = [h for h in hosts if not h["reachable"]]
    assert [h["name"] for h in unreachable] == ["hopper-atm.ukans"]
    for h in hosts:
        ok = True
        try:
            with socket.create_connection((h["address"], h["tcp_port"]), timeout=5):
                pass
        except OSError:
            ok = False
        assert ok == h["reachable"], h
    if shutil.which("ping"):
        for h in hosts:
            if h["method"] == "closed-port":
                continue
            r = subprocess.run(["ping", "-c", "1", "-W", "1", h["address"]],
                               capture_output=True, timeout=10)
            assert (r.returncode == 0) == h["reachable"], h


# --------------------------------------------------------------------------- CLI

def test_cli_up_reboot_down(state_dir_factory):
    d = state_dir_factory("cli")
    base = find_free_base_port(5)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "simnet", "up", "--state-dir", str(d),
                             "--base-port", str(base), "--no-netns"], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        man = None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"simnet up exited: {proc.stdout.read()}")
            try:
                man = mf.load(d)
                if man.get("supervisor_pid") == proc.pid and all(s["running"] for s in man["switches"]):
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.3)
        else:
            pytest.fail("simnet up did not become ready")
        sw = mf.switch(man, "atm2sw")
        _, _, r = snmp("snmpget", sw, SYS_UPTIME)
        assert r[SYS_UPTIME][1] > 86400 * 100
        out = subprocess.run([sys.executable, "-m", "simnet", "manifest", "--state-dir", str(d)],
                             cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=30)
        assert json.loads(out.stdout)["base_port"] == base
        rc = subprocess.run([sys.executable, "-m", "simnet", "reboot", "atm2sw", "--state-dir", str(d)],
                            cwd=str(ROOT), env=env, timeout=60).returncode
        assert rc == 0
        _, _, r = snmp("snmpget", mf.switch(mf.load(d), "atm2sw"), SYS_UPTIME)
        assert r[SYS_UPTIME][1] < 60 * 100
        pids = [s["pid"] for s in mf.load(d)["switches"]]
        rc = subprocess.run([sys.executable, "-m", "simnet", "down", "--state-dir", str(d)],
                            cwd=str(ROOT), env=env, timeout=60).returncode
        assert rc == 0
        proc.wait(timeout=30)
        assert proc.returncode == 0
        time.sleep(0.5)
        for pid in pids:
            assert not os.path.exists(f"/proc/{pid}") or b"simnet" not in \
                open(f"/proc/{pid}/cmdline", "rb").read()
        assert mf.load(d)["supervisor_pid"] is None
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
