"""Run the simulated network: one snmpsim agent process per switch.

    from simnet.runner import SimNetwork
    with SimNetwork("/tmp/x", base_port=23100, wrap_in=8) as net:
        m = net.manifest                 # same dict as DIR/manifest.json
        net.restart_agent("asx200bx")    # simulated reboot: uptime and counters from 0
        net.kill_agent("ipsw48")         # dead agent (no answer)
        net.start_agent("ipsw48")        # agent back, device state continues (no reboot)

Layout of the state directory:
    data/<switch>/<switch>.snmprec   generated recording (community = <switch>)
    cache/<switch>/                  snmpsim index (owned by nobody when run as root)
    logs/<switch>.log                agent stdout/stderr
    manifest.json                    see simnet.manifest
    simnet.pid, control/             only for the `python -m simnet up` supervisor

Switch i (0-based, network order asx200bx, asx200bx-b, atm2sw, ipsw48, ipsw8) listens on
UDP 127.0.0.1:(base_port + i) and on its management address (127.0.1.x) same port.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from . import hosts as hostmod
from . import manifest as mf
from . import recording as rec
from .atm_model import AtmSwitch
from .model import ForeSwitch, IfSwitch, Link, Network
from .network import DEFAULT_WRAP64_IN, DEFAULT_WRAP_IN, NEAR_WRAP_32, NEAR_WRAP_64, build_network
from .probe import snmp_probe

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ADDRESS = "127.0.0.1"
DEFAULT_BASE_PORT = 16100
DROP_USER, DROP_GROUP = "nobody", "nogroup"


class SimNetError(RuntimeError):
    pass


def udp_port_free(address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind((address, port))
        except OSError:
            return False
    return True


def find_free_base_port(count: int = 5, low: int = 20000, high: int = 60000, tries: int = 200) -> int:
    """A base port such that UDP base..base+count-1 (127.0.0.1 and 127.0.1.x) and TCP base
    look free right now."""
    import random
    rnd = random.Random(os.getpid() ^ time.time_ns())
    for _ in range(tries):
        base = rnd.randrange(low, high - count)
        if all(udp_port_free(ADDRESS, base + i) for i in range(count)) and \
                all(udp_port_free(f"127.0.1.{i + 1}", base + i) for i in range(count)):
            try:
                with socket.socket() as t:
                    t.bind((ADDRESS, base))
            except OSError:
                continue
            return base
    raise SimNetError("no free port range found")


# --------------------------------------------------------------------------- agents

SimSwitch = ForeSwitch | IfSwitch | AtmSwitch


@dataclass
class Agent:
    sw: SimSwitch
    port: int
    start_time: int = 0
    boot_count: int = 0
    proc: subprocess.Popen | None = None
    fresh: bool = False
    records: list = field(default_factory=list)
    log_fh: TextIO | None = None

    @property
    def name(self) -> str:
        return self.sw.name

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def _is_root() -> bool:
    return os.geteuid() == 0


def _check_traversable(path: Path) -> None:
    """As root the agents read the recordings as `nobody`: every ancestor must be o+x."""
    if not _is_root():
        return
    for p in [path, *path.parents]:
        if not (p.stat().st_mode & 0o001):
            raise SimNetError(f"{p} is not traversable by {DROP_USER} (mode "
                              f"{oct(p.stat().st_mode & 0o777)}); use a state dir "
                              f"whose ancestors are world-executable")


class SimNetwork:
    def __init__(self, state_dir, base_port: int = DEFAULT_BASE_PORT, *,
                 wrap_in: float = DEFAULT_WRAP_IN, wrap64_in: float = DEFAULT_WRAP64_IN,
                 hosts: bool = True, use_netns: bool = True, bind_mgmt: bool = True,
                 ready_timeout: float = 30.0, switches: list[str] | None = None,
                 supervisor_pid: int | None = None, network: Network | None = None):
        self.state_dir = Path(state_dir).resolve()
        self.base_port = int(base_port)
        # `network`: another network built by code (simnet.network.build_multiboard_network)
        self.network = network or build_network(wrap_in, wrap64_in)
        self.wrap_in, self.wrap64_in = wrap_in, wrap64_in
        self.hosts_enabled = hosts
        self.use_netns = use_netns
        self.bind_mgmt = bind_mgmt
        self.ready_timeout = ready_timeout
        self.supervisor_pid = supervisor_pid
        self.agents: dict[str, Agent] = {}
        for i, sw in enumerate(self.network.switches):
            if switches is None or sw.name in switches:
                self.agents[sw.name] = Agent(sw, self.base_port + i)
        self._tcp: hostmod.TcpResponder | None = None
        self._hosts: list[dict] = []
        self.started = False

    # ---- context manager

    def __enter__(self) -> SimNetwork:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- paths

    def data_dir(self, name: str) -> Path:
        return self.state_dir / "data" / name

    def recording_path(self, name: str) -> Path:
        return self.data_dir(name) / f"{name}.snmprec"

    def cache_dir(self, name: str) -> Path:
        return self.state_dir / "cache" / name

    def log_path(self, name: str) -> Path:
        return self.state_dir / "logs" / f"{name}.log"

    # ---- recordings

    def write_recording(self, agent: Agent, start_time: int, fresh: bool) -> None:
        agent.start_time = int(start_time)
        agent.fresh = fresh
        agent.records = rec.switch_records(agent.sw, fresh=fresh)
        d = self.data_dir(agent.name)
        d.mkdir(parents=True, exist_ok=True)
        os.chmod(d, 0o755)
        path = self.recording_path(agent.name)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(rec.render(agent.records, agent.start_time))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        cache = self.cache_dir(agent.name)
        shutil.rmtree(cache, ignore_errors=True)   # force snmpsim to re-index
        cache.mkdir(parents=True)
        if _is_root():
            os.chown(cache, pwd.getpwnam(DROP_USER).pw_uid, grp.getgrnam(DROP_GROUP).gr_gid)
        os.chmod(cache, 0o755)

    def prepare_dirs(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.state_dir, 0o755)
        for sub in ("data", "cache", "logs"):
            (self.state_dir / sub).mkdir(exist_ok=True)
            os.chmod(self.state_dir / sub, 0o755)
        _check_traversable(self.state_dir / "data")

    # ---- processes

    def _command(self, agent: Agent) -> list[str]:
        cmd = [sys.executable, "-m", "simnet.responder",
               f"--data-dir={self.data_dir(agent.name)}",
               f"--cache-dir={self.cache_dir(agent.name)}",
               f"--agent-udpv4-endpoint={ADDRESS}:{agent.port}",
               "--log-level=error"]
        if self.bind_mgmt:
            cmd.append(f"--agent-udpv4-endpoint={agent.sw.mgmt_address}:{agent.port}")
        if _is_root():
            cmd += [f"--process-user={DROP_USER}", f"--process-group={DROP_GROUP}"]
        return cmd

    def _spawn(self, agent: Agent) -> None:
        if agent.running:
            raise SimNetError(f"{agent.name} already running")
        for addr in [ADDRESS] + ([agent.sw.mgmt_address] if self.bind_mgmt else []):
            if not udp_port_free(addr, agent.port):
                raise SimNetError(f"UDP {addr}:{agent.port} is in use (agent {agent.name})")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(PROJECT_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        if agent.log_fh is None or agent.log_fh.closed:
            agent.log_fh = open(self.log_path(agent.name), "a", buffering=1)
        agent.log_fh.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} start {agent.name} "
                           f"port {agent.port} start_time {agent.start_time} boot {agent.boot_count}\n")
        agent.proc = subprocess.Popen(self._command(agent), cwd=str(PROJECT_ROOT), env=env,
                                      stdin=subprocess.DEVNULL, stdout=agent.log_fh,
                                      stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_ready(self, agents: list[Agent]) -> None:
        deadline = time.monotonic() + self.ready_timeout
        pending = list(agents)
        while pending:
            for a in list(pending):
                if a.proc is None:
                    raise SimNetError(f"agent {a.name} was never started")
                if a.proc.poll() is not None:
                    raise SimNetError(f"agent {a.name} exited with {a.proc.returncode}; "
                                      f"see {self.log_path(a.name)}:\n{self._log_tail(a.name)}")
                if snmp_probe(ADDRESS, a.port, a.name, timeout=0.3):
                    pending.remove(a)
            if pending and time.monotonic() > deadline:
                names = ", ".join(a.name for a in pending)
                for a in pending:
                    self._terminate(a)
                raise SimNetError(f"agents not answering after {self.ready_timeout}s: {names}")
            if pending:
                time.sleep(0.2)

    def _log_tail(self, name: str, n: int = 20) -> str:
        try:
            return "".join(self.log_path(name).read_text(errors="replace").splitlines(True)[-n:])
        except OSError:
            return ""

    @staticmethod
    def _terminate(agent: Agent, timeout: float = 5.0, sig=signal.SIGTERM) -> None:
        p = agent.proc
        if p is None:
            return
        if p.poll() is None:
            try:
                p.send_signal(sig)
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=timeout)
            except ProcessLookupError:
                pass
        agent.proc = p  # keep for returncode/pid history

    # ---- public API

    def start(self) -> dict:
        if self.started:
            return self.manifest
        self.prepare_dirs()
        t0 = int(time.time())
        for a in self.agents.values():
            self.write_recording(a, t0, fresh=False)
        try:
            for a in self.agents.values():
                self._spawn(a)
            self._wait_ready(list(self.agents.values()))
            if self.hosts_enabled:
                self._hosts = hostmod.host_entries(self.base_port, use_netns=self.use_netns)
                self._tcp = hostmod.TcpResponder()
                self._tcp.start([(h["address"], h["tcp_port"]) for h in self._hosts
                                 if h["reachable"]])
        except BaseException:
            self.stop()
            raise
        self.started = True
        self.write_manifest()
        return self.manifest

    def stop(self, timeout: float = 5.0) -> None:
        for a in self.agents.values():
            self._terminate(a, timeout)
            if a.log_fh is not None:
                a.log_fh.close()
                a.log_fh = None
        if self._tcp is not None:
            self._tcp.stop()
            self._tcp = None
        if self.started:
            self.started = False
            self.supervisor_pid = None
            self.write_manifest()

    def agent(self, name: str) -> Agent:
        try:
            return self.agents[name]
        except KeyError:
            raise SimNetError(f"no switch {name!r}; have {sorted(self.agents)}") from None

    def restart_agent(self, name: str) -> dict:
        """Simulated device reboot: new recording with start_time = now and every counter,
        uptime and timestamp starting at 0; the agent process is restarted."""
        a = self.agent(name)
        self._terminate(a)
        a.boot_count += 1
        self.write_recording(a, int(time.time()), fresh=True)
        self._spawn(a)
        self._wait_ready([a])
        self.write_manifest()
        return mf.switch(self.manifest, name)

    def kill_agent(self, name: str) -> None:
        """The agent stops answering (SIGKILL).  The device's counters keep running: a later
        start_agent() serves the values the formula gives for that time."""
        a = self.agent(name)
        self._terminate(a, sig=signal.SIGKILL)
        self.write_manifest()

    def start_agent(self, name: str) -> None:
        a = self.agent(name)
        if a.running:
            return
        self._spawn(a)
        self._wait_ready([a])
        self.write_manifest()

    def check_children(self) -> list[str]:
        """Names of agents whose process has exited (manifest updated if any)."""
        dead = [a.name for a in self.agents.values() if a.proc is not None and not a.running]
        if dead:
            self.write_manifest()
        return dead

    # ---- manifest

    @property
    def manifest(self) -> dict:
        near32 = self._near("counter32")
        near64 = self._near("counter64")
        return {
            "schema": mf.SCHEMA,
            "state_dir": str(self.state_dir),
            "base_port": self.base_port,
            "supervisor_pid": self.supervisor_pid,
            "updated_at": time.time(),
            "wrap_in": self.wrap_in,
            "wrap64_in": self.wrap64_in,
            "formula": mf.FORMULA,
            "switches": [self._switch_entry(a) for a in self.agents.values()],
            "hosts": list(self._hosts),
            "links": [self._link_entry(link) for link in self.network.links],
            "pvc_paths": [dict(p) for p in self.network.pvc_paths],
            "losses": [loss.as_json() for loss in self.network.losses],
            "near_wrap": {k: v for k, v in (("counter32", near32), ("counter64", near64)) if v},
        }

    def _link_entry(self, link: Link) -> dict:
        def index(swname: str, port: str):
            sw = self.network.switch(swname)
            if isinstance(sw, ForeSwitch):
                return sw.port(port).number
            items = sw.interfaces if isinstance(sw, AtmSwitch) else sw.ports
            return next(i.ifindex for i in items if i.name == port)
        return asdict(link) | {"a_index": index(link.a_switch, link.a_port),
                               "b_index": index(link.b_switch, link.b_port)}

    def _near(self, which: str) -> dict | None:
        sw_name, obj, label = NEAR_WRAP_32 if which == "counter32" else NEAR_WRAP_64
        a = self.agents.get(sw_name)
        if a is None:
            return None
        key = "port" if which == "counter32" else "ifindex"
        for s in rec.series_entries(a.records, a.start_time):
            if s["object"] == obj and s["labels"].get(key) == label:
                return {"switch": sw_name, "object": obj, "oid": s["oid"], "index": s["index"],
                        "width": s["width"], "wraps_at": s["wraps_at"], "rebooted": a.fresh}
        return None

    def _switch_entry(self, a: Agent) -> dict:
        sw = a.sw
        return {
            "name": a.name,
            "community": a.name,
            "address": ADDRESS,
            "port": a.port,
            "mgmt_address": sw.mgmt_address if self.bind_mgmt else None,
            "profile": sw.profile,
            "sys_object_id": sw.sys_object_id,
            "sys_name": sw.sys_name,
            "start_time": a.start_time,
            "boot_count": a.boot_count,
            "pid": a.proc.pid if a.proc is not None and a.running else None,
            "running": a.running,
            "recording": str(self.recording_path(a.name).relative_to(self.state_dir)),
            "log": str(self.log_path(a.name).relative_to(self.state_dir)),
            "series": rec.series_entries(a.records, a.start_time),
        }

    def write_manifest(self) -> None:
        if self.state_dir.exists():
            mf.write(self.state_dir, self.manifest)
