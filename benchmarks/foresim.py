"""A FORE ASX-200BX with many VCs, served by snmpsim (simnet's recording code, our own topology).

simnet's asx200bx has 18 PVCs (100 polled counters). A switch of the seed's era could carry a few
thousand VCs (maxChannels 4096), so the benchmark adds `n_vcs` PVCs between the up ports of
simnet's asx200bx (VPI 1..4, VCI from 32), each with its own rate and initial count, and renders
them with simnet.recording (nothing under simnet/ is changed). The agent is simnet's responder
(snmpsim 1.2.2) on 127.0.0.1, community `asxbig`.
"""
from __future__ import annotations

import grp
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from simnet import recording as rec
from simnet.model import ForeSwitch, ForeVC
from simnet.network import build_network
from simnet.probe import snmp_probe
from simnet.records import oid_s
from simnet.runner import find_free_base_port

ROOT = Path(__file__).resolve().parent.parent
COMMUNITY = "asxbig"


def big_fore(n_vcs: int) -> ForeSwitch:
    base = build_network().switch("asx200bx")
    up = [p.name for p in base.ports if p.oper_up and p.name != "CTL"]
    vcs = list(base.vcs)
    for k in range(n_vcs):
        a, b = up[k % len(up)], up[(k * 7 + 3) % len(up)]
        if a == b:
            b = up[(k + 1) % len(up)]
        vpi = 1 + (k // len(up)) % 4
        vci = 32 + k // (len(up) * 4)
        rate = 5 + (k * 37) % 400                      # cells/s, different per VC
        vcs.append(ForeVC(a, vpi, vci, b, vpi, vci, rate, initial=(k * 7919) % 50_000,
                            name=f"bench-{k}", reject_rate=(1 if k % 50 == 0 else 0)))
    # Port totals must cover the VCs' initial counts (simnet's consistency checks).
    extra_in: dict[str, int] = {}
    extra_out: dict[str, int] = {}
    for v in vcs[len(base.vcs):]:
        extra_in[v.in_port] = extra_in.get(v.in_port, 0) + v.initial
        extra_out[v.out_port] = extra_out.get(v.out_port, 0) + v.initial
    ports = tuple(replace(p, rx_total_initial=p.rx_total_initial + extra_in.get(p.name, 0),
                          tx_total_initial=p.tx_total_initial + extra_out.get(p.name, 0)) for p in base.ports)
    return replace(base, name=COMMUNITY, ports=ports, vcs=tuple(vcs))


class ForeAgent:
    """snmpsim serving big_fore(n_vcs) on 127.0.0.1:<free port>."""

    def __init__(self, n_vcs: int, switch: ForeSwitch | None = None, community: str = COMMUNITY):
        self.sw = switch or big_fore(n_vcs)
        self.community = community
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.dir = ""
        self.records: list = []
        self.start_time = 0

    def __enter__(self) -> ForeAgent:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, timeout: float = 60.0) -> None:
        self.dir = tempfile.mkdtemp(prefix="cellar-bench-fore-", dir="/tmp")
        os.chmod(self.dir, 0o755)
        data, cache = Path(self.dir, "data"), Path(self.dir, "cache")
        data.mkdir()
        cache.mkdir()
        os.chmod(data, 0o755)
        self.start_time = int(time.time())
        self.records = rec.switch_records(self.sw)
        path = data / f"{self.community}.snmprec"
        path.write_text(rec.render(self.records, self.start_time))
        os.chmod(path, 0o644)
        root = os.geteuid() == 0
        if root:
            os.chown(cache, pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid)
        self.port = find_free_base_port(1)
        cmd = [sys.executable, "-m", "simnet.responder", f"--data-dir={data}", f"--cache-dir={cache}",
               f"--agent-udpv4-endpoint=127.0.0.1:{self.port}", "--log-level=error"]
        if root:
            cmd += ["--process-user=nobody", "--process-group=nogroup"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(Path(self.dir, "agent.log"), "w"), start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"snmpsim exited: {Path(self.dir, 'agent.log').read_text()[-1000:]}")
            if snmp_probe("127.0.0.1", self.port, self.community, timeout=0.5):
                return
            time.sleep(0.2)
        raise RuntimeError(f"snmpsim did not answer within {timeout} s")

    def counters(self, profile_oids: set[str]) -> int:
        return sum(1 for r in self.records if oid_s(r.column) in profile_oids)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""
