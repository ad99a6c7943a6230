"""`make run` on a real network: switches on a LAN, added while the service runs, polled by it.

A copy of this checkout runs `make run` as a newcomer would (its own state/, ports of its own, as
root: the simulated network in its namespace). A LAN of real agents in namespaces is reached from the
root namespace through a veth (tests/support/lan_lab.py): net-snmp snmpd with v2c and with v3 only,
and snmpsim serving a real switch's recording. Then, against the running service:

- a switch added with `manage.py add_switch ADDRESS` (the site credential sets tried in turn) and one
  added from the web page by address only (a network job) are archived by the running worker, not
  by `manage.py poll`, within two poll intervals; a host check of an agent's address answers
  "responding"; a sweep of the LAN (allow-listed) finds the recording's agent, which is then added
  from the candidates, and its LLDP neighbour is offered as a candidate;
- a v1 linkDown trap sent by an agent on the LAN reaches the trap receiver;
- the simulated network is still polled (by its own worker), its unreachable host still unreachable;
- `make stop` leaves the root namespace's addresses, links and routes as they were.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
import requests

from tests.support.agents import V3User
from tests.support.lan_lab import lan_lab
from tests.support.simnet_lab import root_netns_snapshot
from tests.support.webhook import serve

pytestmark = [pytest.mark.netns, pytest.mark.slow, pytest.mark.timeout(1200)]
ROOT = Path(__file__).resolve().parents[3]
RECORDING = ROOT / "tests" / "data" / "recordings" / "real" / "h3c-e528-2.snmprec.bz2"
INTERVAL = 5
V3 = V3User("lanops", "SHA", "lan-auth-key-1", "AES", "lan-priv-key-1")


def _free(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_checkout(dest: Path) -> None:
    """What a clone holds (tracked files and new ones not ignored), and this checkout's .venv."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    (dest / ".venv").symlink_to(ROOT / ".venv")


