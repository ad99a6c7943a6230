"""Every query of every dashboard in grafana/dashboards, expanded as Grafana sends it
(tests/support/grafana_sql.py) and run as the role cellar_grafana, answers what Cellar's own reader
answers for the same series and window, at each tier the panels pick by their interval.

The archive: three switches of the simulated network (two FORE ATM switches with the PVC
mauchly->houdini across their trunk, the 48-port IP switch) polled by Cellar's poller for 90 s,
and a switch whose polls of two hours three days ago go through the collector's ingest (wraps of
both widths and a reboot, as an old switch would have them); then the real rollup. Raw samples
and the 1-minute tier come from the live polls, 15 min, 1 h and 1 d from the old ones.
"""
from __future__ import annotations

import math
import shutil
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from collector.archive import ingest, rollup, settle
from collector.archive.tiers import TIER, floor_time
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from collector.inventory.models import Switch
from collector.poller import runner
from collector.reader import catalog, reading
from collector.reader.selection import PlotRequest
from simnet.runner import SimNetwork, find_free_base_port
from tests.support import grafana_sql as g
from tests.support import traffic_factory as f
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(600)]
POLL_S, POLLS = 5, 18
LIVE = ["asx200bx", "asx200bx-b", "ipsw48"]
OLD_START = (datetime.now(UTC) - timedelta(days=3)).replace(hour=2, minute=0, second=0, microsecond=0)
OLD_POLLS = 480                    # 2 h at 15 s
RATE_IN, RATE_OUT, ERRORS = 9_000_000, 700_000, 3       # octets/s, octets/s, errors/s


def _old_switch() -> Switch:
    """edge-1: port 1's 64-bit ifHCInOctets crosses 2**64, its 32-bit ifHCOutOctets wraps, the agent
    reboots at poll 300 (counters from 0), errors at a steady rate: through ingest, as a poll stores them."""
    edge = f.switch("edge-1", profile="if-mib")
    f.port(edge, "1", is_atm=False, capacity_cells=None, speed_bps=1_000_000_000, label="uplink")
    for k in range(OLD_POLLS):
        since = k - 300 if k >= 300 else k
        base64 = 0 if k >= 300 else 2**64 - 100 * RATE_IN * 15
        base32 = 0 if k >= 300 else 2**32 - 50 * RATE_OUT * 15
        uptime = (1_000 if k >= 300 else 5_000_000) + since * 1500
        readings = {("ifHCInOctets", "1"): CounterReading((base64 + since * RATE_IN * 15) % 2**64, 64),
                    ("ifHCOutOctets", "1"): CounterReading((base32 + since * RATE_OUT * 15) % 2**32, 32),
                    ("ifInErrors", "1"): CounterReading(since * ERRORS * 15 + k % 7, 32)}
        ingest.ingest(PollResult(edge.id, OLD_START.timestamp() + 15 * k, uptime, readings, {}), edge)
    return edge


@pytest.fixture
def archive():
    state = make_state_dir("grafana")
    net = SimNetwork(state, find_free_base_port(3), hosts=False, switches=LIVE)
    net.start()
    try:
        _old_switch()
        call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), "--interval", str(POLL_S))
        switches = list(Switch.objects.filter(name__in=LIVE))
        start = rollup.db_now()
        for k in range(POLLS):
            due = time.monotonic() + POLL_S
            for sw in switches:
                assert runner.poll_once(sw.id).ok, sw.name
            if k < POLLS - 1:
                time.sleep(max(0.0, due - time.monotonic()))
        end = rollup.db_now()
        rollup.run(budget_s=120, lag_s=0)
        yield start, end
    finally:
        net.stop()
        shutil.rmtree(state, ignore_errors=True)


def _watermarks() -> dict[str, datetime]:
    with connection.cursor() as cur:
        cur.execute("SELECT tier, done_until FROM traffic_rollup_watermark")
        return dict(cur.fetchall())


