"""`python -m services up|stop|status`: the programs of `make run` (services/programs.py) under
this checkout's supervisord (services/supervisor.py), and the simulated network's namespace.

  up      after provisioning (scripts/start-services.sh): the namespace (root only), supervisord,
          simnet, `manage.py seed_simnet` inside the namespace when simnet was started, then web,
          worker, simworker, beat and trapd; waits for /healthz and for every program's minimum
          uptime. A program already running with the same command is reused. A failure prints the
          tail of the log concerned and stops what this run started, then exits 1.
  stop    every program, newest first, supervisord, whatever a dead supervisord left, the namespace
  status  one line each: supervisord, the programs, the namespace, /healthz

PostgreSQL and redis are provisioning's (scripts/provision.sh, scripts/lib.sh `stop_service`).
"""
from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import legacy
from .programs import Checkout, programs, seed_command, settings_digest
from .supervisor import Program, Supervisor, SupervisorError

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / "state"
NETNS_RECORD = STATE / "run" / "netns"   # the namespace's name (read by scripts/simnet-exec.sh too)


def say(text: str = "") -> None:
    print(text, flush=True)


def info(text: str) -> None:
    say(f"    {text}")


def line(name: str, text: str) -> None:
    say(f"{name + ':':<9} {text}")


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def supervisor(ident: str = "cellar") -> Supervisor:
    return Supervisor(STATE, ROOT, ROOT / ".venv" / "bin" / "supervisord", identifier=ident)


class Failure(Exception):
    def __init__(self, step: str, message: str, log: Path | None = None, offset: int = 0):
        super().__init__(message)
        self.step, self.log, self.offset = step, log, offset