class Service:
    """The copy's `make run`, its CLI and its database."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root, self.env = root, env

    def make(self, target: str, timeout: float = 900) -> str:
        out = subprocess.run(["make", target], cwd=self.root, env=self.env, capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, f"make {target} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        return out.stdout

    def manage(self, *args: str, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess:
        out = subprocess.run([str(self.root / ".venv" / "bin" / "python"), "manage.py", *args], cwd=self.root,
                             env=self.env, input=stdin, capture_output=True, text=True, timeout=300)
        if check:
            assert out.returncode == 0, f"manage.py {' '.join(args)}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        return out

    def query(self, sql: str, *params) -> list[tuple]:
        url = next(line.split("=", 1)[1] for line in (self.root / "state" / "cellar.env").read_text().splitlines()
                   if line.startswith("DATABASE_URL="))
        with psycopg.connect(url, connect_timeout=10) as conn:
            return conn.execute(sql, params).fetchall()

    def wait_for(self, what: str, sql: str, *params, timeout: float = 60.0, predicate=bool):
        deadline = time.monotonic() + timeout
        while True:
            rows = self.query(sql, *params)
            if predicate(rows):
                return rows
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {timeout:g} s (last answer {rows})")
            time.sleep(1)

    def log(self, name: str) -> str:
        return (self.root / "state" / "logs" / f"{name}.log").read_text(errors="replace")


def _web(svc: Service) -> requests.Session:
    """A browser session logged in as make run's admin (the password it generated)."""
    s = requests.Session()
    base = svc.env["BASE"]
    page = s.get(f"{base}/accounts/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    password = (svc.root / "state" / "admin-password").read_text().strip()
    r = s.post(f"{base}/accounts/login/", data={"username": "admin", "password": password,
                                                "csrfmiddlewaretoken": token},
               headers={"Referer": f"{base}/accounts/login/"}, timeout=30, allow_redirects=False)
    assert r.status_code == 302, r.text[:500]
    return s


def _post(s: requests.Session, base: str, path: str, data: dict) -> requests.Response:
    page = s.get(f"{base}/onboard/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return s.post(f"{base}{path}", data={**data, "csrfmiddlewaretoken": token},
                  headers={"Referer": f"{base}/onboard/"}, timeout=30, allow_redirects=False)


def _job(s: requests.Session, base: str, resp: requests.Response, timeout: float = 120) -> dict:
    assert resp.status_code == 302 and "/onboard/jobs/" in resp.headers["Location"], resp.text[:1000]
    url = base + resp.headers["Location"].rstrip("/") + ".json"
    deadline = time.monotonic() + timeout
    while True:
        job = s.get(url, timeout=30).json()
        if job["status"] in ("done", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.5)


@pytest.fixture(scope="module")
def running():
    tmp = Path(tempfile.mkdtemp(prefix="cellar-makerun-", dir="/tmp"))
    os.chmod(tmp, 0o755)
    copy = tmp / "cellar"
    copy.mkdir()
    _copy_checkout(copy)
    web = _free(socket.SOCK_STREAM)
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("CELLAR_", "DATABASE_", "REDIS_", "CELERY_", "PG", "DJANGO_"))
            and k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "LOG_LEVEL")}
    with lan_lab(tmp / "lan") as lan:
        env = {**keep, "CELLAR_PG_PORT": str(_free(socket.SOCK_STREAM)),
               "CELLAR_REDIS_PORT": str(_free(socket.SOCK_STREAM)), "CELLAR_WEB_PORT": str(web),
               "CELLAR_TRAP_PORT": str(_free(socket.SOCK_DGRAM)), "CELLAR_HOST_CHECK_INTERVAL": "5",
               "CELLAR_SWEEP_NETWORKS": str(lan.network), "CELLAR_SWEEP_RATE": "20",
               "BASE": f"http://127.0.0.1:{web}"}
        svc = Service(copy, env)
        before = root_netns_snapshot()
        try:
            started = time.monotonic()
            svc.make("run")
            svc.started_s = time.monotonic() - started
            yield svc, lan
        finally:
            stop = subprocess.run(["make", "stop"], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
            after = root_netns_snapshot()
        assert stop.returncode == 0, stop.stderr
        assert after == before, "make run / make stop changed the root namespace"
    shutil.rmtree(tmp, ignore_errors=True)


def test_a_lan_switch_added_by_the_cli_is_polled_by_the_running_worker(running):
    svc, lan = running
    sw1 = lan.add_snmpd("lan-sw1", community="public")
    svc.manage("credentials", "add", "campus", "--secrets-stdin", stdin="public\n")
    svc.manage("credentials", "add", "ops-v3", "--snmp-version", "3", "--v3-user", V3.name, "--auth-proto", "SHA",
               "--priv-proto", "AES", "--position", "200", "--secrets-stdin",
               stdin=f"auth-key={V3.auth_key}\npriv-key={V3.priv_key}\n")
    out = svc.manage("add_switch", sw1.address, "--interval", str(INTERVAL)).stdout
    assert "credential set 'campus' answered: sysName lan-sw1" in out and "first poll: ok" in out, out
    assert "community" not in svc.query("SELECT params::text FROM poller_network_job")  # (none: it ran in the CLI)
    [(sid, group)] = svc.query("SELECT id, poller_group FROM inventory_switch WHERE name = 'lan-sw1'")
    assert group == "default"
    added = time.time()
    # archived by the running worker: two more polls within two intervals (and beat's 5 s refresh)
    svc.wait_for("two polls of lan-sw1 by the worker", "SELECT count(*) FROM traffic_poll_log WHERE switch_id = %s "
                 "AND status = 'ok' AND time > to_timestamp(%s)", sid, added,
                 timeout=2 * INTERVAL + 10, predicate=lambda rows: rows[0][0] >= 2)
    assert re.search(rf"poll slot of \d+ switches \({INTERVAL} s\): [0-9,]*\b{sid}\b", svc.log("worker"))
    # a host on that address: checked by the running worker, responding
    svc.manage("add_host", "lan-host", sw1.address)
    svc.wait_for("lan-host responding", "SELECT s.reachable FROM status_hoststate s JOIN inventory_host h "
                 "ON h.id = s.host_id WHERE h.name = 'lan-host'", timeout=30,
                 predicate=lambda rows: rows and rows[0][0] is True)


def test_a_v3_switch_added_from_the_web_by_address_only(running):
    svc, lan = running
    sw2 = lan.add_snmpd("lan-sw2", community="not-the-site-one", v3=V3)
    s = _web(svc)
    job = _job(s, svc.env["BASE"], _post(s, svc.env["BASE"], "/onboard/add", {
        "address": sw2.address, "port": 161, "credentials": "sets", "poller_group": "default",
        "interval": INTERVAL, "profile": "auto"}))
    steps = [st["text"] for st in job["steps"]]
    assert job["status"] == "done", (job["error"], steps)
    assert any("credential set 'campus'" in t and "timeout" in t for t in steps), steps   # v2c refused: silence
    assert any("credential set 'ops-v3' answered: sysName lan-sw2" in t for t in steps), steps
    assert job["links"][0] == {"text": "switch lan-sw2", "url": "/switches/lan-sw2/"}
    [(sid, version, user)] = svc.query("SELECT id, snmp_version, v3_user FROM inventory_switch WHERE name = 'lan-sw2'")
    assert (version, user) == ("3", V3.name)
    added = time.time()
    svc.wait_for("two polls of lan-sw2", "SELECT count(*) FROM traffic_poll_log WHERE switch_id = %s "
                 "AND status = 'ok' AND time > to_timestamp(%s)", sid, added,
                 timeout=2 * INTERVAL + 10, predicate=lambda rows: rows[0][0] >= 2)
    page = s.get(f"{svc.env['BASE']}/switches/lan-sw2/", timeout=30).text
    assert V3.auth_key not in page and V3.priv_key not in page
    # the job's row kept no secret once it ended, and no task argument carried one
    assert svc.query("SELECT count(*) FROM poller_network_job WHERE community <> '' OR auth_key <> '' "
                     "OR priv_key <> ''") == [(0,)]
    for name in ("worker", "simworker", "web"):
        assert V3.auth_key not in svc.log(name) and V3.priv_key not in svc.log(name)


def test_bad_input_is_one_clear_message_and_stores_nothing(running):
    svc, lan = running
    free = str(lan.network.broadcast_address - 1)        # on the LAN, nobody there
    s = _web(svc)
    base = svc.env["BASE"]
    nobody = _job(s, base, _post(s, base, "/onboard/add", {
        "address": free, "port": 161, "credentials": "sets", "poller_group": "default", "profile": "auto"}))
    # nobody answers ARP for it: "host unreachable" (the network, not the credentials), said at once
    assert nobody["status"] == "failed" and nobody["error"].startswith(
        f"host unreachable: {free}:161 does not answer on its network"), nobody
    assert "from this poller, network namespace root" in nobody["error"]
    dup = _job(s, base, _post(s, base, "/onboard/add", {
        "address": lan.agents[0].address, "port": 161, "credentials": "sets", "poller_group": "default",
        "profile": "auto"}))
    assert dup["status"] == "failed" and dup["error"] == (
        f"switch 'lan-sw1' already has the address {lan.agents[0].address}:161")
    out = svc.manage("add_switch", "lan-sw1", free, check=False)        # refused before any packet
    assert out.returncode == 1 and "a switch named 'lan-sw1' already exists" in out.stderr, out.stderr
    assert svc.query("SELECT count(*) FROM inventory_switch WHERE address = %s", free) == [(0,)]


def test_a_sweep_finds_the_recording_and_it_is_added_from_the_candidates(running):
    svc, lan = running
    rec = lan.add_recording(RECORDING, lan.tmp / "snmpsim-cache")
    svc.manage("credentials", "add", "h3c", "--position", "50", "--secrets-stdin", stdin=f"{rec.community}\n")
    s = _web(svc)
    base = svc.env["BASE"]
    started = time.monotonic()
    job = _job(s, base, _post(s, base, "/onboard/sweep", {"network": str(lan.network), "poller_group": "default"}),
               timeout=180)
    assert job["status"] == "done", job
    # the known switches' addresses are not probed; the rest at most CELLAR_SWEEP_RATE (20) a second
    assert job["result"]["answered"] == [rec.address], job
    probed = job["result"]["probed"]
    assert probed == lan.network.num_addresses - 2 - 2 and time.monotonic() - started >= probed * 3 / 20 * 0.9
    page = s.get(f"{base}/onboard/", timeout=30).text
    assert rec.address in page and "answered with credential set &#x27;h3c&#x27;" in page
    # a sweep outside the allow-list is refused with the allowed networks
    outside = _job(s, base, _post(s, base, "/onboard/sweep", {"network": "10.0.0.0/24", "poller_group": "default"}))
    assert outside["status"] == "failed" and str(lan.network) in outside["error"]
    added = _job(s, base, _post(s, base, "/onboard/add", {
        "address": rec.address, "port": 161, "credentials": "sets", "poller_group": "default",
        "interval": INTERVAL, "profile": "auto"}))
    assert added["status"] == "done", added
    name = added["result"]["switch"]
    [(sid,)] = svc.query("SELECT id FROM inventory_switch WHERE name = %s", name)
    svc.wait_for("a poll of the recording", "SELECT count(*) FROM traffic_poll_log WHERE switch_id = %s AND "
                 "status IN ('ok', 'partial') AND time > now() - interval '30 seconds'", sid,
                 timeout=2 * INTERVAL + 10, predicate=lambda rows: rows[0][0] >= 2)
    # its LLDP neighbour (named, no address said) is now a candidate, seen on its port
    page = s.get(f"{base}/onboard/", timeout=30).text
    claims = svc.query("SELECT far->>'sys_name' FROM inventory_linkevidence WHERE switch_id = %s AND kind = 'lldp'",
                       sid)
    assert claims and all(n in page for (n,) in claims), claims


def test_a_v1_trap_from_the_lan_reaches_the_receiver(running):
    svc, lan = running
    sw1 = lan.agents[0]
    port = svc.env["CELLAR_TRAP_PORT"]
    sw1.ns.run(["snmptrap", "-v1", "-c", sw1.community, f"{lan.root_addr}:{port}", "1.3.6.1.4.1.8072.3.2.10",
                sw1.address, "2", "0", "", "1.3.6.1.2.1.2.2.1.1.2", "i", "2"], timeout=20)
    rows = svc.wait_for("the v1 linkDown as an event", "SELECT e.kind, e.message, e.data::text FROM events_event e "
                        "JOIN inventory_switch s ON s.id = e.switch_id WHERE s.name = 'lan-sw1' AND e.source = 'trap'",
                        timeout=20)
    assert any("linkDown" in msg or "down" in msg for _, msg, _ in rows), rows
    assert all("public" not in data for *_, data in rows)


def test_the_simulated_network_is_still_polled_in_its_own_namespace(running):
    svc, _ = running
    [(netns_name,)] = svc.query("SELECT netns FROM poller_group_namespace WHERE \"group\" = 'simnet'")
    assert netns_name.startswith("cellar-sim-")
    svc.wait_for("recent polls of the simulated switches", "SELECT count(DISTINCT l.switch_id) FROM traffic_poll_log l "
                 "JOIN inventory_switch s ON s.id = l.switch_id WHERE s.poller_group = 'simnet' AND l.status = 'ok' "
                 "AND l.time > now() - interval '40 seconds'", timeout=60, predicate=lambda rows: rows[0][0] >= 5)
    states = dict(svc.query("SELECT h.name, s.reachable FROM inventory_host h JOIN status_hoststate s "
                            "ON s.host_id = h.id WHERE h.poller_group = 'simnet'"))
    assert states.get("hopper-atm.ukans") is False and sum(states.values()) == len(states) - 1, states
    # the simulated switches' polls were sent by simworker, the LAN's by the root worker
    assert "poll slot" in svc.log("simworker") and "ready" in svc.log("worker")
    status = json.dumps(svc.make("status"))
    assert "simworker: running" in status and netns_name in status


def test_a_notification_reaches_a_web_hook_on_the_hosts_loopback(running):
    svc, _ = running
    hook = serve()
    port, calls = next(hook)
    try:
        svc.manage("shell", "-c", "from collector.alerts.models import Destination; "
                   "from collector.alerts import actions; "
                   f"d = Destination.objects.create(name='loopback hook', url='json://127.0.0.1:{port}/hook'); "
                   "actions.send_test(d, None)")
        deadline = time.monotonic() + 30
        while not calls and time.monotonic() < deadline:
            time.sleep(0.3)
        assert calls and calls[0][1]["title"] == "[Cellar] test notification to loopback hook", calls
        assert svc.query("SELECT last_error FROM alerts_destination WHERE name = 'loopback hook'") == [("",)]
    finally:
        hook.close()
