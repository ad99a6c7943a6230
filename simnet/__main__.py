"""Command line: ``python -m simnet COMMAND --state-dir DIR``.

  up        write the recordings, start one snmpsim agent per switch, write manifest.json,
            stay in the foreground until SIGTERM/SIGINT, then stop the agents
  down      stop a running `up` (SIGTERM to the supervisor; leftover agents are stopped)
  manifest  print DIR/manifest.json
  reboot NAME | kill NAME | start NAME
            ask the running supervisor to reboot (counters/uptime from 0), kill (agent
            stops answering) or start again (no reboot) one switch's agent
  write     only generate recordings + manifest (agents not started)
  netns-up | netns-down | netns-name
            make (idempotent) / remove / name the network namespace of this state dir, where
            `make run` runs simnet (and the processes that poll it) so the unreachable host
            needs no change to the root namespace; netns-up and netns-name print its name
  netns-cleanup
            remove what an older Cellar left in the root namespace (`cellar-simnet`, csim-h0)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path

from . import hosts as hostmod
from . import manifest as mf
from .losses import Loss
from .network import DEFAULT_WRAP64_IN, DEFAULT_WRAP_IN, build_network
from .runner import DEFAULT_BASE_PORT, SimNetError, SimNetwork

PID_FILE = "simnet.pid"
CONTROL = "control"


def _pid_alive(pid: int) -> bool:
    """True if the process exists and is not a zombie (an exited child whose parent has
    not reaped it yet counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2] not in "ZX"
    except (OSError, ValueError, IndexError):
        return True


