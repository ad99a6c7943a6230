"""Debian's real Prometheus scrapes a running Cellar (/metrics/counters) while Cellar polls the
simulated network (known constant rates; asx200bx D1's transmit Counter32 wraps mid-window), and
Prometheus's rate(...[1m]), asked over its HTTP API, equals Cellar's own average rate of the same
series over the same minute (/traffic/api/data, raw samples) within 1 %: every series, the wrapping
one included (a plain 32-bit counter would have looked like a reset to rate()); a counter slower than
5/s, whose 1 % is finer than the agent's whole counts, within two counts over the minute. Two scrape jobs, one
part of the switches each, as docs/integrations.md advises: the ATM switches with a viewer's API token,
the IP switches from an allow-listed address, refused (up == 0) until the address is allowed; the whole
archive in one scrape is over the cardinality limit and refused with 413 (up == 0), never truncated.
The rollup runs meanwhile (30 s lag), so watermarks move under the scrapes.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from collector.archive import rollup
from collector.archive.models import Layout, Sample, Series
from collector.core.facts import Flag
from collector.core.isotime import iso
from collector.core.profiles import UNITS
from collector.inventory.models import Switch
from collector.poller import runner
from collector.reader import cumulative
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
POLL_S = 10            # Cellar polls every switch every 10 s
SCRAPE_S = 5           # Prometheus scrapes every 5 s: it sees every poll (at the poll's time)
WINDOW_S = 60          # rate(...[1m])
WRAP_IN = 60.0         # the near-wrap Counter32 wraps this long after the simulated network starts
ATM = ("asx200bx", "asx200bx-b", "atm2sw")
IP = ("ipsw48", "ipsw8")
TIMEOUT_S = 240        # the whole scenario, at most
COUNTS = 2 / (WINDOW_S - 2 * POLL_S)   # units/s: two whole counts over the shorter of the two windows


@pytest.fixture
def net():
    if not os.path.exists(PROMETHEUS):
        pytest.fail("Debian's prometheus is not installed (scripts/provision.sh installs it)")
    state = make_state_dir("prom")
    network = SimNetwork(state, find_free_base_port(5), wrap_in=WRAP_IN, hosts=False)
    network.start()
    yield network
    network.stop()
    shutil.rmtree(state, ignore_errors=True)


class Poller(threading.Thread):
    """Cellar's polls of every switch every POLL_S s (as the worker would), the rollup every 20 s."""

    def __init__(self, switch_ids: list[int]):
        super().__init__(daemon=True)
        self.switch_ids, self.stop, self.errors, self.rounds = switch_ids, threading.Event(), [], []

    def run(self) -> None:
        try:
            last_rollup = time.monotonic()
            while not self.stop.is_set():
                started = time.monotonic()
                for sid in self.switch_ids:
                    outcome = runner.poll_once(sid)
                    if not outcome.ok:
                        self.errors.append(f"switch {sid}: {outcome.status}")
                self.rounds.append(time.monotonic() - started)
                if time.monotonic() - last_rollup > 20:
                    rollup.run(budget_s=5, lag_s=30)
                    last_rollup = time.monotonic()
                self.stop.wait(max(0.0, POLL_S - (time.monotonic() - started)))
        except Exception as exc:           # noqa: BLE001 - reported by the test
            self.errors.append(repr(exc))
        finally:
            connection.close()


def free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """Debian's prometheus on 127.0.0.1:<free port> with a config and a data dir in `home`."""

    def __init__(self, home: Path, jobs: list[dict]):
        self.home, self.port = home, free_tcp_port()
        self.data = home / "data"
        config = {"global": {"scrape_interval": f"{SCRAPE_S}s", "scrape_timeout": "4s"}, "scrape_configs": jobs}
        (home / "prometheus.yml").write_text(json.dumps(config, indent=1))     # YAML is a superset of JSON
        self.log = home / "prometheus.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Prometheus:
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [PROMETHEUS, f"--config.file={self.home / 'prometheus.yml'}", f"--storage.tsdb.path={self.data}",
                 f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"prometheus exited: {self.log.read_text()[-2000:]}"
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2).status == 200:
                    return self
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"prometheus not ready in 30 s: {self.log.read_text()[-2000:]}")

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        shutil.rmtree(self.data, ignore_errors=True)

    def query(self, promql: str, at: float) -> list[dict]:
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": promql, "time": at})
        body = json.loads(urllib.request.urlopen(url, timeout=10).read())
        assert body["status"] == "success", body
        return body["data"]["result"]