def _as_grafana(sql: str) -> tuple[list[str], list[tuple]]:
    """The statement run with the rights of cellar_grafana (SET ROLE: privileges as the role's)."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL ROLE cellar_grafana")
        cur.execute(sql)
        return [c.name for c in cur.description], cur.fetchall()


def _variables(dashboard: dict, prefer: dict[str, str], window) -> dict[str, g.Variable]:
    """Each variable in order, a query variable's options read by its own query (as Grafana does);
    the value `prefer` names (which must be offered), else the first option; "All" for a multi one."""
    out: dict[str, g.Variable] = {}
    for var in g.variables_of(dashboard):
        rows = None
        if var["type"] == "query":
            _, rows = _as_grafana(g.grafana_sql(var["query"], out, *window, 60_000))
        offered = g.options(var, rows)
        assert offered, (dashboard["uid"], var["name"])
        if var["name"] in prefer:
            assert prefer[var["name"]] in offered, (var["name"], prefer[var["name"]], offered)
            chosen: tuple[str, ...] = (prefer[var["name"]],)
        else:
            chosen = offered if var.get("includeAll") else offered[:1]
        out[var["name"]] = g.Variable(var["name"], bool(var.get("multi") or var.get("includeAll")), chosen)
    return out


def _series_id(labels: dict) -> int:
    where = " AND ".join(f"{k} IS NULL" if v is None else f"{k} = %({k})s" for k, v in labels.items())
    with connection.cursor() as cur:
        cur.execute(f"SELECT series_id FROM grafana.series_labels WHERE {where}", labels)
        rows = cur.fetchall()
    assert len(rows) == 1, (labels, rows)
    return rows[0][0]


def _reader(sid: int, res: str, lo: datetime, hi: datetime) -> dict[datetime, tuple[float, int, float]]:
    """Cellar's reader (the plots' and the API's): time -> (average rate, drawn delta, drawn seconds),
    only points of the tier itself (before its watermark; the plots add a tail the tier has not yet)."""
    series = catalog.load_series([sid])
    p = reading.plan(PlotRequest(series_ids=(sid,), range="custom", start=lo, end=hi), series, res=res)
    (plotted,) = reading.fetch(p, with_p95=False)
    c = plotted.cols
    done = _watermarks().get(res) if res != "raw" else None
    out = {}
    for t, d, s, avg in zip(c.t, c.delta, c.seconds, c.avg()):
        when = datetime.fromtimestamp(t, UTC)
        if lo <= when <= hi and (done is None or when < done):
            out[when] = (avg, int(d), s)
    return out


def _close(a, b) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or math.isnan(b)
    return b is not None and not math.isnan(b) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


# Legend (the `metric` column) -> the series' labels, for each panel (by title, $vars expanded).
def _labels(panel: str, legend: str, v: dict[str, g.Variable]) -> dict:
    one = {k: x.values[0] for k, x in v.items()}
    if panel.startswith(("Cells/s per port", "Bits/s per port")):
        return {"switch": one["switch"], "port": legend, "direction": one["direction"], "vci": None, "vpi": None,
                "metric": "cells" if panel.startswith("Cells") else "octets"}
    if panel in ("Cells/s", "Bits/s", "Unicast packets/s"):
        metric = {"Cells/s": "cells", "Bits/s": "octets", "Unicast packets/s": "ucast_pkts"}[panel]
        return {"switch": one["switch"], "port": one["port"], "direction": legend, "metric": metric, "vpi": None}
    if panel == "Errors and discards/s":
        metric, direction = legend.split(" ")
        return {"switch": one["switch"], "port": one["port"], "direction": direction, "metric": metric, "vpi": None}
    if panel == "Cells/s along the path":
        _, switch, port, vc, direction = legend.split(" ")
        vpi, vci = vc.split("/")
        return {"switch": switch, "port": port, "vpi": int(vpi), "vci": int(vci), "direction": direction,
                "metric": "cells"}
    raise AssertionError(f"no legend rule for panel {panel!r}")


def _check_time_series(panel: dict, cols, rows, v, res, lo, hi, factor) -> int:
    assert cols == ["time", "metric", "value"], (panel["title"], cols)
    by_legend: dict[str, dict[datetime, float]] = {}
    for t, legend, value in rows:
        by_legend.setdefault(legend, {})[t.astimezone(UTC)] = value
    for legend, points in by_legend.items():
        expected = _reader(_series_id(_labels(panel["title"], legend, v)), res, lo, hi)
        assert set(points) == set(expected), (panel["title"], legend, res, sorted(set(points) ^ set(expected))[:4])
        for t, value in points.items():
            want = expected[t][0]
            assert _close(value, None if math.isnan(want) else want * factor), (panel["title"], legend, t, value, want)
    return sum(len(p) for p in by_legend.values())


def _check_talkers(cols, rows, res, lo, hi) -> int:
    assert cols[:7] == ["switch", "port", "vpi", "vci", "direction", "metric", "unit"] and rows
    for row in rows:
        r = dict(zip(cols, row))
        expected = _reader(_series_id({k: r[k] for k in ("switch", "port", "vpi", "vci", "direction", "metric")}),
                           res, lo, hi)
        delta = sum(x[1] for x in expected.values())
        seconds = sum(x[2] for x in expected.values())
        assert r["total"] == delta, (r, delta)
        assert _close(r["average"], delta / seconds if seconds else None), (r, delta, seconds)
    averages = [r[cols.index("average")] for r in rows if r[cols.index("average")] is not None]
    assert averages == sorted(averages, reverse=True)
    return len(rows)


def _run_dashboard(name: str, prefer: dict, window, interval_ms: int, res: str) -> dict[str, int]:
    d = g.dashboards()[name]
    lo, hi = window
    variables = _variables(d, prefer, window)
    checked = {}
    for panel in g.panels(d):
        runs = [variables]
        if "repeat" in panel:          # one copy of the panel per value, the variable single-valued in it
            rep = variables[panel["repeat"]]
            runs = [{**variables, rep.name: g.Variable(rep.name, True, (x,))} for x in rep.values]
        for v in runs:
            for target in panel["targets"]:
                cols, rows = _as_grafana(g.grafana_sql(target["rawSql"], v, lo, hi, interval_ms))
                title = (g.interpolate(panel["title"], {k: g.Variable(k, False, x.values) for k, x in v.items()})
                         if "repeat" in panel else panel["title"])
                if panel["type"] == "timeseries":
                    factor = 8 if panel["fieldConfig"]["defaults"]["unit"] == "bps" else 1
                    n = _check_time_series(panel, cols, rows, v, res, lo, hi, factor)
                elif panel["title"] == "The path":
                    n = len(rows)
                    assert rows[0][:5] == (0, v["switch"].values[0], v["port"].values[0], int(v["vpi"].values[0]),
                                           int(v["vci"].values[0])), rows
                else:
                    n = _check_talkers(cols, rows, res, lo, hi)
                checked[title] = checked.get(title, 0) + n
    return checked


def _scanned(sql: str) -> set[str]:
    """The relations the statement read (EXPLAIN ANALYZE: nodes never executed are left out)."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL ROLE cellar_grafana")
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        plan = cur.fetchone()[0]
    found: set[str] = set()

    def walk(node):
        if node.get("Actual Loops", 1) == 0:
            return
        if "Relation Name" in node:
            found.add(node["Relation Name"])
        for child in node.get("Plans", []):
            walk(child)
    walk(plan[0]["Plan"])
    return found