class Run:
    """`make run` after provisioning, and what it started (stopped again if it fails)."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.step = "setup"
        self.started: list[str] = []
        self.offsets: dict[str, int] = {}
        self.launched = False         # this run started supervisord
        self.made_netns: str | None = None
        self.restarting: set[str] = set()
        self.sup = supervisor(f"cellar-{settings_digest(ROOT, env)}")

    def begin(self, step: str) -> None:
        self.step = step
        say(f"==> {step}")

    def main(self) -> None:
        if old := legacy.stop(STATE):
            self.begin("old run")
            info(f"stopped pid {' '.join(map(str, old))}: started by a make run from before supervisord")
        self.checkout = checkout = Checkout.from_env(ROOT, self.env, self.netns())
        progs = programs(checkout)
        self.restarting = self.supervisord(progs)
        simnet, rest = progs[0], progs[1:]   # simnet first: it is registered before the others start
        self.start(simnet)
        self.settle(simnet.name)
        self.begin("seed simnet")
        if simnet.name in self.started:
            info("manage.py seed_simnet")
            log = STATE / "logs" / "provision-seed.log"
            with open(log, "w") as out:
                done = subprocess.run(seed_command(checkout), cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.STDOUT)
            if done.returncode:
                raise Failure(self.step, f"see {rel(log)}", log)
        else:
            info("simnet was already running and registered")
        for p in rest:
            self.start(p)

        self.begin("wait for web")
        timeout = float(self.env.get("CELLAR_HEALTH_TIMEOUT") or 30)
        deadline = time.monotonic() + timeout
        while True:
            for p in rest:
                self.check(p.name)
            if (code := healthz(checkout.web_port)) == "200":
                break
            if time.monotonic() > deadline:
                raise Failure("start web", f"http://127.0.0.1:{checkout.web_port}/healthz did not answer 200 within "
                              f"{timeout:g} s (last status: {code or 'none'})", self.sup.log("web"))
            time.sleep(0.5)
        info("/healthz answered 200")
        for p in [*rest, simnet]:
            self.settle(p.name)
        self.summary(checkout)

    def netns(self) -> str | None:
        self.begin("network namespace")
        if os.geteuid() != 0 or not shutil.which("ip") or self.env.get("DATABASE_URL") or self.env.get("REDIS_URL"):
            info("none (needs root, iproute2 and the private PostgreSQL and redis): "
                 "the unreachable host is a closed loopback port")
            return None
        simnet = [str(ROOT / ".venv" / "bin" / "python"), "-m", "simnet"]
        name = subprocess.run([*simnet, "netns-name", "--state-dir", "state/simnet"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        if not Path("/run/netns", name).exists():
            self.made_netns = name
        NETNS_RECORD.write_text(f"{name}\n")
        subprocess.run([*simnet, "netns-up", "--state-dir", "state/simnet"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        info(f"{name}: the simulated network and its worker (simworker) run in it; the root namespace is not changed")
        return name

    def supervisord(self, progs: list[Program]) -> set[str]:
        """supervisord running with these settings and programs; the names of programs it stopped
        because their command changed."""
        self.begin("supervisord")
        ident = self.sup.answering()
        restarting: set[str] = set()
        if ident == self.sup.identifier:
            info(f"already running (pid {self.sup.pid()}), reusing")
            restarting = set(self.sup.update(progs))
        else:
            if ident is not None:
                info("the Cellar settings (state/cellar.env, or .env.example's variables in the environment) "
                     "changed: restarting it and every program")
                restarting = {p.name for p in progs if self.sup.running(p.name)}
                for p in reversed(progs):
                    self.sup.stop(p.name)
                self.sup.shutdown()
            self.launched = True
            pid = self.sup.launch(progs)
            info(f"started (pid {pid}, {rel(self.sup.conf)}, log {rel(self.sup.log('supervisord'))})")
        if left := self.sup.stop_leftovers():
            info(f"stopped what a program or supervisord killed outright left: pid {' '.join(map(str, left))}")
        return restarting

    def start(self, program: Program) -> None:
        name = program.name
        self.begin(f"start {name}")
        if pid := self.sup.running(name):
            info(f"already running (pid {pid}), reusing")
            return
        if name in self.restarting:
            info("running with another command line or settings: restarting")
        checkout = self.checkout
        if name == "web" and tcp_in_use(checkout.web_port):
            raise Failure(self.step, f"port {checkout.web_port} on 127.0.0.1 is already in use by another program "
                          f"({tcp_owner(checkout.web_port)}); set CELLAR_WEB_PORT to a free port")
        if name == "trapd" and udp_in_use(checkout.trap_host, checkout.trap_port):
            raise Failure(self.step, f"UDP port {checkout.trap_port} is already in use by another program; "
                          "set CELLAR_TRAP_PORT to a free port")
        self.offsets[name] = self.sup.start(program)
        self.started.append(name)
        info(f"started (pid {self.sup.running(name)}, log {rel(self.sup.log(name))})")

    def check(self, name: str) -> bool:
        try:
            return self.sup.check(name, self.offsets.get(name, 0))
        except SupervisorError as e:
            raise Failure(f"start {name}", str(e), e.log, e.offset) from None

    def settle(self, name: str) -> None:
        """A program this run started counts once it stayed up its minimum uptime."""
        deadline = time.monotonic() + self.sup.min_uptime + 30
        while not self.check(name):
            if time.monotonic() > deadline:
                raise Failure(f"start {name}", f"{name} still starting after {self.sup.min_uptime + 30} s",
                              self.sup.log(name), self.offsets.get(name, 0))
            time.sleep(0.1)

    def summary(self, c: Checkout) -> None:
        base = f"http://127.0.0.1:{c.web_port}"
        admin = self.env.get("CELLAR_ADMIN_PATH") or env_file_value("CELLAR_ADMIN_PATH") or "admin/"
        say()
        say("Cellar is running.")
        say(f"  dashboard:  {base}/")
        say(f"  log in:     {base}/accounts/login/  as 'admin' (superuser), password: {self.admin_hint()}")
        say("  more users: .venv/bin/python manage.py role NAME viewer --create   (roles: viewer, operator, admin)")
        say(f"  admin site: {base}/{admin}")
        say(f"  SNMP traps: udp {c.trap_host}:{c.trap_port} (v1/v2c: the switch's community; v3: its user; "
            "docs/events.md)")
        say(f"  add switches: {base}/onboard/  or  .venv/bin/python manage.py add_switch ADDRESS")
        say(f"  processes:  supervisord, {rel(self.sup.conf)}  (make status; logs: {rel(STATE / 'logs')}/, make logs)")
        say("  stop with:  make stop")

    def admin_hint(self) -> str:
        """Where the admin's password is, never the password itself (the terminal may be logged)."""
        if (STATE / "admin-password").is_file():
            return "cat state/admin-password"
        if self.env.get("CELLAR_ADMIN_PASSWORD"):
            return "the CELLAR_ADMIN_PASSWORD you set"
        return "printed when it was made (reset: .venv/bin/python manage.py changepassword admin)"

    def undo(self) -> None:
        """Stop what this run started, newest first."""
        what = self.started[::-1] + (["supervisord"] if self.launched else []) + (["netns"] if self.made_netns else [])
        if not what:
            return
        print(f"cellar: stopping what this run started: {' '.join(what)}", file=sys.stderr, flush=True)
        for name in self.started[::-1]:
            self.sup.stop(name)
        if self.launched:
            self.sup.shutdown()
        if self.made_netns:
            remove_netns()