def cellar_rates(base: str, auth: dict, ids: list[int], lo: float, hi: float) -> dict[int, float | None]:
    """Cellar's own average rate (units/s) of each series over raw samples in [lo, hi)."""
    out: dict[int, float | None] = {}
    for i in range(0, len(ids), 50):
        q = urllib.parse.urlencode({"s": ",".join(map(str, ids[i:i + 50])), "res": "raw", "p95": "0", "points": "0",
                                    "start": iso(datetime.fromtimestamp(lo, UTC)),
                                    "end": iso(datetime.fromtimestamp(hi, UTC))})
        req = urllib.request.Request(f"{base}/traffic/api/data?{q}", headers=auth)
        try:
            answer = urllib.request.urlopen(req, timeout=30).read()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{exc}: {exc.read()[:500]!r}") from exc
        for s in json.loads(answer)["series"]:
            avg = s["stats"]["average"]
            out[s["id"]] = None if avg is None else avg / s["factor"]
    return out


def key(labels: dict) -> tuple:
    return tuple(labels.get(k, "") for k in ("switch", "port", "vpi", "vci", "direction", "metric"))


def test_prometheus_rate_equals_cellars_own_rate(net, live_server, settings, tmp_path):
    started = time.monotonic()
    settings.CELLAR_PROMETHEUS_COUNTERS = True
    settings.CELLAR_PROMETHEUS_SCRAPERS = []
    call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), "--interval", str(POLL_S))
    switches = {s.name: s.id for s in Switch.objects.all()}
    assert set(switches) == set(ATM + IP)
    for sid in switches.values():       # a first poll makes each switch's series (and its first readings)
        assert runner.poll_once(sid).ok
    parts = {name: len(cumulative.scope(names, limit=10**6)) for name, names in (("atm", ATM), ("ip", IP))}
    everything = len(cumulative.scope(limit=10**6))
    settings.CELLAR_PROMETHEUS_MAX_SERIES = max(parts.values())        # each part fits, the whole does not
    assert everything > settings.CELLAR_PROMETHEUS_MAX_SERIES
    token = tokens.issue(make_user("prometheus", "viewer"), "scrapes").plaintext
    port = urllib.parse.urlsplit(live_server.url).port
    target = {"targets": [f"127.0.0.1:{port}"]}
    jobs = [
        {"job_name": "cellar-atm", "metrics_path": "/metrics/counters", "params": {"switch": list(ATM)},
         "authorization": {"type": "Bearer", "credentials": token}, "static_configs": [target]},
        {"job_name": "cellar-ip", "metrics_path": "/metrics/counters", "params": {"switch": list(IP)},
         "static_configs": [target]},
        {"job_name": "cellar-all", "metrics_path": "/metrics/counters",
         "authorization": {"type": "Bearer", "credentials": token}, "static_configs": [target]},
    ]
    near = net.manifest["near_wrap"]["counter32"]
    poller = Poller([switches[n] for n in ATM + IP])
    home = tmp_path / "prometheus"
    home.mkdir()
    poller.start()
    try:
        with Prometheus(home, jobs) as prom:
            first_scrapes = time.time()
            time.sleep(2 * SCRAPE_S + 2)
            settings.CELLAR_PROMETHEUS_SCRAPERS = ["127.0.0.1/32"]        # from now on the address may scrape
            allowed_at = time.time()
            # The minute compared: after the IP job is allowed, and with the wrap inside it.
            at = max(allowed_at + SCRAPE_S + WINDOW_S, near["wraps_at"] + 2 * POLL_S)
            assert at - WINDOW_S < near["wraps_at"] < at, "the simulated network took too long to seed"
            time.sleep(max(0.0, at + 2 * SCRAPE_S + 1 - time.time()))
            assert time.monotonic() - started < TIMEOUT_S
            up = {r["metric"]["job"]: r["value"][1] for r in prom.query("up", at)}
            early = {r["metric"]["job"]: r["value"][1] for r in prom.query("up", first_scrapes + 2 * SCRAPE_S)}
            got = {}
            for fam in UNITS:           # every unit a profile may count, loss events included
                for r in prom.query(f"rate(cellar_{fam}_total[1m])", at):
                    got[(fam, key(r["metric"]))] = (float(r["value"][1]), r["metric"]["job"])
            scrape = {r["metric"]["job"]: (float(r["value"][1]))
                      for r in prom.query("max_over_time(scrape_duration_seconds[1m])", at)}
            samples = {r["metric"]["job"]: float(r["value"][1]) for r in prom.query("scrape_samples_scraped", at)}
    finally:
        poller.stop.set()
        poller.join(30)
    assert not poller.errors, poller.errors[:5]
    # Who got in: the token's job always, the address only once allowed, the whole archive never (413).
    assert early == {"cellar-atm": "1", "cellar-ip": "0", "cellar-all": "0"}
    assert up == {"cellar-atm": "1", "cellar-ip": "1", "cellar-all": "0"}
    # Every series Cellar polls, at Cellar's own rate over the same minute.
    series = {s.id: s for s in cumulative.scope(limit=10**6)}
    by_key = {(s.unit, (s.switch, s.port, "" if s.vpi is None else str(s.vpi), "" if s.vci is None else str(s.vci),
                        s.direction, s.metric)): s.id for s in series.values()}
    auth = {"Authorization": f"Bearer {token}"}
    ours: dict[int, float | None] = {}
    for unit in {s.unit for s in series.values()}:      # the data API sums or plots one unit at a time
        ours |= cellar_rates(live_server.url, auth, sorted(i for i, s in series.items() if s.unit == unit),
                             at - WINDOW_S, at)
    compared, off, worst, strict = 0, [], (0.0, None), 0
    for (fam, labels), (rate, job) in got.items():
        sid = by_key[(fam, labels)]
        assert job == ("cellar-atm" if labels[0] in ATM else "cellar-ip")
        cellar = ours[sid]
        assert cellar is not None, labels
        # 1 %, or, for a counter too slow for 1 % of it to be a count, two counts over the window: the
        # agent's values are whole counts, and the two rates span windows a poll apart.
        if abs(rate - cellar) > max(0.01 * abs(cellar), COUNTS):
            off.append((labels, rate, cellar))
        if abs(cellar) > 100 * COUNTS:
            strict += 1
            worst = max(worst, (abs(rate - cellar) / cellar, labels))
        compared += 1
    assert not off, off[:10]
    assert compared == len(series), (compared, len(series))
    # The wrapping Counter32: a wrap archived inside the minute, and rate() at the simulated truth.
    truth = next(t for e in net.manifest["switches"] for t in e["series"]
                 if e["name"] == near["switch"] and t["oid"] == near["oid"])
    wrap = Series.objects.get(switch__name=near["switch"], object_name=truth["object"], index=truth["index"])
    truth = truth["rate"]
    lo, hi = datetime.fromtimestamp(at - WINDOW_S, UTC), datetime.fromtimestamp(at, UTC)
    flags = []
    for row in Sample.objects.filter(switch_id=wrap.switch_id, time__gte=lo, time__lt=hi):
        ids = Layout.objects.get(pk=row.layout_id).series_ids
        flags.append(row.flags[ids.index(wrap.id)])
    assert any(fl & Flag.WRAP for fl in flags), flags
    w = got[("cells", (near["switch"], "D1", "", "", "out", "cells"))][0]
    assert w == pytest.approx(truth, rel=0.01) and ours[wrap.id] == pytest.approx(truth, rel=0.01)
    # Bounded: the scrapes took (seconds) and held (series) this much.
    print(f"\ncompared {compared} series ({strict} above {100 * COUNTS:g}/s), largest difference of those "
          f"{worst[0]:.3%} ({worst[1]}); wrap series: prometheus {w:.1f}, "
          f"cellar {ours[wrap.id]:.1f}, truth {truth}/s; "
          f"scrape seconds (max over the minute) {scrape}; samples {samples}; parts {parts}, all {everything}; "
          f"poll rounds {max(poller.rounds):.2f} s at most; whole test {time.monotonic() - started:.0f} s")
    assert max(scrape["cellar-atm"], scrape["cellar-ip"]) < 2.0
    assert samples["cellar-atm"] == parts["atm"] and samples["cellar-ip"] == parts["ip"]
    per_switch: dict[str, int] = defaultdict(int)
    for s in series.values():
        per_switch[s.switch] += 1
    assert sum(per_switch[n] for n in ATM) == parts["atm"]
    assert timedelta(seconds=time.monotonic() - started) < timedelta(seconds=TIMEOUT_S)