def _read_pid(state_dir: Path) -> int | None:
    try:
        return int((state_dir / PID_FILE).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def cmd_up(args) -> int:
    state = Path(args.state_dir).resolve()
    old = _read_pid(state)
    if old and _pid_alive(old) and "simnet" in _cmdline(old):
        print(f"simnet already running for {state} (pid {old})", file=sys.stderr)
        return 1
    stop = {"flag": False}

    def on_signal(signum, frame):
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    net = SimNetwork(state, args.base_port, wrap_in=args.wrap_in, wrap64_in=args.wrap64_in,
                     use_netns=not args.no_netns, supervisor_pid=os.getpid(),
                     network=build_network(args.wrap_in, args.wrap64_in, args.loss) if args.loss else None)
    try:
        net.start()
    except SimNetError as e:
        print(f"simnet: {e}", file=sys.stderr)
        return 1
    (state / PID_FILE).write_text(f"{os.getpid()}\n")
    (state / CONTROL).mkdir(exist_ok=True)
    for a in net.agents.values():
        pid = a.proc.pid if a.proc is not None else None     # start() started every agent (or raised)
        print(f"simnet: {a.name} ({a.sw.profile}) on udp {a.port} community {a.name} "
              f"pid {pid}", flush=True)
    print(f"simnet: manifest {state / 'manifest.json'}; SIGTERM/SIGINT to stop", flush=True)
    known_dead: set[str] = set()
    try:
        while not stop["flag"]:
            _serve_control(net, state / CONTROL)
            dead = set(net.check_children())
            for name in sorted(dead - known_dead):
                print(f"simnet: agent {name} is not running", flush=True)
            known_dead = dead
            time.sleep(0.3)
    finally:
        print("simnet: stopping", flush=True)
        net.stop()
        try:
            (state / PID_FILE).unlink()
        except OSError:
            pass
    return 0


def _serve_control(net: SimNetwork, control: Path) -> None:
    for req in sorted(control.glob("*.req")):
        result: dict[str, bool | str]
        try:
            body = json.loads(req.read_text())
            action, name = body["action"], body["switch"]
            if action == "reboot":
                net.restart_agent(name)
            elif action == "kill":
                net.kill_agent(name)
            elif action == "start":
                net.start_agent(name)
            else:
                raise SimNetError(f"unknown action {action!r}")
            result = {"ok": True}
        except Exception as e:  # report any failure to the requester
            result = {"ok": False, "error": str(e)}
        tmp = req.with_suffix(".tmp")
        tmp.write_text(json.dumps(result))
        os.replace(tmp, req.with_suffix(".done"))
        req.unlink(missing_ok=True)


def cmd_control(args) -> int:
    state = Path(args.state_dir).resolve()
    pid = _read_pid(state)
    if not pid or not _pid_alive(pid):
        print("simnet is not running for this state dir", file=sys.stderr)
        return 1
    control = state / CONTROL
    rid = uuid.uuid4().hex
    tmp = control / f"{rid}.tmp"
    tmp.write_text(json.dumps({"action": args.command, "switch": args.switch}))
    os.replace(tmp, control / f"{rid}.req")
    done = control / f"{rid}.done"
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if done.exists():
            result = json.loads(done.read_text())
            done.unlink(missing_ok=True)
            if not result.get("ok"):
                print(f"simnet: {result.get('error')}", file=sys.stderr)
                return 1
            return 0
        time.sleep(0.2)
    print("simnet: no answer from the supervisor", file=sys.stderr)
    return 1


def cmd_down(args) -> int:
    state = Path(args.state_dir).resolve()
    pid = _read_pid(state)
    if pid and _pid_alive(pid) and "simnet" in _cmdline(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + args.timeout
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _pid_alive(pid):
            print(f"simnet: supervisor {pid} did not stop; sending SIGKILL", file=sys.stderr)
            os.kill(pid, signal.SIGKILL)
    # agents left behind by a supervisor that died without cleaning up
    try:
        man = mf.load(state)
    except (OSError, ValueError):
        man = {"switches": []}
    for sw in man.get("switches", []):
        apid = sw.get("pid")
        if apid and _pid_alive(apid) and "simnet.responder" in _cmdline(apid) \
                and str(state) in _cmdline(apid):
            os.kill(apid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while _pid_alive(apid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _pid_alive(apid):
                os.kill(apid, signal.SIGKILL)
    try:
        (state / PID_FILE).unlink()
    except OSError:
        pass
    return 0


def cmd_manifest(args) -> int:
    try:
        man = mf.load(args.state_dir)
    except OSError as e:
        print(f"simnet: no manifest: {e}", file=sys.stderr)
        return 1
    json.dump(man, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


def cmd_write(args) -> int:
    net = SimNetwork(args.state_dir, args.base_port, wrap_in=args.wrap_in,
                     wrap64_in=args.wrap64_in, hosts=False,
                     network=build_network(args.wrap_in, args.wrap64_in, args.loss) if args.loss else None)
    net.prepare_dirs()
    t0 = int(time.time())
    for a in net.agents.values():
        net.write_recording(a, t0, fresh=False)
    net.write_manifest()
    print(net.state_dir / "manifest.json")
    return 0


def cmd_netns(args) -> int:
    name = hostmod.netns_name(args.state_dir)
    if args.command != "netns-name":
        if not hostmod.netns_available():
            print("simnet: network namespaces need root and iproute2", file=sys.stderr)
            return 1
        if args.command == "netns-up":
            hostmod.create_netns(name)
        else:
            hostmod.remove_netns(name)
            return 0
    print(name)
    return 0


def cmd_netns_cleanup(args) -> int:
    hostmod.remove_legacy_netns()
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m simnet", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, ports=True):
        sp.add_argument("--state-dir", required=True)
        if ports:
            sp.add_argument("--base-port", type=int, default=DEFAULT_BASE_PORT)
            sp.add_argument("--wrap-in", type=float, default=DEFAULT_WRAP_IN,
                            help="seconds until the near-wrap Counter32 wraps (default 60)")
            sp.add_argument("--wrap64-in", type=float, default=DEFAULT_WRAP64_IN,
                            help="seconds until the near-wrap Counter64 wraps (default 90)")
            sp.add_argument("--loss", type=Loss.parse, action="append", default=[],
                            metavar="SWITCH:PORT:VPI[.VCI]:RATE[:KIND]",
                            help="cells/s lost where a connection enters SWITCH on PORT (simnet/losses.py: "
                                 "KIND overflow, discard, line, unknown, tag, crc, ...); repeatable")

    sp = sub.add_parser("up", help="run the network in the foreground")
    common(sp)
    sp.add_argument("--no-netns", action="store_true",
                    help="the unreachable host is a closed port even inside a namespace")
    sp.set_defaults(func=cmd_up)
    sp = sub.add_parser("down", help="stop a running network")
    common(sp, ports=False)
    sp.add_argument("--timeout", type=float, default=20.0)
    sp.set_defaults(func=cmd_down)
    sp = sub.add_parser("manifest", help="print the manifest")
    common(sp, ports=False)
    sp.set_defaults(func=cmd_manifest)
    for action in ("reboot", "kill", "start"):
        sp = sub.add_parser(action, help=f"{action} one agent of the running network")
        common(sp, ports=False)
        sp.add_argument("switch")
        sp.add_argument("--timeout", type=float, default=40.0)
        sp.set_defaults(func=cmd_control)
    sp = sub.add_parser("write", help="only write recordings and manifest")
    common(sp)
    sp.set_defaults(func=cmd_write)
    for action in ("netns-up", "netns-down", "netns-name"):
        sp = sub.add_parser(action, help=f"{action.split('-')[1]} the network namespace of this state dir")
        common(sp, ports=False)
        sp.set_defaults(func=cmd_netns)
    sp = sub.add_parser("netns-cleanup", help="remove an older Cellar's root-namespace veth")
    sp.set_defaults(func=cmd_netns_cleanup)
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