def up() -> int:
    run = Run(dict(os.environ))

    def on_term(signum: int, frame: object) -> None:
        raise Failure(run.step, "terminated")

    signal.signal(signal.SIGTERM, on_term)
    try:
        run.main()
        return 0
    except (Failure, SupervisorError, subprocess.CalledProcessError, KeyboardInterrupt) as e:
        step = e.step if isinstance(e, Failure) else run.step
        log = e.log if isinstance(e, Failure | SupervisorError) else None
        why = "interrupted" if isinstance(e, KeyboardInterrupt) else str(e)
        print(f"cellar: step '{step}' failed: {why}", file=sys.stderr)
        if log is not None and log.is_file():
            # The tail saves a round trip (CI keeps no state/ directory); only this start's part.
            with open(log, "rb") as f:
                f.seek(e.offset if isinstance(e, Failure | SupervisorError) else 0)
                tail = f.read().decode(errors="replace").splitlines()[-30:]
            print(f"---- last lines of {rel(log)} ----", *(f"    {t}" for t in tail), "----",
                  sep="\n", file=sys.stderr)
        sys.stderr.flush()
        run.undo()
        return 130 if isinstance(e, KeyboardInterrupt) else 1


def stop() -> int:
    sup = supervisor()
    names = [p.name for p in programs(Checkout.from_env(ROOT, os.environ))]
    answering = sup.answering() is not None
    for name in reversed(names):
        pid = sup.stop(name) if answering else None
        line(name, f"stopped (pid {pid})" if pid else "not running")
    if answering:
        line("supervisord", f"stopped (pid {sup.shutdown()})")
    if left := sup.stop_leftovers():
        line("leftovers", f"stopped pid {' '.join(map(str, left))} (left by a program or supervisord killed outright)")
    if old := legacy.stop(STATE):
        line("old run", f"stopped pid {' '.join(map(str, old))} (started by a make run from before supervisord)")
    return remove_netns()


def status() -> int:
    sup = supervisor()
    c = Checkout.from_env(ROOT, os.environ)
    pid = sup.pid()
    pids = " ".join(map(str, sup.leftovers()))
    left = f"; leftovers of a program or supervisord killed outright: pid {pids} (make run or make stop ends them)" \
        if pids else ""
    line("supervisord", f"running (pid {pid}){left}" if pid else f"stopped{left}")
    for p in programs(c):
        running = sup.running(p.name) if pid else None
        line(p.name, f"running (pid {running})" if running else "stopped")
    ns = recorded_netns()
    line("netns", f"{ns} (simnet and simworker inside)" if ns else "none")
    line("healthz", f"http://127.0.0.1:{c.web_port}/healthz -> {healthz(c.web_port) or 'no answer'}")
    return 0


def recorded_netns() -> str | None:
    """The namespace `make run` made, while it exists."""
    try:
        name = NETNS_RECORD.read_text().strip()
    except OSError:
        return None
    return name if name and Path("/run/netns", name).exists() else None


def remove_netns() -> int:
    """Remove the namespace (its processes are stopped by now; the veth pair goes with it)."""
    name = recorded_netns()
    if name and subprocess.run(["ip", "netns", "del", name]).returncode:
        line("netns", f"FAILED to remove {name}")
        return 1
    NETNS_RECORD.unlink(missing_ok=True)
    line("netns", f"removed {name}" if name else "none")
    return 0


def healthz(port: int) -> str:
    """The status code of /healthz, "" without an answer (never through a proxy)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            return str(r.status)
    except urllib.error.HTTPError as e:
        return str(e.code)
    except OSError:
        return ""


def tcp_in_use(port: int) -> bool:
    """Something listens on TCP `port` where gunicorn would bind (a listener on 0.0.0.0 too)."""
    return _in_use(socket.SOCK_STREAM, "127.0.0.1", port)


def udp_in_use(host: str, port: int) -> bool:
    return _in_use(socket.SOCK_DGRAM, host, port)


def _in_use(kind: int, host: str, port: int) -> bool:
    """Binding where the program will fails for being taken; any other error (an address this
    machine does not have...) is the program's to report, in its log."""
    with socket.socket(socket.AF_INET, kind) as s:
        if kind == socket.SOCK_STREAM:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # connections in TIME_WAIT do not count
        try:
            s.bind((host, port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
    return False


def tcp_owner(port: int) -> str:
    """Best effort: the program listening on `port`, as ss names it."""
    out = subprocess.run(["ss", "-Hltnp", f"sport = :{port}"], capture_output=True, text=True).stdout
    return out.partition("users:((")[2].partition(")")[0] or "unknown"


def env_file_value(name: str) -> str | None:
    try:
        lines = (STATE / "cellar.env").read_text().splitlines()
    except OSError:
        return None
    return next((v for k, _, v in (ln.partition("=") for ln in lines) if k == name), None)


if __name__ == "__main__":
    commands = {"up": up, "stop": stop, "status": status}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit(f"usage: python -m services {'|'.join(commands)}")
    sys.exit(commands[sys.argv[1]]())