def _chunks(table: str, lo: datetime, hi: datetime) -> tuple[set[str], set[str]]:
    """(chunks of the hypertable that overlap [lo, hi], every chunk of it)."""
    with connection.cursor() as cur:
        cur.execute("SELECT chunk_name, range_start < %s AND range_end > %s FROM timescaledb_information.chunks "
                    "WHERE hypertable_name = %s", [hi, lo, table])
        rows = cur.fetchall()
    return {n for n, inside in rows if inside}, {n for n, _ in rows}


def test_every_dashboard_query_answers_what_the_reader_answers_at_every_tier(archive):
    start, end = archive
    marks = _watermarks()
    assert marks["1m"] > start, ("the 1-minute tier reached none of the polls", marks, start)
    live_raw = (start - timedelta(seconds=1), end)
    live_1m = (floor_time(start, 60), marks["1m"] - timedelta(milliseconds=1))
    old = (floor_time(OLD_START, 86400), floor_time(OLD_START, 86400) + timedelta(days=1) - timedelta(milliseconds=1))
    ports = {"switch": "ipsw48", "port": "Gi1/0/7"}    # 2 errors/s in (simnet)
    scenarios = [  # (dashboard, variables, window, $__interval_ms, the tier it must pick)
        *[(name, prefer, w, ms, res)
          for w, ms, res in ((live_raw, 5_000, "raw"), (live_1m, 60_000, "1m"))
          for name, prefer in (("switch-ports.json", {"switch": "asx200bx"}),
                               ("switch-ports.json", {"switch": "ipsw48"}),
                               ("port.json", {"switch": "asx200bx", "port": "A4"}), ("port.json", ports),
                               ("pvc-path.json", {"switch": "asx200bx-b", "port": "A1", "vpi": "0", "vci": "210"}),
                               ("top-talkers.json", {"metric": "cells"}), ("top-talkers.json", {"metric": "errors"}))],
        *[(name, prefer, old, ms, res)
          for ms, res in ((900_000, "15m"), (3_600_000, "1h"), (86_400_000, "1d"))
          for name, prefer in (("switch-ports.json", {"switch": "edge-1"}),
                               ("port.json", {"switch": "edge-1", "port": "1"}),
                               ("top-talkers.json", {"metric": "octets"}))],
    ]
    totals: dict[tuple[str, str], int] = {}
    for name, prefer, window, ms, res in scenarios:
        with connection.cursor() as cur:
            cur.execute("SELECT grafana.tier(%s), grafana.tier(%s, %s)", [ms, ms, window[0]])
            assert cur.fetchone() == (res, res)
        for title, n in _run_dashboard(name, prefer, window, ms, res).items():
            totals[(title, res)] = totals.get((title, res), 0) + n
    compared = {k: n for k, n in totals.items() if n}
    # every panel met data at the live tiers, the traffic panels also at the old ones
    for title in ("Cells/s per port, in", "Bits/s per port, in", "Cells/s", "Bits/s", "Unicast packets/s",
                  "Errors and discards/s", "Cells/s along the path", "The path", "Top $n by average $metric/s"):
        for res in ("raw", "1m"):
            assert compared.get((title, res)), (title, res, totals)
    for title in ("Bits/s per port, out", "Bits/s", "Errors and discards/s", "Top $n by average $metric/s"):
        for res in ("15m", "1h", "1d"):
            assert compared.get((title, res)), (title, res, totals)
    assert _run_dashboard("pvc-path.json", {"switch": "asx200bx-b", "port": "A1", "vpi": "0", "vci": "210"},
                          live_raw, 5_000, "raw")["Cells/s along the path"] >= 2 * POLLS - 2

    # $__timeFilter(time) reaches the hypertables: only the tier the interval picks is read, and only
    # its chunks that overlap the range (the old polls' chunk is excluded when planning)
    port = g.dashboards()["port.json"]
    bits = next(p for p in g.panels(port) if p["title"] == "Bits/s")["targets"][0]["rawSql"]
    v = {"switch": g.Variable("switch", False, ("edge-1",)), "port": g.Variable("port", False, ("1",)),
         "direction": g.Variable("direction", True, ("in", "out"))}
    for window, ms, table in ((live_raw, 5_000, "traffic_sample"), (old, 3_600_000, TIER["1h"].table)):
        scanned = _scanned(g.grafana_sql(bits, v, *window, ms))
        inside, every = _chunks(table, *window)
        hyper = {n for n in scanned if n.startswith("_hyper_") or n in every}
        assert hyper and hyper <= inside and not any(n.startswith("traffic_rollup") or n == "traffic_sample"
                                                     for n in scanned - every), (scanned, inside, every)
    assert len(_chunks("traffic_sample", live_raw[0] - timedelta(days=30), live_raw[1])[1]) >= 2

    # Over a day settled into blocks raw rows, 1-minute and 15-minute buckets are gone (they are blocks,
    # which the views do not read): a short range there reads the hourly tier, which stays rows,
    # instead of saying "No data"; a range older than every tier's oldest chunk reads the 1-day tier.
    hour = (OLD_START, OLD_START + timedelta(hours=1) - timedelta(milliseconds=1))
    settle.run(budget_s=60)
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_poll p JOIN inventory_switch s ON s.id = p.switch_id "
                    "WHERE s.name = 'edge-1' AND p.lo = %s", [floor_time(OLD_START, 86400)])
        assert cur.fetchone()[0] == 1
        cur.execute("SELECT grafana.tier(5000), grafana.tier(5000, %s), grafana.tier(60000, %s)",
                    [hour[0], hour[0] - timedelta(days=400)])
        assert cur.fetchone() == ("raw", "1h", "1d")
    counted = _run_dashboard("port.json", {"switch": "edge-1", "port": "1"}, hour, 5_000, "1h")
    assert counted["Bits/s"] >= 2, counted                          # the hour, in and out
    scanned = {n for n in _scanned(g.grafana_sql(bits, v, *hour, 5_000)) if n.startswith("_hyper_")}
    assert scanned and scanned <= _chunks(TIER["1h"].table, *hour)[0], scanned     # that tier only
